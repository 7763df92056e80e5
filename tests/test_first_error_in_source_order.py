"""Of several mistakes in one expression or declaration list, the first one in the source is
reported: the walks over the surface tree (surface.nodes) go in source order."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend import surface as S
from dipc_plus.frontend.load import parse_program
from dipc_plus.frontend.syntax import parse_module

CASES = [
    # inference: the first unknown name on the right-hand side of an undeclared local
    ("input q: real\noutput o: real\nx <- aa + (bb * cc)\no <- Lap(eps, q)\n", 3, 6, "unknown name 'aa'"),
    # flow: the first of two names read before they are assigned
    ("input q: real\nvar a: bool\nvar b: bool\noutput o: real\nif a and b then o <- Lap(eps, q) "
     "else o <- Lap(eps, q) end\n", 5, 4, "'a' is read before it is assigned"),
    # a symbol's position is its first listing
    ("param yes = 1\ntype A = {no, yes}\nfunction f(x: {yes, maybe}) -> {no, yes} = x\ninput q: real\n"
     "output o: real\no <- Lap(eps, q)\n", 2, 15, "'yes' is both a parameter and a domain symbol"),
]


@pytest.mark.parametrize("text, line, column, message", CASES)
def test_the_first_mistake_in_the_source_is_reported(text, line, column, message):
    with pytest.raises(UserError) as info:
        parse_program(text, "o.dip")
    assert (info.value.line, info.value.column, info.value.message) == (line, column, message)


def test_nodes_come_in_source_order_each_before_its_parts():
    module = parse_module("input q: real\noutput o: real\no <- Lap(eps, a + b * c)\n", "n.dip")
    names = [n.name for n in S.nodes(module.items) if isinstance(n, S.Name)]
    assert names == ["o", "a", "b", "c"]
