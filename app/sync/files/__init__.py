"""Files in and out: imports, exports, the formula guard; may import edit, push and pull.

- Import: `importer` (`plan_import`, `plan_table`, `apply`, the errors file), `import_plan` (each
  row's outcome, counts, requests), `import_planner` (`RowPlanner`: create, update, unchanged or
  error), `import_file` (`TableFile`, strict CSV and XLSX reading), `import_names` (headers and
  names → keys), `import_checks` (`TypeLoss`: values a spreadsheet damaged), `import_index`
  (cross-row look-ups), `import_stream` + `import_lines` (a dry run row by row).
- Export: `resource_export` (CSV and XLSX of a resource), `xlsx_stream` (the XLSX writer, decision
  0018), `audit_export` (the audit log), `cell_text` (one text per value).
- `output_file` (a file the user named, written as a Unix tool does) and `formula_guard` (texts a
  spreadsheet would run: neutralised on export, restored on import).
"""
