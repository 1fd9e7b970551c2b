"""The words and names a show administrator reads; may import app.api and app.store."""
