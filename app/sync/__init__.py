"""Moving records between the show and the local store: pulling, pushing, import and export.

Nothing here knows Qt; the network is reached only through `app.api` (docs/ARCHITECTURE.md).
"""
