"""Every static check of docs/language.md, one small bad program each (tests/bad_programs).

Each program must be rejected by `dipc show` with exit code 2 and a message
naming file:line:column, saying what is wrong and giving a hint, never a
traceback.
"""
from pathlib import Path

import pytest

from dipc_plus.cli import main
from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program

BAD = Path(__file__).parent / "bad_programs"

# file, line, column, words of the message, words of the hint
CASES = [
    ("while_assigns_real.dip", 7, 5, ["real variable 'r'", "inside the while loop of line 6"], ["bounded"]),
    ("while_assigns_int.dip", 8, 5, ["integer variable 'z'", "while loop"], ["bounded"]),
    ("mix_int_real_comparison.dip", 6, 8, ["mixes an integer and a real"], ["never mix"]),
    ("mix_int_real_sum.dip", 5, 6, ["'+' mixes an integer and a real"], ["never mix"]),
    ("type_symbol_to_real.dip", 5, 6, ["real variable 'o'", "'top' is a symbol"], ["symbols"]),
    ("type_symbol_arithmetic.dip", 4, 6, ["'+' needs numbers", "symbol 'bot'"], ["numeric domain"]),
    ("type_bool_ordered.dip", 4, 6, ["'<' orders numbers", "Boolean"], ["== or !="]),
    ("type_bool_vs_symbol.dip", 7, 6, ["compares a Boolean", "'top'"], ["Boolean"]),
    ("type_lap_into_dom.dip", 4, 1, ["'o' is of domain 0..3", "Lap gives a real sample"], ["real variable"]),
    ("type_not_linear.dip", 5, 6, ["product of two random values is not linear"], ["linear"]),
    ("use_before_assign.dip", 4, 6, ["'x' is read before it is assigned"], ["assign 'x' first"]),
    ("use_maybe_unassigned.dip", 8, 6, ["'x' may be unassigned", "every path"], ["every branch"]),
    ("output_unassigned_at_exit.dip", 7, 5, ["output 'p' may be unassigned", "exits here"], ["before this exit"]),
    ("output_maybe_unassigned_at_end.dip", 3, 8, ["output 'o' may be unassigned", "program ends"], ["every path"]),
    ("output_never_assigned.dip", 3, 17, ["output 'unused' is never assigned"], ["assign it"]),
    ("no_output.dip", 1, 1, ["declares no output"], ["output out"]),
    ("unknown_variable.dip", 4, 15, ["unknown name 'qeury'"], ["did you mean 'query'?"]),
    ("unknown_function.dip", 4, 6, ["unknown function 'mn'"], ["did you mean 'min'?"]),
    ("unknown_type.dip", 4, 11, ["unknown type 'Anss'"], ["did you mean 'Ans'?"]),
    ("unknown_parameter.dip", 3, 15, ["unknown parameter 'n'"], ["param n"]),
    ("rate_without_eps.dip", 4, 10, ["rate is 2", "not a multiple of eps"], ["multiple of eps"]),
    ("rate_negative.dip", 4, 10, ["-1/2*eps", "positive multiple of eps"], ["multiple of eps"]),
    ("rate_uses_variable.dip", 5, 10, ["constant multiple of eps", "'k' is a variable"], ["parameters"]),
    ("index_out_of_range.dip", 5, 17, ["index 4 is out of range", "1..3"], ["numbered from 1"]),
    ("index_not_constant.dip", 5, 17, ["'k' is a variable", "compile-time constant"], ["for-loop indices"]),
    ("dom_constant_outside_domain.dip", 5, 10, ["5 is outside the domain 0..3", "'count'"], ["0, 1, 2, 3"]),
    ("dom_symbol_outside_domain.dip", 5, 11, ["'a' can never be 'none'", "{bot, top}"], ["bot, top"]),
    ("declaration_in_block.dip", 5, 9, ["declarations belong at the top level"], ["move the declaration"]),
    ("choose_without_rate.dip", 5, 6, ["weights of 'rr' use 'rate'", "gives none"], ["choose(a*eps, rr"]),
    ("exp_of_constant.dip", 2, 45, ["exp(...) of a constant"], ["exp(c*rate)"]),
    ("cannot_infer_type.dip", 4, 1, ["cannot tell the type of 'x'"], ["var x: 0..N", "var x: real"]),
    ("sample_in_expression.dip", 4, 6, ["Lap(...) can only be the whole right-hand side"], ["sample into a variable"]),
    ("assign_to_input.dip", 4, 1, ["cannot assign to 'q'", "input"], ["local variable"]),
    ("syntax_missing_then.dip", 5, 5, ["expected 'then'", "end of the line"], ["'if b then"]),
    ("syntax_unclosed_for.dip", 6, 1, ["expected 'end'", "end of the file"], ["'for' at line 4", "add 'end'"]),
    ("syntax_equals_assignment.dip", 4, 3, ["found '='"], ["assign with '<-'"]),
    ("syntax_reserved_word.dip", 2, 7, ["expected a name", "found 'to'"], ["reserved word"]),
    ("syntax_bad_character.dip", 5, 8, ["unexpected character '&'"], ["'and', 'or', 'not'"]),
    ("syntax_two_statements.dip", 5, 8, ["end of the statement", "found the name 'o'"], ["own line", "';'"]),
    ("syntax_chained_comparison.dip", 4, 12, ["found '<'"], ["do not chain"]),
    ("syntax_stray_end.dip", 5, 1, ["found 'end'"], ["closes no open block"]),
]


def test_every_bad_program_has_a_case():
    files = {p.name for p in BAD.glob("*.dip")}
    assert files == {c[0] for c in CASES}


@pytest.mark.parametrize("name,line,column,words,hint_words", CASES, ids=[c[0] for c in CASES])
def test_bad_program_is_rejected_with_position_and_hint(name, line, column, words, hint_words, capsys):
    path = BAD / name
    code = main(["show", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    first, _, rest = err.partition("\n")
    assert first.startswith(f"{path}:{line}:{column}: error: "), err
    for w in words:
        assert w in first, (w, err)
    assert rest.lstrip().startswith("hint: "), err
    for w in hint_words:
        assert w in rest, (w, err)


@pytest.mark.parametrize("name,line,column", [(c[0], c[1], c[2]) for c in CASES[:5]])
def test_user_error_carries_structured_position(name, line, column):
    with pytest.raises(UserError) as info:
        load_program(BAD / name)
    err = info.value
    assert (err.file, err.line, err.column) == (str(BAD / name), line, column)
    assert err.hint


def test_unknown_override_lists_parameters(capsys):
    code = main(["show", "programs/noisy_max.dip", "--set", "mm=4"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no parameter 'mm'" in err and "did you mean 'm'?" in err and "its parameters are: m" in err


def test_non_integer_size_from_override(capsys):
    code = main(["show", "programs/noisy_max.dip", "--set", "m=5/2"])
    err = capsys.readouterr().err
    assert code == 2 and "must be an integer, but it is 5/2" in err


def test_missing_file_is_a_user_error(capsys, tmp_path):
    code = main(["show", str(tmp_path / "absent.dip")])
    err = capsys.readouterr().err
    assert code == 2 and "no such file" in err and "hint:" in err
    code = main(["show", str(tmp_path)])
    assert code == 2 and "directory" in capsys.readouterr().err


def test_non_utf8_file_is_a_user_error(capsys, tmp_path):
    path = tmp_path / "latin1.dip"
    path.write_bytes("# caf\xe9\n".encode("latin-1"))
    assert main(["show", str(path)]) == 2
    assert "UTF-8" in capsys.readouterr().err


def write(tmp_path, text, name="p.dip"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text,words", [
    # parameter used before its declaration
    ("param k = 2*m\nparam m = 3\ninput q: real\noutput o: real\no <- q\n", "used before its declaration"),
    # duplicate declaration
    ("input q: real\noutput q: real\nq <- 1\n", "declared twice"),
    # recursion is impossible: a function may only call functions above it
    ("function f(x: 0..1) -> 0..1 = g(x)\nfunction g(x: 0..1) -> 0..1 = x\ninput a: 0..1\noutput o: 0..1\n"
     "o <- f(a)\n", "declared after"),
    # function bodies see only their parameters
    ("input a: 0..1\nfunction f(x: 0..1) -> 0..1 = a\noutput o: 0..1\no <- f(a)\n", "only sees its own parameters"),
    # Exp needs a score function whose last parameter covers the candidates
    ("function s(x: 0..1, v: 0..1) -> rational = x\ninput a: 0..1\noutput o: 0..2\no <- Exp(eps, s(a))\n",
     "candidate 2"),
    # choose must fit the target
    ("distribution d(x: 0..1) over 0..3 { x: 1; 3: 1 }\ninput a: 0..1\noutput o: 0..1\no <- choose(d(a))\n",
     "outside the domain"),
    # argmax of samples needs a DOM target large enough
    ("input q: real[3]\noutput o: 1..2\nr1 <- Lap(eps, q[1])\nr2 <- Lap(eps, q[2])\nr3 <- Lap(eps, q[3])\n"
     "o <- argmax(r1, r2, r3)\n", "3 is outside the domain"),
    # a random value as an if-expression branch
    ("input q: real\ninput a: bool\noutput o: real\no <- if a then q else 0\n", "cannot choose between random"),
    # assigning a Boolean to a DOM output
    ("input a: bool\noutput o: 0..1\no <- a\n", "is a Boolean"),
    # a loop index that clashes with a variable
    ("input q: real[2]\noutput o: real\no <- 0\nfor o = 1 to 2 do\nend\n", "loop index 'o' is already a variable"),
    # eps outside a rate
    ("input q: real\noutput o: real\no <- q + eps\n", "'eps' can only be used in a rate"),
    # an empty range
    ("param m = 0\ninput q: real\noutput o: 1..m\no <- 1\n", "is empty"),
    # a distribution weight that is negative
    ("distribution d(x: bool) over bool { x: 1; not x: -1 }\ninput a: bool\noutput o: bool\no <- choose(d(a))\n",
     "must not be negative"),
    # exp of something that is not linear in rate
    ("distribution d(x: bool) over bool { x: exp(rate*rate); not x: 1 }\ninput a: bool\noutput o: bool\n"
     "o <- choose(eps, d(a))\n", "linear in rate and eps"),
    # a variable that is sometimes real, sometimes Boolean
    ("input q: real\noutput o: real\nx <- Lap(eps, q)\nx <- q > 0\no <- x\n", "here it gets a bool"),
    # dividing an integer expression
    ("input a: 0..3\noutput o: int\nz <- DLap(eps, a)\no <- z / 2\n", "cannot be divided"),
    # a symbol in a comparison of samples
    ("type A = {p, r}\ninput q: real\noutput o: bool\nx <- Lap(eps, q)\no <- x > p\n", "symbol"),
])
def test_more_static_errors(tmp_path, capsys, text, words):
    path = write(tmp_path, text)
    code = main(["show", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert err.startswith(f"{path}:"), err
    assert words in err, err
    assert "hint:" in err or "error:" in err
