"""The recogniser's refusals said once per situation (issue 37): a threshold drawn into an output
(before the loop or in it), a comparison's result reaching an output (stored there by the
comparison, or written from its Boolean), a stored variable given a second value in one iteration
(drawn after the store, or stored after a draw) and a real variable given a computed value (a
stored variable or another real local).  Each pair of sites gives the one message, at its own
line and column."""
from __future__ import annotations

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import shape_at_length

HEAD = """param m = 3
type Ans = {bot, top}
input  q: real[m]
output out: Ans[m]
"""
LOOP = "for i = 1 to m do\n    r <- Lap(eps/2, q[i])\n"
TEST = "    if r >= x then\n        out[i] <- top\n    else\n        out[i] <- bot\n    end\n"

# case -> (the program after HEAD, the refused line, its column, the words of the one message)
CASES = {
    "threshold output before the loop": (
        "output t: real\nt <- Lap(eps/2, 0)\nx <- Lap(eps/2, 0)\n" + LOOP + TEST + "end\n", 6, 1,
        "a noisy value is drawn into the output 't'; the threshold may not be an output"),
    "threshold output in the loop": (
        "output t: real[m]\nx <- Lap(eps/2, 0)\n" + LOOP + "    t[i] <- Lap(eps/2, 0)\n" + TEST + "end\n", 9, 5,
        "a noisy value is drawn into the output 't[1]'; the threshold may not be an output"),
    "comparison stored in an output": (
        "output g: bool[m]\nx <- Lap(eps/2, 0)\n" + LOOP + "    g[i] <- r >= x\n" + TEST + "end\n", 9, 5,
        "a comparison's result is written to the output 'g[1]'; a comparison may reach the outputs only"),
    "comparison written to an output": (
        "output g: bool[m]\nx <- Lap(eps/2, 0)\n" + LOOP + "    b <- r >= x\n    g[i] <- b\n" + TEST + "end\n",
        10, 5, "a comparison's result is written to the output 'g'; a comparison may reach the outputs only"),
    "drawn after the store": (
        "x <- Lap(eps/2, 0)\n" + LOOP + TEST + "    x <- r\n    x <- Lap(eps, 0)\nend\n", 14, 5,
        "the stored variable 'x' is given a value twice in one iteration"),
    "stored after a draw": (
        "x <- Lap(eps/2, 0)\n" + LOOP + TEST + "    x <- Lap(eps, 0)\n    x <- r\nend\n", 14, 5,
        "the stored variable 'x' is given a value twice in one iteration"),
    "stored variable given a computed value": (
        "x <- Lap(eps/2, 0)\n" + LOOP + TEST + "    x <- r + 1\nend\n", 13, 5,
        "'x' is a real variable given a computed value; in the class a real variable is only drawn "
        "(a threshold, a read of q[i])"),
    "real local given a computed value": (
        "x <- Lap(eps/2, 0)\n" + LOOP + "    s <- r + 1\n" + TEST + "end\n", 8, 5,
        "'s' is a real variable given a computed value; in the class a real variable is only drawn "
        "(a threshold, a read of q[i])"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_one_message_per_situation_at_its_own_place(case):
    body, line, column, words = CASES[case]
    program = parse_program(HEAD + body, "p.dip")
    with pytest.raises(UserError) as err:
        recognise(shape_at_length(program))
    assert words in err.value.message
    assert (err.value.file, err.value.line, err.value.column) == ("p.dip", line, column)
    assert err.value.message.startswith("cannot decide privacy for every m: ")
