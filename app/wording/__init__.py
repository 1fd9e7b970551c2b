"""The words and names a show administrator reads; may import app.api and app.store.

- `words` (field titles with the API's acronyms kept, plurals, counts that agree, a message
  cut at a word), `references` (`ReferenceNames`: a reference read by its name; nested objects'
  labels, dates), `reasons` (why a value is refused: "'abc' is not a whole number"), `values`
  (`ValueWords`: a value as a list of changes reads it), `answers` (the show's answer to a
  change) — for the window and the command line alike.
"""
