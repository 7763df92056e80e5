"""The one walk (semantics/walk.py) running both branches of an `if` its domain cannot decide, and
the density-ratio whitelist as a domain of that walk (no walker of its own)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.dp import density_ratio
from dipc_plus.privacy.dp.density_ratio import Refused, loss_bound, path_draws
from dipc_plus.semantics.walk import Domain, PathState, Walk

BRANCH = """input  q: real
output out: real
r: real
b: bool
r <- Lap(eps, 0)
b <- r > 0
if b then
  out <- Lap(eps, q)
else
  out <- Lap(eps, 2*q)
end
"""


def many_branches(k: int) -> str:
    lines = ["input  q: real", "output out: real", "r: real", "b: bool", "c: bool",
             "r <- Lap(eps, 0)", "b <- r > 0", "c <- false"]
    for _ in range(k):
        lines += ["if b then", "  c <- true", "else", "  c <- false", "end"]
    return "\n".join(lines + ["out <- Lap(eps, q)", ""])


class Undecided(Domain):
    """Every condition and comparison unknown, a sample its mean: only the walk's forks are seen."""

    def sample(self, walk, s, st):
        st.reals[s.target] = walk.lin(s.dist.mean, st, s.pos)

    def condition(self, walk, s, st):
        return None

    def compare(self, walk, s, st):
        st.env[s.target] = None
        return [st]


def test_walk_runs_both_branches_then_first_when_the_domain_does_not_know():
    program = parse_program(BRANCH, "branch.dip")
    start = PathState({}, {"q": LinForm.symbol("q")}, ())
    ends = Walk(program, Undecided(), 10).run(start)
    means = [str(st.reals["out"]) for st in ends]
    assert means == ["q", "2*q"]


def test_walk_counts_undecided_forks_against_its_path_limit():
    program = parse_program(many_branches(3), "many.dip")
    with pytest.raises(UserError, match="more than 7 paths"):
        Walk(program, Undecided(), 7).run(PathState({}, {"q": LinForm.symbol("q")}, ()))
    assert len(Walk(program, Undecided(), 8).run(PathState({}, {"q": LinForm.symbol("q")}, ()))) == 8


def test_density_ratio_is_a_domain_of_the_one_walk():
    classes = [v for v in vars(density_ratio).values() if isinstance(v, type) and v.__module__ == density_ratio.__name__]
    assert [c.__name__ for c in classes if issubclass(c, Domain)] == ["_Whitelist"]
    assert not any(hasattr(c, "block") or hasattr(c, "stmt") for c in classes)    # no walker of its own


def test_density_ratio_walks_both_branches_of_a_condition_on_draws():
    program = parse_program(BRANCH, "branch.dip")
    paths, cells = path_draws(program, {"q": (F(0), F(1))})
    assert paths == [[(F(1), {"q": F(1)})], [(F(1), {"q": F(2)})]] and cells == []
    assert loss_bound(paths, ["q"], "one-position", F(1))[0] == 2


def test_density_ratio_refuses_past_its_path_limit_naming_the_branch():
    assert density_ratio.MAX_PATHS == 4096
    program = parse_program(many_branches(12), "many.dip")
    paths, _ = path_draws(program, {"q": (F(0), F(1))})
    assert len(paths) == 4096
    program = parse_program(many_branches(13), "many.dip")
    with pytest.raises(Refused) as info:
        path_draws(program, {"q": (F(0), F(1))})
    assert "more than 4096 paths" in info.value.message and info.value.pos.line == 9 + 5 * 12
