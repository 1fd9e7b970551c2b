"""The outbox on screen: review, retry, conflicts; imports table and below."""
