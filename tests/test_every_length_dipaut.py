"""The CCS 2023 tool's own m-Range and k-Min-Max automata (github.com/bhusalb/DiPAut,
m_range_examples/ and k_min_max_examples/; issue 41), written as programs/m_range.dip and
programs/k_min_max_watch.dip.  The tool reports both private with weight d = 1.  Pinned here:
each is eps-DP at m = 3 on {0, 1}^3 (the exact check, with the tight loss strictly below 1 so a
smaller budget is refuted), and for every m our coupling game gives the tool's d = 1 too: the
bounds' shifts are chosen at their first use and paths the order of the bounds rules out are
dropped (docs/design/every_length.md, section 2); the verdict is printed only after the exact
losses at m = 1, 2, 3 are shown to be at most d."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, run_main
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.loss.tight import privacy_loss

# (program, its k, the exact tight sup L/eps at m = 3 on {0, 1}^3: experiments/every_length_table.md)
CASES = [("m_range", 1, F(25, 64)), ("m_range", 2, F(35, 108)), ("k_min_max_watch", 2, F(2, 7))]
TOOL_D = 1   # the weight both DiPAut reports give, for every k


def _claim(tmp_path, name: str, k: int, budget: str = "eps") -> str:
    path = tmp_path / f"{name}_{k}.toml"
    path.write_text(f'[program]\npath = "{(PROGRAMS / (name + ".dip")).as_posix()}"\n'
                    f'params = {{ m = 3, k = {k} }}\n[privacy]\nadjacency = "linf"\nbudget = "{budget}"\n'
                    '[privacy.inputs]\ngrid = { q = [0, 1] }\n')
    return str(path)


@pytest.mark.parametrize("name,k,loss", CASES)
def test_the_tools_verdict_holds_at_m_3_and_the_exact_loss_is_below_its_d(tmp_path, name, k, loss):
    path = _claim(tmp_path, name, k)
    code, out, err = run_main(["privacy", path])
    assert code == 0 and "VERIFIED" in out, out + err
    sup = privacy_loss(load_privacy_claim(path)).sup
    assert sup.value == loss and loss <= TOOL_D


@pytest.mark.parametrize("name,k,loss", CASES)
def test_a_budget_below_the_exact_loss_is_refuted(tmp_path, name, k, loss):
    code, out, err = run_main(["privacy", _claim(tmp_path, name, k, budget=f"{loss * F(9, 10)}*eps")])
    assert code == 1 and "REFUTED" in out, out + err


@pytest.mark.parametrize("name,k,loss", CASES)
def test_for_every_m_our_game_gives_the_tools_d(tmp_path, name, k, loss):
    code, out, err = run_main(["privacy", _claim(tmp_path, name, k), "--every-length"])
    assert code == 0 and "coupling bound: d = 1 " in out and "Traceback" not in err, out + err
    assert "m = 3: exact tight sup L(eps)/eps" in out   # the cross-check ran before the verdict


def test_m_range_refuses_a_third_range_at_its_line():
    with pytest.raises(UserError) as err:
        load_program(str(PROGRAMS / "m_range.dip"), {"k": F(3)})
    assert "outside the domain 1..2" in err.value.message and err.value.line == 28
