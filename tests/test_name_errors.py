"""Names in .dip programs: a name that holds no value is refused the same way when type inference
meets it and when lowering does (frontend.exprs.not_a_value), and a whole array given to a built-in
reads every element (Scope.elements) for the flow check and the lowering alike."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

PROGRAMS = {
 "infer_unknown": "input q: real\noutput o: real\nx <- qq + 1\no <- Lap(eps, q)\n",
 "infer_unknown_target": "input q: real\noutput o: real\nyy <- 1 < 2\nx <- y\no <- Lap(eps, q)\n",
 "infer_function": "function f(a: int) -> int = a\ninput q: real\noutput o: real\nx <- f\no <- Lap(eps, q)\n",
 "lower_unknown": "input q: real\noutput o: real\no <- Lap(eps, qq)\n",
 "lower_builtin": "input q: real\noutput o: real\no <- Lap(eps, max)\n",
 "fn_body_unknown": "function f(abc: int) -> int = abd + 1\ninput q: real\noutput o: real\no <- Lap(eps, q)\n",
 "array_arg": "input q: real[3]\noutput o: 1..3\nvar b: bool[3]\nfor i = 1 to 3 do b[i] <- q[i] > 0 end\no <- count(b) + 0\n",
 "array_unassigned": "input q: real[2]\noutput o: 0..2\nvar b: bool[2]\nb[1] <- q[1] > 0\no <- count(b)\n",
}

REFUSALS = [
    ('infer_unknown', 3, 6, "unknown name 'qq'", "did you mean 'q'?"),
    ('infer_unknown_target', 4, 6, "unknown name 'y'", "did you mean 'yy'?"),
    ('infer_function', 4, 6, "'f' is a function, not a value", 'call it: f(...)'),
    ('lower_unknown', 3, 15, "unknown name 'qq'", "did you mean 'q'?"),
    ('lower_builtin', 3, 15, "'max' is a function, not a value", 'call it: max(...)'),
    ('fn_body_unknown', 1, 31, "unknown name 'abd'", "did you mean 'abc'?"),
    ('array_unassigned', 5, 12, "'b[2]' is read before it is assigned", "assign 'b[2]' first"),
]


@pytest.mark.parametrize("name, line, column, message, hint", REFUSALS)
def test_refusal_is_located_and_worded(name, line, column, message, hint):
    with pytest.raises(UserError) as err:
        parse_program(PROGRAMS[name], "p.dip")
    assert (err.value.line, err.value.column, err.value.message, err.value.hint) == (line, column, message, hint)


def test_a_whole_array_argument_reads_every_element():
    last = parse_program(PROGRAMS["array_arg"], "p.dip").body[-1]
    assert [a.name for a in last.expr.args] == ["b[1]", "b[2]", "b[3]"]
