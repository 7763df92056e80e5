"""The package reads as its pipeline: each folder is one stage, imports go only downward, no cycles.

Every `import` in every module (function-level imports included) is an arrow.
A module may import its own stage or a lower one, never a higher one, never a
peer stage (accuracy and privacy know nothing of each other), and the arrows
between modules form no cycle.  A new module must be placed in a stage here.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest
from conftest import ROOT

PACKAGE = ROOT / "dipc_plus"

# Lowest first.  Stages of equal rank may not import each other.
RANK = {
    "errors": -1,  # the user-error contract: every stage may raise a UserError
    "execution": 0,
    "exact": 1,
    "decision": 2,
    "semantics": 3,
    "frontend": 4,
    "claims": 5,
    "accuracy": 6, "privacy": 6,
    "commands": 7,
    "api": 8, "cli": 8,
    "__init__": 9, "__main__": 9,
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 2:
        parts.pop()
    return ".".join(parts)


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("dipc_plus"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("dipc_plus"):
                continue
            # `from dipc_plus.x import y`: y may be a module of x
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.add(sub if _exists(sub) else target)
    return found


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists()


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        g.add_node(module)
        for target in _imports(path, module):
            if target != module and target != "dipc_plus":
                g.add_edge(module, target)
    return g


def test_every_module_is_in_a_stage():
    unknown = sorted(m for m in _graph().nodes if _stage(m) not in RANK)
    assert not unknown, f"place these in a stage of tests/test_layers.py RANK: {unknown}"


def test_imports_only_go_downward():
    bad = []
    for a, b in _graph().edges:
        sa, sb = _stage(a), _stage(b)
        if sa == sb:
            continue
        if RANK[sb] >= RANK[sa] and not (sb == "__init__" and b.count(".") > 0):
            bad.append(f"{a} ({sa}) imports {b} ({sb})")
    assert not bad, "\n".join(sorted(bad))


def test_no_import_cycles():
    cycles = list(nx.simple_cycles(_graph()))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])


def test_checker_sees_a_cycle_and_an_upward_import(tmp_path):
    """The checks above can fail: a synthetic upward arrow is reported."""
    fake = tmp_path / "dipc_plus" / "exact" / "x.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from dipc_plus.privacy import dp\nfrom dipc_plus.exact import y\n")
    (tmp_path / "dipc_plus" / "exact" / "y.py").write_text("from dipc_plus.exact import x\n")
    g = nx.DiGraph()
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "dipc_plus"
    try:
        for path in PACKAGE.rglob("*.py"):
            m = _module_name(path)
            for t in _imports(path, m):
                g.add_edge(m, t)
    finally:
        PACKAGE = saved
    assert ("dipc_plus.exact.x", "dipc_plus.privacy") in g.edges or ("dipc_plus.exact.x", "dipc_plus.privacy.dp") in g.edges
    assert list(nx.simple_cycles(g))


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_has_a_docstring(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{path.name}: say in a docstring why this module exists"
