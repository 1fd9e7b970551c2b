"""Everything Qt: the window, its widgets and models, and the adapters to the plain core."""
