"""No function in the package has a cyclomatic complexity above 30 (issue 29), as radon measures it.

Every function is measured on its own (radon's `cc_visit_ast` on a module holding only that
definition), so methods, closures and functions inside nested classes are all covered; a
function's number, as in `radon cc`, does not include the functions defined inside it.
"""
from __future__ import annotations

import ast
from textwrap import indent

from radon.complexity import cc_visit_ast   # in the test extra: a missing radon fails, never skips

from conftest import ROOT

LIMIT = 30
PACKAGE = ROOT / "dipc_plus"


def definitions(tree: ast.AST, prefix: str = ""):
    """(qualified name, node) of every function definition under `tree`, at any depth."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from definitions(node, prefix + node.name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from definitions(node, prefix + node.name + ".")
        else:
            yield from definitions(node, prefix)


def complexity(node: ast.AST) -> int:
    """radon's cyclomatic complexity of one function definition."""
    (block,) = [b for b in cc_visit_ast(ast.Module(body=[node], type_ignores=[]))
                if b.name == node.name]
    return block.complexity


def too_complex(source: str, path: str = "<string>") -> list[str]:
    """'path:line name (cc N)' for every function of `source` above LIMIT."""
    tree = ast.parse(source, filename=path)
    return [f"{path}:{node.lineno} {name} (cc {cc})"
            for name, node in definitions(tree) for cc in [complexity(node)] if cc > LIMIT]


def test_no_function_in_the_package_is_above_the_limit():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50       # the package was found, not an empty folder
    found = []
    for path in modules:
        found += too_complex(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, f"functions above cyclomatic complexity {LIMIT} (split them by concept):\n" + "\n".join(found)


def _branches(n: int, depth: int) -> str:
    """A body of n ifs (complexity n + 1) indented `depth` levels."""
    return indent("".join(f"if x == {i}:\n    return {i}\n" for i in range(n)), "    " * depth)


def test_the_check_names_a_function_above_the_limit_wherever_it_is():
    # 30 ifs: complexity 31 - as a function, a method, a closure, and a method of a class in a function
    source = ("def top(x):\n" + _branches(30, 1)
              + "class C:\n    def method(self, x):\n" + _branches(30, 2)
              + "def outer():\n    def inner(x):\n" + _branches(30, 2) + "    return inner\n"
              + "def factory():\n    class K:\n        def deep(self, x):\n" + _branches(30, 3) + "    return K\n")
    found = too_complex(source)
    assert [entry.split(" ")[1] for entry in found] == ["top", "C.method", "outer.inner", "factory.K.deep"]
    assert all(entry.endswith("(cc 31)") for entry in found)


def test_the_limit_itself_passes():
    assert too_complex("def f(x):\n" + _branches(29, 1)) == []      # complexity 30
