"""Everything Qt: sub-packages by concern, each importing only the ones below it.

common < session < form < table < panels, outbox < window < launch (tests/unit/test_boundaries.py).
"""
