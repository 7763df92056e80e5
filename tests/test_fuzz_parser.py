"""Fuzzing the front end: whatever the text, the only possible failure is a UserError.

Two sources of inputs: random text over the language's characters and
keywords, and valid example programs mutated (lines deleted, duplicated or
swapped, tokens replaced, characters inserted).  A few hundred examples keep
this fast.
"""

from hypothesis import HealthCheck, given, settings, strategies as st

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from conftest import PROGRAMS as PROGRAM_DIR

PROGRAMS = [p.read_text(encoding="utf-8") for p in sorted(PROGRAM_DIR.glob("*.dip"))]
PROGRAMS += [  # small programs exercising every construct, in case programs/ is small
    "param m = 2\ntype Ans = {bot, top}\ninput q: real[m], a: Ans\noutput o: 1..m, p: Ans\n"
    "function f(x: Ans) -> bool = x == top\ndistribution d(x: bool) over bool { x: exp(rate); not x: 1 }\n"
    "noisy: real[m]\nfor i = 1 to m do\n noisy[i] <- Lap(eps/2, q[i])\nend\no <- argmax(noisy)\n"
    "p <- bot\nb <- choose(eps, d(f(a)))\nwhile b do\n b <- choose(eps, d(false))\nend\n"
    "if noisy[1] > 0 and b then p <- top elif a == bot then exit end\n",
    "input x: 0..3\noutput y: 0..3\nz <- DLap(eps, x)\ny <- 3\nfor j = 1 to 3 do\n le <- z <= 3 - j\n"
    " if le then\n  y <- 3 - j\n end\nend\n",
]

TOKENS = ["param", "type", "input", "output", "var", "function", "distribution", "over", "if", "then", "elif",
          "else", "end", "while", "do", "for", "to", "exit", "true", "false", "not", "and", "or", "eps", "rate",
          "exp", "Lap", "DLap", "Exp", "choose", "<-", "←", "ε", "=", "==", "<", "<=", ">=", "!=", "+", "-", "*",
          "/", "(", ")", "[", "]", "{", "}", ",", ":", ";", "..", "->", "\n", " ", "#", "x", "q", "m", "1", "0",
          "2/3", "0.5", "real", "bool", "int", "argmax", "max", "count", "\\\n", "\t", "é", "'", "@"]


def must_not_crash(text: str) -> None:
    try:
        parse_program(text, "fuzz.dip")
    except UserError as err:
        assert err.message
        assert str(err)  # formatting never fails


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join))
def test_random_token_soup(text):
    must_not_crash(text)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120))
def test_random_characters(text):
    must_not_crash(text)


@st.composite
def mutated_program(draw):
    lines = draw(st.sampled_from(PROGRAMS)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "token", "char", "truncate"]))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "token":
            words = lines[i].split(" ")
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.sampled_from(TOKENS))
            lines[i] = " ".join(words)
        elif kind == "char":
            k = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:k] + draw(st.sampled_from(TOKENS)) + lines[i][k:]
        else:
            k = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:k]
    return "\n".join(lines) + "\n"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_program())
def test_mutated_programs(text):
    must_not_crash(text)


def test_unmutated_programs_are_valid():
    for text in PROGRAMS:
        parse_program(text, "ok.dip")
