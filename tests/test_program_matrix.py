"""Cross-check matrix: every program in programs/ at three inputs, three independent ways.

For each row of `ROWS` (a program, its parameters, an input):

1. **Sum to one.**  The exact output probabilities add up to 1 as an identity in
   eps (`Distribution.sums_to_one`, an exact check, no evaluation).
2. **Monte Carlo.**  10^6 seeded runs of the sampler at one rational eps (1/2, 1
   or 27/82, in turn).  Every finite outcome's certified probability (an arb
   ball at that eps) must lie inside the Wilson interval of its frequency, and
   every outcome the sampler saw must be one the exact distribution lists (a
   frequency whose interval misses 0 is an error for an outcome of probability
   0).  Programs with real outputs also check, for each finite outcome v and
   each gamma of the row, P[finite outputs = v and every real output within
   gamma of the row's target] (the sampler's `within` against the exact
   `within`).  Confidence: Bonferroni over the whole file.  The family-wise
   error FAMILY_ALPHA = 1e-3 is split equally between the rows and, within a
   row, between its comparisons, so every single interval has confidence
   1 - FAMILY_ALPHA / (len(ROWS) * comparisons in its row).  The runs are
   seeded, so the verdict is deterministic.
3. **Numerical integration.**  tests/numeric_witness.py executes the IR with
   the noises as unknowns and integrates them (Gauss-Legendre between the exact
   breakpoints for Laplace noises, truncated sums for discrete Laplace, mpmath
   weights for the exponential mechanism and `choose`), without the DTMC,
   engines or expoly.  At each of QUAD_EPS (three values) every finite
   outcome's probability, and for real outputs every within-gamma event of the
   row, must agree with the exact closed form to 1e-9 (absolute), and to
   1e-8 relative where the exact value is at least 1e-3.

Sizes ("noises" = Laplace samples on the longest path that constraints or
events involve; the witness integrates each group of noises tied together by
constraints separately, and "dim" is the largest such group, i.e. the
dimension of the largest integral):

* above_threshold m=3 (4 noises, dim 4), also at T=1.
* sparse, sparse_variant, svt_lyu_alg1..4: m=3, c=1 (dim 4); one row each at
  c=2 (dim 4 on the path bot, bot, top; after a top, sparse and alg2 re-sample
  the threshold, which starts a new, independent group).
* svt_lyu_alg5 m=3 (1 noise, dim 1), svt_lyu_alg6 m=3 (dim 4).
* noisy_max m=3 (dim 3) and m=4 (dim 4, where a 2-dimensional group remains
  after the pivot and is integrated node by node).
* numeric_sparse m=3 at c=1 and c=2 (dim 4; the noise of each released value
  joins only its within-gamma event); numeric_sparse_fig4a (dim 3).
* real outputs only: laplace k=2 (dim 1), binary_mechanism (4 noises, dim 2),
  smart_sum m=4 at b=2 and b=4 (4 noises, dim 3); laplace_histogram and partial_sums (dim 1
  each), jump_mean (dim 1), noisy_max_value m=3 and m=4 (dim 3 and 4).
* discrete Laplace (exact sums truncated at tail mass 1e-13): the m=3, k=2
  defaults of discrete_above_threshold, discrete_noisy_max_*,
  truncated_geometric_above_threshold (3-4 DLap noises), truncated_geometric k=2.
* finite weights: exponential n=2, small_db, truncated_geometric_choose, the
  randomized-response family (randomized_response_retry's while loop is
  followed until less than 1e-16 of weight is left in it).
* randomized_response has a single bool input, so only two distinct inputs
  exist: its third row repeats x=true at another simulation eps.  The other
  programs with a bool input (randomized_response_coin, _retry) take their
  third row at another value of their parameter.

No program needed to be left out or shrunk below its default size.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction as F
from functools import lru_cache

import pytest

import dipc_plus
from dipc_plus.semantics import ir
from dipc_plus.semantics.inputs import bind_inputs
from dipc_plus.semantics.distribution import Exact
from dipc_plus.semantics.inputs import python_value
from dipc_plus.semantics.stats import wilson
from numeric_witness import Witness
from conftest import PROGRAMS
from wilson_inside import in_interval


RUNS = 10**6
SIM_EPS = (F(1, 2), F(1), F(27, 82))        # row i is simulated at SIM_EPS[i % 3]
QUAD_EPS = (F(1, 3), F(1), F(5, 2))
FAMILY_ALPHA = 1e-3
ABS_TOL = 1e-9
REL_TOL = 1e-8                               # where the exact value is >= REL_FLOOR
REL_FLOOR = 1e-3


@dataclass(frozen=True)
class Row:
    program: str
    inputs: dict
    params: dict = field(default_factory=dict)
    targets: dict = field(default_factory=dict)   # real outputs (flat names) -> centre of a within event
    gammas: tuple = ()                            # radii of the within events

    def __str__(self) -> str:
        ps = ",".join(f"{k}={v}" for k, v in self.params.items())
        ins = ",".join(f"{k}={_show(v)}" for k, v in self.inputs.items())
        return f"{self.program}[{ps}]({ins})" if ps else f"{self.program}({ins})"


def _show(v) -> str:
    if isinstance(v, list):
        return "[" + ",".join(map(_show, v)) + "]"
    return str(v).lower() if isinstance(v, bool) else str(v)


def _centres(name: str, values) -> dict:
    return {f"{name}[{i}]": F(v) for i, v in enumerate(values, 1)}


def _prefix(xs) -> list:
    out, s = [], F(0)
    for x in xs:
        s += F(x)
        out.append(s)
    return out


H = F(1, 2)
ROWS = [
    # AboveThreshold: a top at the first, a middle or no query
    Row("above_threshold", {"q": [0, 0, 0]}),
    Row("above_threshold", {"q": [-1, 2, 0]}),
    Row("above_threshold", {"q": [3, -2, 1]}, {"T": 1}),
    # real outputs only: binary mechanism, Laplace, smart sum
    Row("binary_mechanism", {"x": [0, 0, 0, 0]}, {}, _centres("out", [0, 0, 0, 0]), (F(2), F(6))),
    Row("binary_mechanism", {"x": [1, -1, 2, 0]}, {}, _centres("out", [1, 0, 2, 2]), (F(3),)),
    Row("binary_mechanism", {"x": [3, 1, 0, -2]}, {}, _centres("out", [3, 5, 4, 1]), (F(4),)),
    Row("laplace", {"q": [0, 0]}, {}, _centres("out", [0, 0]), (H, F(3))),
    Row("laplace", {"q": [1, -1]}, {}, _centres("out", [1, 0]), (F(1),)),
    Row("laplace", {"q": [H, 3]}, {"sens": 2}, _centres("out", [0, 3]), (F(2),)),
    Row("smart_sum", {"x": [0, 0, 0, 0]}, {}, _centres("out", [0, 0, 0, 0]), (F(3), F(6))),
    Row("smart_sum", {"x": [1, 2, 0, 1]}, {}, _centres("out", _prefix([1, 2, 0, 1])), (F(4),)),
    Row("smart_sum", {"x": [1, -1, H, 3]}, {"b": 4}, _centres("out", [1, 1, 1, 3]), (F(4),)),
    # real outputs only, written for the density-ratio bound (issue 38): histogram, partial sums
    Row("laplace_histogram", {"q": [0, 0, 0, 0]}, {}, _centres("out", [0, 0, 0, 0]), (F(2),)),
    Row("laplace_histogram", {"q": [1, -1, 2, 0]}, {}, _centres("out", [1, 0, 2, 0]), (F(3),)),
    Row("laplace_histogram", {"q": [H, 3]}, {"m": 2, "r": 2}, _centres("out", [0, 3]), (F(1),)),
    Row("partial_sums", {"q": [0, 0, 0, 0]}, {}, _centres("out", [0, 0, 0, 0]), (F(4),)),
    Row("partial_sums", {"q": [1, 2, 0, 1]}, {}, _centres("out", _prefix([1, 2, 0, 1])), (F(6),)),
    Row("partial_sums", {"q": [1, -1]}, {"m": 2}, _centres("out", [1, 0]), (F(2),)),
    # a mean that jumps inside (1/4, 3/4), and the released noisy max value (box privacy, issue 38)
    Row("jump_mean", {"x": 0}, {}, {"out": F(0)}, (F(1),)),
    Row("jump_mean", {"x": H}, {}, {"out": F(11, 2)}, (F(2),)),
    Row("jump_mean", {"x": F(3, 4)}, {}, {"out": F(1)}, (F(1),)),
    Row("noisy_max_value", {"q": [0, 0, 0]}, {}, {"top": F(1)}, (F(2),)),
    Row("noisy_max_value", {"q": [2, -1, H]}, {}, {"top": F(2)}, (F(3),)),
    Row("noisy_max_value", {"q": [1, 0, 0, 3]}, {"m": 4}, {"top": F(3)}, (F(2),)),
    # discrete Laplace programs
    Row("discrete_above_threshold", {"r": [0, 0, 0]}),
    Row("discrete_above_threshold", {"r": [2, 1, 0]}),
    Row("discrete_above_threshold", {"r": [0, 2, 1]}, {"T": 1}),
    Row("discrete_noisy_max_improved", {"v": [0, 0, 0]}),
    Row("discrete_noisy_max_improved", {"v": [2, 1, 0]}),
    Row("discrete_noisy_max_improved", {"v": [0, 2, 2]}),
    Row("discrete_noisy_max_naive", {"v": [0, 0, 0]}),
    Row("discrete_noisy_max_naive", {"v": [2, 1, 0]}),
    Row("discrete_noisy_max_naive", {"v": [0, 2, 2]}),
    Row("truncated_geometric", {"x": 0}),
    Row("truncated_geometric", {"x": 1}),
    Row("truncated_geometric", {"x": 2}),
    Row("truncated_geometric_above_threshold", {"x": [0, 0, 0]}),
    Row("truncated_geometric_above_threshold", {"x": [2, 1, 0]}),
    Row("truncated_geometric_above_threshold", {"x": [0, 1, 2]}),
    Row("truncated_geometric_choose", {"x": 0}),
    Row("truncated_geometric_choose", {"x": 1}),
    Row("truncated_geometric_choose", {"x": 2}),
    Row("truncated_geometric_count", {"x": [0, 0]}),
    Row("truncated_geometric_count", {"x": [1, 0]}),
    Row("truncated_geometric_count", {"x": [1, 1]}),
    # exponential mechanism
    Row("exponential", {"h1": 0, "h2": 0, "h3": 0}),
    Row("exponential", {"h1": 2, "h2": 1, "h3": 0}),
    Row("exponential", {"h1": 0, "h2": 2, "h3": 2}),
    Row("small_db", {"row1": 1, "row2": 1, "row3": 1}),
    Row("small_db", {"row1": 1, "row2": 2, "row3": 3}),
    Row("small_db", {"row1": 3, "row2": 3, "row3": 2}),
    # noisy max
    Row("noisy_max", {"q": [-1, 0, 0]}),
    Row("noisy_max", {"q": [0, 0, 0]}),
    Row("noisy_max", {"q": [2, -1, H, 0]}, {"m": 4}),
    Row("noisy_max_exp", {"q": [-1, 0, 0]}),    # one-sided exponential noise (ExpNoise)
    Row("noisy_max_exp", {"q": [0, 0, 0]}),
    Row("noisy_max_exp", {"q": [2, -1, H, 0]}, {"m": 4}),
    Row("noisy_min", {"q": [-1, 0, 0]}),        # the tutorial's mechanism (docs/tutorial.md)
    Row("noisy_min", {"q": [1, 1, 1]}),
    Row("noisy_min", {"q": [0, 2, -1, H]}, {"m": 4}),
    # NumericSparse: finite flags, and the released values near a target
    Row("numeric_sparse", {"q": [0, 0, 0]}, {}, _centres("val", [0, 0, 0]), (F(3),)),
    Row("numeric_sparse", {"q": [-1, 0, 2]}, {}, _centres("val", [-1, 0, 2]), (F(4),)),
    Row("numeric_sparse", {"q": [2, 1, -3]}, {"c": 2}, _centres("val", [2, 1, -3]), (F(8),)),
    Row("numeric_sparse_fig4a", {"q1": 0, "q2": 0}, {}, {"o1_2": F(0), "o2_2": F(0)}, (F(3),)),
    Row("numeric_sparse_fig4a", {"q1": -1, "q2": 1}, {}, {"o1_2": F(-1), "o2_2": F(1)}, (F(5),)),
    Row("numeric_sparse_fig4a", {"q1": 2, "q2": -1}, {}, {"o1_2": F(2), "o2_2": F(0)}, (F(4),)),
    # randomized response
    Row("randomized_response", {"x": True}),
    Row("randomized_response", {"x": False}),
    Row("randomized_response", {"x": True}),        # only two inputs exist: again, at another eps
    Row("randomized_response_coin", {"x": True}),
    Row("randomized_response_coin", {"x": False}),
    Row("randomized_response_coin", {"x": True}, {"p": F(1, 5)}),
    Row("randomized_response_retry", {"x": True}),
    Row("randomized_response_retry", {"x": False}),
    Row("randomized_response_retry", {"x": True}, {"retry": F(9, 10)}),
    Row("rr_clients", {"x": [0, 0, 0]}),
    Row("rr_clients", {"x": [1, 0, 1]}),
    Row("rr_clients", {"x": [1, 1, 1]}, {"lam": F(1, 3)}),
    Row("rr_counting", {"x": [0, 0, 0]}),
    Row("rr_counting", {"x": [1, 0, 1]}),
    Row("rr_counting", {"x": [1, 1, 1]}, {"lam": F(1, 3)}),
    # the sparse vector family
    Row("sparse", {"q": [0, 0, 0]}),
    Row("sparse", {"q": [-1, 0, 2]}, {"c": 2}),
    Row("sparse", {"q": [2, 1, -3]}),
    Row("sparse_variant", {"q": [0, 0, 0]}),
    Row("sparse_variant", {"q": [-1, 0, 2]}, {"c": 2}),
    Row("sparse_variant", {"q": [2, 1, -3]}),
    Row("svt_lyu_alg1", {"q": [0, 0, 0]}),
    Row("svt_lyu_alg1", {"q": [-1, 0, 2]}, {"c": 2}),
    Row("svt_lyu_alg1", {"q": [2, 1, -3]}),
    Row("svt_lyu_alg2", {"q": [0, 0, 0]}),
    Row("svt_lyu_alg2", {"q": [-1, 0, 2]}, {"c": 2}),
    Row("svt_lyu_alg2", {"q": [2, 1, -3]}),
    Row("svt_lyu_alg3", {"q": [0, 0, 0]}, {}, _centres("val", [0, 0, 0]), (F(2),)),
    Row("svt_lyu_alg3", {"q": [-1, 0, 2]}, {"c": 2}, _centres("val", [0, 1, 2]), (F(3),)),
    Row("svt_lyu_alg3", {"q": [2, 1, -3]}, {}, _centres("val", [2, 1, 0]), (F(2),)),
    # the every-length variants (issue 11, docs/design/every_length.md)
    Row("above_threshold_forever", {"q": [0, 0, 0]}),
    Row("above_threshold_forever", {"q": [-1, 2, 0]}),
    Row("above_threshold_forever", {"q": [3, -2, 1]}, {"T": 1}),
    Row("svt_resample_forever", {"q": [0, 0, 0]}),
    Row("svt_resample_forever", {"q": [-1, 2, 0]}),
    Row("svt_resample_forever", {"q": [3, -2, 1]}, {"T": 1}),
    Row("sparse_resample_once", {"q": [0, 0, 0]}),
    Row("sparse_resample_once", {"q": [2, 1, 0]}),
    Row("sparse_resample_once", {"q": [-1, 3, 1]}, {"T": 1}),
    Row("above_threshold_numeric", {"q": [0, 0, 0]}, {}, _centres("val", [0, 0, 0]), (F(2),)),
    Row("above_threshold_numeric", {"q": [-1, 0, 2]}, {}, _centres("val", [0, 1, 2]), (F(3),)),
    Row("above_threshold_numeric", {"q": [2, 1, -3]}, {}, _centres("val", [2, 1, 0]), (F(2),)),
    Row("bad_gap_sparse_vector", {"q": [0, 0, 0]}, {}, _centres("val", [0, 0, 0]), (F(2),)),
    Row("bad_gap_sparse_vector", {"q": [-1, 0, 2]}, {}, _centres("val", [0, 1, 2]), (F(3),)),
    Row("bad_gap_sparse_vector", {"q": [2, 1, -3]}, {"T": 1}, _centres("val", [2, 1, 0]), (F(2),)),
    Row("gap_above_threshold", {"q": [0, 0, 0]}, {}, _centres("val", [0, 0, 0]), (F(2),)),
    Row("gap_above_threshold", {"q": [-1, 0, 2]}, {}, _centres("val", [0, 1, 2]), (F(3),)),
    Row("gap_above_threshold", {"q": [2, 1, -3]}, {"T": 1}, _centres("val", [1, 1, 0]), (F(2),)),
    Row("threshold_half", {"q": 0}),
    Row("threshold_half", {"q": F(1, 2)}),          # on the threshold: a fair coin
    Row("threshold_half", {"q": F(5, 8)}),          # the box claim's counterexample
    Row("two_thresholds", {"q": -1}),
    Row("two_thresholds", {"q": F(1, 2)}),          # between the thresholds (level 1)
    Row("two_thresholds", {"q": 2}),                # inside the box claim's box [1, 3]
    Row("noisy_compare", {"q1": 0, "q2": 0}),       # on the diagonal: a fair coin
    Row("noisy_compare", {"q1": 1, "q2": -1}),
    Row("noisy_compare", {"q1": F(-1, 2), "q2": F(3, 4)}),
    Row("either_nonnegative", {"q1": 0, "q2": 0}),          # both reads on their threshold
    Row("either_nonnegative", {"q1": -1, "q2": F(1, 2)}),
    Row("either_nonnegative", {"q1": F(-1, 2), "q2": F(-3, 4)}),   # det = false
    Row("above_threshold_gap", {"q": [0, 0, 0]}, {}, _centres("val", [0, 0, 0]), (F(2),)),
    Row("above_threshold_gap", {"q": [-1, 0, 2]}, {}, _centres("val", [0, 1, 2]), (F(3),)),
    Row("above_threshold_gap", {"q": [2, 1, -3]}, {}, _centres("val", [2, 1, 0]), (F(2),)),
    # one stored variable assigned from reads, a shifted mean (every length, issue 40)
    Row("svt_shifted_mean", {"q": [0, 0, 0]}),
    Row("svt_shifted_mean", {"q": [-1, 2, 0]}),
    Row("svt_shifted_mean", {"q": [-3, -2, 1]}, {"T": 1}),
    Row("svt_assign", {"q": [0, 0, 0]}),
    Row("svt_assign", {"q": [1, -1, 2]}),
    Row("svt_assign", {"q": [2, 0, -1]}, {"c": 1}),
    Row("online_noisy_max", {"q": [0, 0, 0]}),
    Row("online_noisy_max", {"q": [1, -1, 2]}),
    Row("online_noisy_max", {"q": [3, 1, 2]}, {"T": 0}),
    Row("online_noisy_min", {"q": [0, 0, 0]}),
    Row("online_noisy_min", {"q": [1, -1, 2]}),
    Row("online_noisy_min", {"q": [-3, 1, -2]}, {"T": 0}),
    Row("online_sort", {"q": [0, 0, 0]}),
    Row("online_sort", {"q": [-1, 0, 2]}),
    Row("online_sort", {"q": [2, 1, -3]}, {"T": 1}),
    # discrete Laplace in the every-length class (issue 40, item 5)
    Row("discrete_svt", {"q": [0, 0, 0]}),
    Row("discrete_svt", {"q": [1, -1, 2]}),
    Row("discrete_svt", {"q": [2, 0, -1]}, {"T": 1}),
    Row("discrete_svt_forever", {"q": [0, 0, 0]}),
    Row("discrete_svt_forever", {"q": [1, -1, 2]}),
    Row("discrete_svt_forever", {"q": [-2, 1, 0]}, {"T": 1}),
    # StatDP's SVT releasing the number of bots (box privacy, issue 38)
    Row("svt_count", {"q": [0, 0, 0]}),
    Row("svt_count", {"q": [-1, -2, 1]}),
    Row("svt_count", {"q": [2, -3, -1]}, {"T": 1}),
    # StatDP's iSVT1-3 as written: the Hamming score of the answers (every length, issue 40)
    Row("isvt1", {"q": [0, 0, 0]}),
    Row("isvt1", {"q": [-1, 0, 2]}),
    Row("isvt1", {"q": [1, H, -H]}, {"T": 1}),
    Row("isvt2", {"q": [0, 0, 0]}),
    Row("isvt2", {"q": [-1, 0, 2]}),
    Row("isvt2", {"q": [1, H, -H]}, {"T": 1}),
    Row("isvt3", {"q": [0, 0, 0]}),
    Row("isvt3", {"q": [-1, 0, 2]}, {"N": 2}),
    Row("isvt3", {"q": [2, 1, -3]}),
    Row("isvt4", {"q": [0, 0, 0]}),
    Row("isvt4", {"q": [-1, 0, 2]}, {"N": 2}),
    Row("isvt4", {"q": [2, 1, -3]}),
    # its non-private twin without query noise (box privacy, issue 38)
    Row("svt_count_no_query_noise", {"q": [0, 0, 0]}),
    Row("svt_count_no_query_noise", {"q": [-1, 1, 0]}),
    Row("svt_count_no_query_noise", {"q": [2, -3, -1]}, {"T": 1}),
    # several stored variables (every length, issue 41), at m = 2 (5 noises at m = 3)
    Row("range", {"q": [0, 1]}, {"m": 2}),
    Row("range", {"q": [-1, 3]}, {"m": 2}),
    Row("range", {"q": [2, 1]}, {"m": 2, "U": 1}),
    Row("k_range", {"q": [0, 1]}, {"m": 2}),
    Row("k_range", {"q": [-1, 3]}, {"m": 2, "k": 1}),
    Row("k_range", {"q": [3, 1]}, {"m": 2}),
    Row("min_max", {"q": [0, 1]}, {"m": 2}),
    Row("min_max", {"q": [-1, 3]}, {"m": 2}),
    Row("min_max", {"q": [2, 1]}, {"m": 2, "U": 1}),
    Row("k_min_max", {"q": [0, 1]}, {"m": 2}),
    Row("k_min_max", {"q": [-1, 3]}, {"m": 2, "k": 2}),
    Row("k_min_max", {"q": [3, 0]}, {"m": 2}),
    # the CCS 2023 tool's own m-Range and k-Min-Max automata (issue 41), at m = 2
    Row("m_range", {"q": [0, 1]}, {"m": 2}),
    Row("m_range", {"q": [-1, 3]}, {"m": 2, "k": 1}),
    Row("m_range", {"q": [2, 1]}, {"m": 2, "U": 2}),
    Row("k_min_max_watch", {"q": [0, 1, 0]}, {"m": 3}),
    Row("k_min_max_watch", {"q": [-1, 3]}, {"m": 2, "k": 1}),
    Row("k_min_max_watch", {"q": [3, 0, 1]}, {"m": 3}),
    Row("noisy_max_loop", {"q": [0, 0, 0]}),
    Row("noisy_max_loop", {"q": [1, 0, -1]}),
    Row("noisy_max_loop", {"q": [-2, 3, 1]}),
    Row("svt_lyu_alg4", {"q": [0, 0, 0]}),
    Row("svt_lyu_alg4", {"q": [-1, 0, 2]}, {"c": 2}),
    Row("svt_lyu_alg4", {"q": [2, 1, -3]}),
    Row("svt_lyu_alg5", {"q": [0, 0, 0]}),
    Row("svt_lyu_alg5", {"q": [-1, 0, 2]}),
    Row("svt_lyu_alg5", {"q": [1, H, -H]}, {"T": 1}),
    Row("svt_lyu_alg6", {"q": [0, 0, 0]}),
    Row("svt_lyu_alg6", {"q": [-1, 0, 2]}),
    Row("svt_lyu_alg6", {"q": [1, H, -H]}, {"T": 1}),
]
IDS = [f"{i:02d}-{row}" for i, row in enumerate(ROWS)]


# --------------------------------------------------------------------------- shared work


@lru_cache(maxsize=None)
def _loaded(index: int):
    row = ROWS[index]
    return dipc_plus.load(PROGRAMS / f"{row.program}.dip", **row.params)


@lru_cache(maxsize=None)
def _exact(index: int):
    return _loaded(index).distribution(**ROWS[index].inputs)


def _flat_inputs(index: int) -> dict:
    program = _loaded(index).program
    return bind_inputs(program, {k: python_value(v) for k, v in ROWS[index].inputs.items()})


def _finite_names(program: ir.Program) -> list:
    return [n for n, t in program.outputs if isinstance(t, (ir.DomT, ir.BoolT))]


def _events(index: int) -> list:
    """[(label, finite values or None, gamma or None)]: the finite outcomes, then the within events."""
    d = _exact(index)
    keys = list(d.marginal())
    out = [(f"out={k}", k, None) for k in keys]
    for g in ROWS[index].gammas:
        out.extend((f"out={k} and reals within {g}", k, g) for k in keys)
    return out


def _exact_event(index: int, names: list, key, gamma) -> Exact:
    d = _exact(index)
    if gamma is None:
        return Exact(d.marginal()[key])
    return Exact(d.within({**dict(zip(names, key)), **ROWS[index].targets}, gamma))


# --------------------------------------------------------------------------- the table


def test_every_program_has_three_rows_and_real_outputs_have_events():
    files = {p.stem for p in PROGRAMS.glob("*.dip")}
    covered: dict = {}
    for row in ROWS:
        covered.setdefault(row.program, []).append(row)
    assert set(covered) == files
    for name, rows in covered.items():
        assert len(rows) >= 3, name
        distinct = {(tuple(sorted(r.params.items())), repr(r.inputs)) for r in rows}
        assert len(distinct) >= (2 if name == "randomized_response" else 3), name
    for i, row in enumerate(ROWS):
        program = _loaded(i).program
        reals = {n for n, t in program.outputs if isinstance(t, (ir.RealT, ir.IntT))}
        assert set(row.targets) == reals, (row, reals)
        assert bool(row.gammas) == bool(reals), row


# --------------------------------------------------------------------------- 1. identity


@pytest.mark.parametrize("index", range(len(ROWS)), ids=IDS)
def test_exact_probabilities_sum_to_one_identically(index):
    d = _exact(index)
    assert len(d) > 0
    assert d.sums_to_one(), f"{ROWS[index]}: total is {d.total()}"


# --------------------------------------------------------------------------- 2. Monte Carlo


def _tally(result, names: list):
    """(keys, run -> key index): the finite outputs of every run, from the sampler's raw code
    columns (one integer per run; `SampleResult.distribution` sorts rows, which is slow at 10^6)."""
    import numpy as np
    combined = np.zeros(result.n, dtype=np.int64)
    for name in names:
        codes = result.columns[name].astype(np.int64)
        assert (codes >= 0).all(), f"{name} unassigned in some run"
        combined = combined * len(result.domains[name]) + codes
    present, inverse = np.unique(combined, return_inverse=True)
    keys = []
    for k in present.tolist():
        values = []
        for name in reversed(names):
            size = len(result.domains[name])
            values.append(result.domains[name][k % size])
            k //= size
        keys.append(tuple(reversed(values)))
    return keys, inverse


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(ROWS)), ids=IDS)
def test_exact_probabilities_inside_wilson_intervals_of_a_million_runs(index):
    import numpy as np
    row = ROWS[index]
    eps = SIM_EPS[index % len(SIM_EPS)]
    loaded = _loaded(index)
    names = _finite_names(loaded.program)
    result = loaded.simulate(eps, RUNS, seed=1000 + index, **row.inputs)
    keys, inverse = _tally(result, names)
    counts = dict(zip(keys, np.bincount(inverse, minlength=len(keys)).tolist()))
    near = {}
    if row.gammas:
        columns = result.view()
        for g in row.gammas:   # the sampler's own within-gamma event on the real outputs
            inside = result.within(g, row.targets)(columns)
            near[g] = dict(zip(keys, np.bincount(inverse[inside], minlength=len(keys)).tolist()))
    events = _events(index)
    unseen = [k for k in counts if k not in _exact(index).marginal()]
    confidence = 1 - FAMILY_ALPHA / (len(ROWS) * (len(events) + len(unseen)))
    failures = []
    for key in unseen:  # probability 0 exactly: the interval of its frequency must reach 0
        if not in_interval(wilson(counts[key], result.n, confidence), 0):
            failures.append(f"out={key}: exact 0, seen {counts[key]} times")
    for label, key, gamma in events:
        ball = _exact_event(index, names, key, gamma).at(eps)
        hits = counts.get(key, 0) if gamma is None else near[gamma].get(key, 0)
        interval = wilson(hits, result.n, confidence)
        if not in_interval(interval, ball):
            failures.append(f"{label}: exact {ball.str(10)}, frequency {hits / result.n:.6f}, interval {interval}")
    assert not failures, f"{row} at eps={eps} (confidence {confidence}):\n" + "\n".join(failures)


# --------------------------------------------------------------------------- 3. numerical integration


def _agrees(ball, value: float) -> bool:
    exact = float(ball.mid())
    diff = abs(exact - value) - float(ball.rad())
    if diff > ABS_TOL:
        return False
    return exact < REL_FLOOR or diff <= REL_TOL * exact


@pytest.mark.parametrize("index", range(len(ROWS)), ids=IDS)
def test_exact_probabilities_agree_with_numerical_integration(index):
    row = ROWS[index]
    program = _loaded(index).program
    names = _finite_names(program)
    inputs = _flat_inputs(index)
    exact_keys = set(_exact(index).marginal())
    failures = []
    for eps in QUAD_EPS:
        witness = Witness(program, inputs, eps)
        assert witness.dropped < 1e-12
        numeric = witness.marginal()
        for key in set(numeric) - exact_keys:  # outcomes the exact distribution does not list
            if numeric[key] > ABS_TOL:
                failures.append(f"eps={eps} out={key}: exact 0, integral {numeric[key]:.3e}")
        for label, key, gamma in _events(index):
            ball = _exact_event(index, names, key, gamma).at(eps)
            if gamma is None:
                value = numeric.get(key, 0.0)
            else:
                value = witness.within({**dict(zip(names, key)), **row.targets}, gamma)
            if not _agrees(ball, value):
                failures.append(f"eps={eps} {label}: exact {ball.str(15)}, integral {value!r}, "
                                f"difference {float(ball.mid()) - value:.3e}")
    assert not failures, f"{row}:\n" + "\n".join(failures)


# --------------------------------------------------------------------------- the witness itself


def test_witness_converges_in_the_number_of_nodes():
    """Halving the Gauss-Legendre nodes changes nothing at 1e-12 on a 4-dimensional group."""
    index = next(i for i, r in enumerate(ROWS) if r.program == "noisy_max" and r.params.get("m") == 4)
    program, inputs = _loaded(index).program, _flat_inputs(index)
    for eps in (F(1, 3),):
        coarse = Witness(program, inputs, eps, nodes=8).marginal()
        fine = Witness(program, inputs, eps, nodes=24).marginal()
        assert set(coarse) == set(fine)
        for key in fine:
            assert abs(coarse[key] - fine[key]) < 1e-12, (key, coarse[key], fine[key])


def test_witness_totals_are_one_and_tails_are_accounted():
    """The witness's own total is 1 up to its truncations (discrete tails, loop remainder)."""
    for i, row in enumerate(ROWS):
        if row.params or i % 3:
            continue
        w = Witness(_loaded(i).program, _flat_inputs(i), F(1, 3))
        assert abs(sum(w.marginal().values()) - 1) < 1e-11, row


def test_witness_matches_one_dimensional_quadrature_and_notices_a_shift():
    """P[noisy_max = 1] at q = [0, 1] is the 1-D integral of f_1(x) F_2(x) (mpmath.quad, written
    here); the witness matches it, and moving q by 1e-6 moves the witness by more than 1e-9."""
    import mpmath
    loaded = dipc_plus.load(PROGRAMS / "noisy_max.dip", m=2)
    eps = F(1)
    b = mpmath.mpf(1) / 2

    def pdf(x, mu):
        return b / 2 * mpmath.exp(-b * abs(x - mu))

    def cdf(x, mu):
        return mpmath.exp(b * (x - mu)) / 2 if x < mu else 1 - mpmath.exp(-b * (x - mu)) / 2

    direct = mpmath.quad(lambda x: pdf(x, 0) * cdf(x, 1), [-mpmath.inf, 0, 1, mpmath.inf])
    bound = bind_inputs(loaded.program, {"q": [F(0), F(1)]})
    got = Witness(loaded.program, bound, eps).marginal()[(1,)]
    assert abs(got - float(direct)) < 1e-13
    shifted = bind_inputs(loaded.program, {"q": [F(1, 10**6), F(1)]})
    assert abs(Witness(loaded.program, shifted, eps).marginal()[(1,)] - got) > 1e-9


EXTRA_SHAPES = {
    # integer samples compared with each other: the witness's nested discrete sums
    "dlap_argmax.dip": ("""
type Val = 0..2
input  v: Val[3]
output out: 1..3
z: int[3]
for i = 1 to 3 do
    z[i] <- DLap(eps, v[i])
end
out <- argmax(z)
""", {"v": [0, 2, 1]}),
    # a Laplace sample centred on another sample
    "lap_chain.dip": ("""
input  t: real
output hi: bool
output up: bool
a <- Lap(eps, t)
b <- Lap(eps/2, a)
hi <- b >= 1
up <- b > a + 1/2
""", {"t": F(1, 3)}),
}


@pytest.mark.parametrize("name", sorted(EXTRA_SHAPES))
def test_witness_and_exact_agree_on_shapes_the_programs_lack(name, tmp_path):
    """Shapes no program in programs/ has (integer samples compared with each other, a
    Laplace mean that is a sample), so the witness's general paths are exercised too."""
    text, inputs = EXTRA_SHAPES[name]
    path = tmp_path / name
    path.write_text(text)
    loaded = dipc_plus.load(path)
    exact = loaded.distribution(**inputs).marginal()
    bound = bind_inputs(loaded.program, {k: python_value(v) for k, v in inputs.items()})
    for eps in QUAD_EPS:
        numeric = Witness(loaded.program, bound, eps).marginal()
        assert set(numeric) == set(exact)
        for key, value in exact.items():
            assert _agrees(Exact(value).at(eps), numeric[key]), (name, eps, key)
