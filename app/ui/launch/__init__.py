"""QApplication, crash dialog, single instance, self-test, first run; may import all of ui."""
