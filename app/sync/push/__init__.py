"""Pushing the outbox to the show: checks, requests, answers, verification; may import pull."""
