"""Every public function and class of exact/, decision/ and api/ shows one worked example.

pytest runs the examples themselves (`--doctest-modules` in pyproject); this file checks
that they exist, so a new public name cannot arrive without one.  A name is public when
it is in the module's `__all__`, or, without `__all__`, when it is a function (memoised
ones included) or class defined in the module whose name has no leading underscore.

Two ways out, each with its reason:
* `MODULE_EXAMPLES`: modules whose function bodies other branches are rewriting; their
  examples live in the module docstring, which must call every public name.
* `EXEMPT`: names that cannot be shown in a line or two (worker entry points, ...).
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

STAGES = ("dipc_plus.exact", "dipc_plus.decision", "dipc_plus.api")

MODULE_EXAMPLES = {
    "dipc_plus.exact.constraints": "bodies being split on another branch (issue 29 item 6)",
    "dipc_plus.exact.laplace_engine": "bodies being split on another branch (issue 29 item 6)",
    "dipc_plus.exact.dlap_engine": "bodies being split on another branch (issue 29 item 6)",
}

EXEMPT: dict[str, str] = {
}


def _modules():
    for stage in STAGES:
        package = importlib.import_module(stage)
        for info in pkgutil.iter_modules(package.__path__):
            yield importlib.import_module(f"{stage}.{info.name}")


def public_names(module) -> list[str]:
    """The module's public functions and classes (see the module docstring)."""
    declared = getattr(module, "__all__", None)
    names = declared if declared is not None else [n for n in vars(module) if not n.startswith("_")]
    out = []
    for name in names:
        obj = getattr(module, name)
        plain = inspect.unwrap(obj) if callable(obj) else obj     # lru_cache'd functions too
        if (inspect.isfunction(plain) or inspect.isclass(plain)) and plain.__module__ == module.__name__:
            out.append(name)
    return out


def has_example(module, name: str) -> bool:
    """A doctest with at least one example in the object's docstring (or, for a class, in
    the docstring of one of its methods)."""
    obj = getattr(module, name)
    if not inspect.isclass(obj):
        obj = inspect.unwrap(obj)
    return any(t.examples for t in doctest.DocTestFinder().find(obj, name, module=module))


def module_example_source(module) -> str:
    test = doctest.DocTestParser().get_doctest(module.__doc__ or "", {}, module.__name__, None, 0)
    return "\n".join(e.source for e in test.examples)


MODULES = list(_modules())


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_public_name_has_an_example(module):
    missing = []
    shown_in_module = module_example_source(module) if module.__name__ in MODULE_EXAMPLES else ""
    for name in public_names(module):
        key = f"{module.__name__}.{name}"
        if key in EXEMPT or has_example(module, name):
            continue
        if shown_in_module and f"{name}(" in shown_in_module:
            continue
        missing.append(name)
    assert not missing, f"{module.__name__}: public names without a doctest example: {missing}"


def test_exemptions_are_current():
    """An exempt name must exist, be public and still lack an example (else drop it)."""
    by_name = {m.__name__: m for m in MODULES}
    stale = []
    for key in EXEMPT:
        module_name, _, name = key.rpartition(".")
        module = by_name.get(module_name)
        if module is None or name not in public_names(module) or has_example(module, name):
            stale.append(key)
    assert not stale, f"stale exemptions: {stale}"
    for module_name in MODULE_EXAMPLES:
        assert module_name in by_name and module_example_source(by_name[module_name])


def test_the_checker_sees_a_missing_example():
    """The finder must not count a docstring without '>>>' as an example."""
    import types

    def shown():
        """>>> 1 + 1
        2
        """

    def bare():
        """No example here."""

    fake = types.ModuleType("fake_stage_module")
    for f in (shown, bare):
        f.__module__ = fake.__name__
        setattr(fake, f.__name__, f)
    assert public_names(fake) == ["shown", "bare"]
    assert has_example(fake, "shown") and not has_example(fake, "bare")
