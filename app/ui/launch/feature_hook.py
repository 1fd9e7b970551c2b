"""PySide6's import hook, spared reading the source of every module ShowDesk imports.

Importing PySide6 replaces `builtins.__import__` with a hook that, after each module imported
later, reads that module's whole source (`inspect.getsource`) to see whether it names PySide6 —
so that `from __feature__ import snake_case, true_property` can apply per module. ShowDesk uses
neither option; reading some 250 sources was about a tenth of the start's CPU (issue 17,
decision 0020). `spare_source_reads` makes the hook take every module as a PySide6 module with
the default features (what a module that uses PySide6 without `__feature__` gets anyway), without
reading it. It leans on PySide6's internals (`shibokensupport.feature._mod_uses_pyside`):
guarded, a PySide6 without them starts as before, and tests/gui/launch/test_plain_start.py says
whether it took effect.
"""

from __future__ import annotations

from types import ModuleType


def _default_features(module: ModuleType) -> bool:
    return True  # "uses PySide6": the default feature set (none), as every ShowDesk module


def spare_source_reads() -> bool:
    """Stop the hook reading sources; False when this PySide6 has no such hook (nothing done)."""
    import PySide6.QtCore  # noqa: F401  # installs the hook and its support module

    try:
        from shibokensupport import feature  # type: ignore[import-not-found]
    except ImportError:
        return False
    if not callable(getattr(feature, "_mod_uses_pyside", None)):
        return False
    feature._mod_uses_pyside = _default_features
    return True
