"""The certified decision has a step budget (issue 15: no unbounded search near a tangency).

Every refinement loop of `decision.roots` finishes in theory, but a bound that nearly
touches P[error] can make "finishes" mean minutes; past `--limit decide_steps` the
decision stops with a located exit-2 message - never a verdict."""
import subprocess
import sys
from fractions import Fraction

import pytest

from dipc_plus.decision.decide import decide
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpPoly as E
from dipc_plus.execution import limits

DELTA = Fraction(1, 10**6)
# e^eps - 1 - (1 + delta) eps: 0 at eps = 0 and again near 2 delta, negative between
NEAR_ZERO = E.exp(1) - 1 - E.eps(1) * (1 + DELTA)
# e^eps - 1 - eps - (1/2 - delta) eps^2 > 0 on (0, inf): touches the eps axis at 0 only
TANGENT = E.exp(1) - 1 - E.eps(1) - E.eps(2) * (Fraction(1, 2) - DELTA)


@pytest.fixture(autouse=True)
def _default_limits():
    limits.reset()
    yield
    limits.reset()


def test_default_budget_decides_both():
    assert decide(NEAR_ZERO, ">=").holds is False
    assert decide(TANGENT, ">=").holds is True


@pytest.mark.parametrize("f", [NEAR_ZERO, TANGENT])
def test_a_small_budget_stops_with_a_message_not_a_verdict(f):
    limits.set_limit("decide_steps", 3)
    with pytest.raises(UserError) as exc:
        decide(f, ">=")
    assert "more than 3 refinement steps" in exc.value.message
    assert "--limit decide_steps=" in exc.value.hint


def test_budget_is_per_decision():
    limits.set_limit("decide_steps", 200)
    for _ in range(50):   # many small decisions in a row never add up to the budget
        assert decide(TANGENT, ">=").holds is True


def test_cli_exit_2_and_clean_message():
    proc = subprocess.run([sys.executable, "-m", "dipc_plus", "privacy-loss", "theories/svt_lyu_alg1_privacy.toml",
                           "--limit", "decide_steps=5", "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "refinement steps" in proc.stdout and "Traceback" not in proc.stderr
