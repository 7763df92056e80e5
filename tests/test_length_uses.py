"""The front end's facts about a program's length parameter (frontend.length_uses): which
parameter sizes the single real-array input, and where it, parameters computed from it and
loop indices are used as values.  The every-length check (privacy/online/shape.py) refuses
on these facts; tests/test_every_length.py checks its messages."""
from __future__ import annotations

from conftest import PROGRAMS

from dipc_plus.frontend.length_uses import length_uses
from dipc_plus.frontend.syntax import parse_module

FOREVER = (PROGRAMS / "above_threshold_forever.dip").read_text()


def _uses(text, explicit=()):
    return length_uses(parse_module(text, "p.dip"), explicit)


def test_the_length_of_the_input_and_no_other_use():
    facts = _uses(FOREVER)
    assert (facts.size, facts.input, facts.uses) == ("m", "q", ())
    assert facts.where.line == FOREVER.splitlines().index("input  q: real[m]") + 1


def test_m_as_a_value_a_computed_parameter_and_an_index_are_reported_in_source_order():
    text = FOREVER.replace("param T = 0", "param T = 0\nparam k = m + 1").replace(
        "rT <- Lap(eps/2, T)", "rT <- Lap(eps/2, T + k)\nx <- m").replace("out[i] <- bot", "out[i] <- bot\n        y <- i")
    facts = _uses(text)
    lines = text.splitlines()
    got = [(u.name, u.kind, u.pos.line, u.declared_line) for u in facts.uses]
    assert got == [("k", "computed", lines.index("rT <- Lap(eps/2, T + k)") + 1, lines.index("param k = m + 1") + 1),
                   ("m", "length", lines.index("x <- m") + 1, None),
                   ("i", "index", lines.index("        y <- i") + 1, None)]
    # a computed parameter the claim gives a number is no longer computed from m
    assert [u.name for u in _uses(text, {"k"}).uses] == ["m", "i"]


def test_no_single_real_array_input_is_a_fact_not_a_guess():
    text = FOREVER.replace("input  q: real[m]", "input  q: real[m]\ninput  p: real[m]")
    facts = _uses(text)
    assert facts.size is None and facts.where.line == text.splitlines().index("input  p: real[m]") + 1
    assert _uses(FOREVER.replace("real[m]", "real[3]")).size is None
