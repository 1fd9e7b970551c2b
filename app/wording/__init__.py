"""The words and names a show administrator reads; may import app.api and app.store.

- `words` (field titles with the API's acronyms kept, plurals, counts that agree, a message
  cut at a word), `references` (`ReferenceNames`: a reference read by its name; nested objects'
  labels, dates), `reasons` (why a value is refused: "'abc' is not a whole number") — for the
  window and the command line alike.
"""
