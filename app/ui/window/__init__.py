"""The frame: actions, resource tree, status bar, profiles; imports panels, outbox, below."""
