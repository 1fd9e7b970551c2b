"""The TradeShow API V1 client side: registry, models, auth, rate governor, client, errors.

Nothing here knows Qt or SQLite (docs/ARCHITECTURE.md).
"""
