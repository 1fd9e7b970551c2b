"""Pulling the show into the cache; imports no other part of app.sync."""
