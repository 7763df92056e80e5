"""The parser: surface syntax, positions, separators, unicode, and plain-word syntax errors."""
import re
from fractions import Fraction as F

import pytest

from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError
from dipc_plus.semantics.ir import Pos
from dipc_plus.frontend.syntax import parse_module
from dipc_plus.frontend.syntax_errors import KEYWORDS
from conftest import PROGRAMS as PROGRAM_DIR, ROOT

PROGRAMS = sorted(PROGRAM_DIR.glob("*.dip"))


def parse(text):
    return parse_module(text, "t.dip").items


def syntax_error(text) -> UserError:
    with pytest.raises(UserError) as info:
        parse_module(text, "t.dip")
    return info.value


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_example_programs_parse(path):
    """Every shipped program parses into items in source order, each placed in the file,
    with at least one output declared."""
    text = path.read_text(encoding="utf-8")
    items = parse_module(text, str(path)).items
    lines = text.splitlines()
    places = [(item.pos.line, item.pos.column) for item in items]
    assert places == sorted(places)
    for item in items:
        assert item.pos.file == str(path)
        assert 1 <= item.pos.line <= len(lines) and 1 <= item.pos.column <= len(lines[item.pos.line - 1])
    assert any(getattr(item, "kind", None) == "output" for item in items)


def test_every_node_has_a_position():
    items = parse("""param m = 2
type Ans = {bot, top}
input q: real[m], a: Ans
output o: 1..m
var c: 0..m = 0
function f(x: Ans) -> bool = x == top
distribution d(x: bool) over bool { x: exp(rate); not x: 1 }
for i = 1 to m do
    r <- Lap(eps/2, q[i] + 1)
    if r > 0 and not f(a) then c <- c + 1 elif c == 1 then exit else c <- if true then 0 else 1 end
end
while c < 1 do
    b <- choose(eps, d(true))
end
o <- 1
""")

    def visit(node):
        if isinstance(node, tuple):
            for x in node:
                visit(x)
            return
        if not hasattr(node, "__dataclass_fields__") or isinstance(node, Pos):
            return
        pos = node.pos
        assert pos.file == "t.dip" and pos.line >= 1 and pos.column >= 1, node
        for name in node.__dataclass_fields__:
            if name != "pos":
                visit(getattr(node, name))

    visit(items)


def test_positions_are_exact():
    (assign,) = parse("\n\n   x <- 1 +  y\n")
    assert (assign.pos.line, assign.pos.column) == (3, 4)
    value = assign.value
    assert isinstance(value, S.BinOp) and (value.right.pos.line, value.right.pos.column) == (3, 14)


def test_unicode_eps_and_arrow():
    a, b = parse("r ← Lap(ε/2, q)\ns <- Lap(eps/2, q)\n")
    assert isinstance(a.value, S.SampleExpr) and isinstance(a.value.args[0].left, S.EpsLit)
    assert type(a.value.args[0].left) is type(b.value.args[0].left)


def test_semicolons_comments_and_blank_lines():
    items = parse("# header\n\nx <- 1; y <- 2 # trailing\n\n;; z <- 3\n")
    assert [i.target.name for i in items] == ["x", "y", "z"]


def test_single_line_blocks():
    (stmt,) = parse("if b then x <- 1 else x <- 2 end\n")
    assert isinstance(stmt, S.If) and len(stmt.branches) == 1 and len(stmt.other) == 1


def test_elif_chain():
    (stmt,) = parse("if a then\n x <- 1\nelif b then\n x <- 2\nelif c then\n x <- 3\nelse\n x <- 4\nend\n")
    assert len(stmt.branches) == 3 and stmt.other is not None


def test_line_continues_inside_brackets_and_before_operators():
    (stmt,) = parse("x <- max(1,\n        2)\n")
    assert isinstance(stmt.value, S.CallExpr) and len(stmt.value.args) == 2
    (fn,) = parse("function f(x: 0..3) -> 0..3 =\n    if x == 0 then 1\n    else if x == 1 then 2\n    else 3\n")
    assert isinstance(fn, S.FunctionDecl) and isinstance(fn.body.other, S.CondExpr)
    (stmt,) = parse("b <- x\n   or y\n")
    assert isinstance(stmt.value, S.BinOp) and stmt.value.op == "or"
    (stmt,) = parse("b <- x \\\n + y\n")
    assert isinstance(stmt.value, S.BinOp)


def test_distribution_outcomes_on_separate_lines():
    (d,) = parse("distribution g(x: 0..2) over 0..2 {\n    x: 1;\n    1 - x: lam\n    max(0,\n x): 2\n}\n")
    assert isinstance(d, S.DistDecl) and len(d.outcomes) == 3


def test_numbers_and_comparisons():
    (stmt,) = parse("b <- 0.25 = x\n")
    assert stmt.value.op == "==" and stmt.value.left.value == F(1, 4)
    ops = [parse(f"b <- x {op} y\n")[0].value.op for op in ("<", "<=", ">", ">=", "==", "=", "!=", "≤", "≥", "≠")]
    assert ops == ["<", "<=", ">", ">=", "==", "==", "!=", "<=", ">=", "!="]


def test_declarations():
    items = parse("input a: real, b: bool\noutput o: Ans[3]\nnoisy: real[m]\ntype T = -1..k\ntype U = {0, 1, none}\n")
    assert [type(i).__name__ for i in items] == ["IODecl", "IODecl", "IODecl", "VarDecl", "TypeDecl", "TypeDecl"]
    assert isinstance(items[2].type, S.ArrayType)
    assert [v for v, _ in items[5].type.elems] == [0, 1, "none"]


def test_precedence():
    (stmt,) = parse("b <- not x < 1 + 2 * 3 and y or z\n")
    v = stmt.value
    assert v.op == "or" and v.left.op == "and"
    assert isinstance(v.left.left, S.UnOp) and v.left.left.op == "not"
    cmp = v.left.left.arg
    assert isinstance(cmp, S.CmpOp) and cmp.right.op == "+" and cmp.right.right.op == "*"
    (stmt,) = parse("x <- -a * b\n")
    assert stmt.value.op == "*" and isinstance(stmt.value.left, S.UnOp)


# --------------------------------------------------------------------------- errors in plain words

BAD = [
    ("x <- 1 +\n", 1, 9),
    ("if b\n x <- 1\nend\n", 1, 5),
    ("x = 1\n", 1, 3),
    ("x <- (1 + 2\n", 2, 1),
    ("input q: real\nfor i = 1 to 3 do\n x <- 1\n", 4, 1),
    ("x <- 1 y <- 2\n", 1, 8),
    ("while b\n", 1, 8),
    ("param = 3\n", 1, 7),
    ("x <- a $ b\n", 1, 8),
    ("end\n", 1, 1),
    ("input if: real\n", 1, 7),
    ("distribution d(x: bool) over bool { x 1 }\n", 1, 39),
    ("type T = {a, b\n", 2, 1),
    ("x <- f(1,,2)\n", 1, 10),
]


@pytest.mark.parametrize("text,line,column", BAD)
def test_syntax_errors_are_located_and_in_plain_words(text, line, column):
    err = syntax_error(text)
    assert (err.file, err.line, err.column) == ("t.dip", line, column), str(err)
    assert err.hint
    # no lark token names leak into the message or hint
    assert not re.search(r"__ANON|\b[A-Z]{2,}_?[A-Z]*\b|\$END|_NL", err.message + err.hint), str(err)


def test_unclosed_block_names_its_opening_line():
    err = syntax_error("input q: real\nif q > 0 then\n  while b do\n    x <- 1\n  end\n")
    assert "'if' at line 2" in err.hint


def test_reserved_words_are_listed_in_the_reference():
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    line = next(l for l in doc.splitlines() if "Keywords are reserved" in l)
    section = doc[doc.index(line):doc.index(line) + 300]
    for kw in KEYWORDS:
        assert f" {kw} " in section.replace("`", " ") or f" {kw}\n" in section.replace("`", " "), kw
