"""What the views and commands report; may import every other package of app.sync.

- `show_summary` (the start page and `showdesk status`: counts, the last pushes), `change_list`
  (the outbox as one row per record, `showdesk status`), `push_history` (the audit log per
  change), `push_review` (the review before a push, the summary after), `orders` (order lines
  gathered into orders).
"""
