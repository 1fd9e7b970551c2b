"""Files in and out: imports, exports, the formula guard; may import edit, push and pull."""
