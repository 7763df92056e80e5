"""Heavy libraries imported on first use, so `dipc --help` does not pay for them.

Why: sympy, networkx and numpy together take about a second to import, and most
commands (and every `--help`) need none or one of them.  A module writes
``sympy = lazy_import("sympy")`` and uses ``sympy.Symbol`` as before; the real
import happens at the first attribute access, inside whichever function needs it.
Module-level code must not touch the proxy (that would import at once), which
`tests/test_startup.py` checks for the command-line entry point.
"""
from __future__ import annotations

import importlib
from types import ModuleType


class _LazyModule:
    """A stand-in for a module: the first attribute access imports it."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_import(name: str) -> _LazyModule:
    """A proxy for module `name` that imports it on first use."""
    return _LazyModule(name)
