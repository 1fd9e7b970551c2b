"""Small Qt helpers for every part of the window; imports no other ui folder."""
