"""Pushing the outbox to the show: checks, requests, answers, verification; may import pull.

- `pusher` (`Pusher.push`: the four steps in its docstring; a slice of records at a time),
  `slices` (the records pushed listed in a temporary file and read a slice at a time).
- `prepush` (`ServerCheck`: conflicts judged by field before sending, decision 0004), `verdicts`
  (pure judgements: which fields conflict, the merged body, an answer in words).
- `bulk_push` + `batches` (changes that travel in one bulk request, refusals placed on elements),
  `outcomes` (answers settled in the outbox 250 at a time), `write_answers` (a write judged by its
  answer: an update's echo, a field the show kept, a create whose answer was lost looked up by its
  key, decision 0027), `refresh` (what the answers could not tell, listed again), `verify` +
  `verify_pushed` (lost updates caught after the push).
- `cost` (`PushCost`: the requests and time a push will take, for the review and `--dry-run`).
"""
