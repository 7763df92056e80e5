"""Box privacy claims (issues 28 and 38): each claim's verdict, the method that decided it, its time and
the literature's verdict, beside the exact check of the same claim on the box's integer points.

Writes experiments/box_privacy_table.md.  Each claim is loaded and decided in this process by
`privacy.dp.box.decide_box_privacy` (the coupling bound, the density-ratio bound, the worst neighbour by
monotonicity, post-processing, or a search for a counterexample at rational points of the box and inside
its input-only cells); the method printed is the one `dipc privacy --json` names.  The time is the
decision's wall time (loading the claim included, Python start-up not).  A row over its time limit
(60 s, 5 minutes for m = 5) or UNDECIDED stays in the table, marked so.

Run:  PYTHONPATH=. python experiments/box_privacy_table.py
      PYTHONPATH=. python experiments/box_privacy_table.py --only a_privacy_box.toml,b_privacy_box.toml
          (reruns those claims' rows, copies the others from the table as written)
"""
from __future__ import annotations

import os
import platform
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction as F
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THEORIES = ROOT / "theories"
TABLE = ROOT / "experiments" / "box_privacy_table.md"
GRID_UP_TO = 4           # the grid twin of a finite-output claim is run for m <= 4 only (3^m points)
GRID_VALUE_POINTS = 32   # the grid density check (every output value) runs on at most this many integer points


@dataclass(frozen=True)
class Row:
    """One claim of the table: the theory, its parameters and what the literature says of it."""
    claim: str
    literature: str
    params: dict = field(default_factory=dict)

    def limit(self) -> int:
        """The issue's time limit in seconds: 5 minutes for the m = 5 rows, 60 s for the others."""
        return 300 if self.params.get("m") == 5 else 60


PRIVATE = "eps-DP"
ISSUE_38 = [   # issue 38's "Done when" rows: programs outside the online class, then their non-private twins
    Row("noisy_max_privacy_box.toml", "eps-DP (Dwork & Roth, Report Noisy Max, Lap(2/eps))", {"m": 3}),
    Row("noisy_max_privacy_box.toml", "eps-DP", {"m": 4}),
    Row("noisy_max_privacy_box.toml", "eps-DP", {"m": 5}),
    Row("noisy_max_exp_privacy_box.toml", "eps-DP (Report Noisy Max with exponential noise)", {"m": 3}),
    Row("noisy_max_exp_privacy_box.toml", "eps-DP", {"m": 4}),
    Row("noisy_max_exp_privacy_box.toml", "eps-DP", {"m": 5}),
    Row("laplace_histogram_l1_privacy_box.toml", "eps-DP (Laplace histogram, l1 sensitivity 1)"),
    Row("laplace_histogram_one_position_privacy_box.toml", "eps-DP (one bin moves by at most 1)"),
    Row("partial_sums_privacy_box.toml", "eps-DP (CheckDP's PartialSum: each sum at rate eps/m)"),
    Row("smart_sum_privacy_box.toml", "eps-DP (Chan, Shi & Song 2010, the published budget)"),
    Row("svt_count_privacy_box.toml", "eps-DP (StatDP's SVT count of bots, Ding et al. 2018)"),
    Row("noisy_max_value_privacy_box.toml", "not eps-DP (releasing the noisy max value; loss -> 3/2*eps)"),
    Row("laplace_histogram_rate2_privacy_box.toml", "not eps-DP (loss exactly 2*eps)"),
    Row("svt_count_no_query_noise_privacy_box.toml", "not eps-DP for any eps (StatDP's iSVT1: no query noise)"),
    Row("jump_mean_privacy_box.toml", "not eps-DP (loss 11/2*eps strictly inside the jump (1/4, 3/4))"),
]
TWINS = [   # box twins of the shipped privacy theories with a grid (theories/*_privacy*.toml)
    Row("laplace_privacy_box.toml", "eps-DP (the Laplace mechanism)"),
    Row("svt_lyu_alg1_privacy_box.toml", "eps-DP (Lyu, Su & Li 2017, Alg. 1)"),
    Row("svt_lyu_alg1_privacy_box.toml", "eps-DP", {"m": 4}),
    Row("svt_lyu_alg2_privacy_box.toml", "eps-DP (Lyu et al. Alg. 2, Dwork & Roth's Sparse)"),
    Row("sparse_privacy_box.toml", "eps-DP (Barthe et al. 2021, Sparse)"),
    Row("svt_lyu_alg3_privacy_box.toml", "infinity-DP (Lyu et al. Alg. 3); at m = 3 loss 3/2*eps on these events"),
    Row("svt_lyu_alg4_privacy_box.toml", "((1+6c)/4)*eps-DP (Lyu et al. Alg. 4): claimed eps fails"),
    Row("svt_lyu_alg4_tight_privacy_box.toml", "7/4*eps-DP at c = 1 (Lyu et al. Alg. 4)"),
    Row("svt_lyu_alg5_privacy_box.toml", "infinity-DP (Lyu et al. Alg. 5: no query noise)"),
    Row("svt_lyu_alg6_privacy_box.toml", "infinity-DP (Lyu et al. Alg. 6: no cutoff); at m = 3 above eps"),
    Row("above_threshold_forever_privacy_box.toml", "no constant d for every m; eps-DP at m = 3 (shipped grid)"),
    Row("svt_resample_forever_privacy_box.toml", "no constant d for every m; eps-DP at m = 3 (shipped grid)"),
    Row("sparse_resample_once_privacy_box.toml", "eps-DP for every m (d = 1)"),
    Row("above_threshold_numeric_privacy_box.toml", "5/4*eps-DP for every m"),
    Row("above_threshold_gap_privacy_box.toml", "no constant d (the released value leaks); 5/4*eps fails at m = 3"),
    Row("gap_above_threshold_privacy_box.toml", "eps-DP (GapSparseVector, Wang et al. 2020 / Ding et al.)"),
    Row("numeric_sparse_privacy_box.toml", "eps-DP (NumericSparse, Dwork & Roth; Barthe et al. 2021)"),
    Row("bad_gap_sparse_vector_m5_privacy_box.toml", "not eps-DP (CheckDP's BadGapSparseVector: loss 5/4*eps at m = 5)"),
    Row("noisy_max_loop_privacy_box.toml", "eps-DP (Report Noisy Max written as a loop)"),
    Row("noisy_min_privacy_box.toml", "eps-DP (Report Noisy Min)"),
]
SECTIONS = [("## Issue 38: programs outside the online class and their non-private twins", ISSUE_38),
            ("## Box twins of the shipped privacy theories", TWINS)]
HEAD = ["claim", "parameters", "budget", "box", "box verdict", "method", "literature", "box s", "d*B",
        "exact sup L/eps on the integer points", "grid verdict (integer points)", "grid s"]


def counterexample_text(claim, res) -> str:
    """The refuting pair (and the output value w, for every output value) as the table prints it."""
    from dipc_plus.exact.convert import fmt_q
    from dipc_plus.privacy.display import ENV_STYLE, user_env
    from dipc_plus.semantics.values import show_env
    cex = res.counterexample
    eps = fmt_q(cex.eps) if res.every_value else cex.eps_text()
    value = ""
    if res.every_value and cex.w is not None:
        w = "(" + ", ".join(map(fmt_q, cex.w)) + ")" if isinstance(cex.w, (tuple, list)) else fmt_q(cex.w)
        value = f", w = {w}"
    return (f" at {show_env(user_env(claim.program, cex.input), **ENV_STYLE)} vs "
            f"{show_env(user_env(claim.program, cex.neighbour), **ENV_STYLE)}{value}, eps = {eps}")


def grid_cells(claim, every_value: bool) -> list[str]:
    """The exact check of the same claim on the box's integer points, or why it is not run."""
    from dipc_plus.privacy.dp.box import lattice_claim, lattice_points
    points = lattice_points(claim, F(1))
    m = claim.program.params.get("m", 1)
    if every_value and points > GRID_VALUE_POINTS:
        return [f"not run ({points} points)", "-"]
    if not every_value and m > GRID_UP_TO:
        return [f"not run (3^{m} points)", "-"]
    t1 = time.perf_counter()
    lc = lattice_claim(claim, F(1))
    if every_value:
        from dipc_plus.privacy.dp.real_output_check import check_real_outputs
        verdict = f"{check_real_outputs(lc).verdict} ({lc.npoints} points)"
    else:
        from dipc_plus.privacy.dp.check import check_dp
        verdict = f"{check_dp(lc).verdict} ({lc.npoints} points)"
    return [verdict, f"{time.perf_counter() - t1:.2f}"]


def one(row: Row) -> list[str]:
    """Decide the row's box claim and format its cells."""
    from dipc_plus.claims.scope import box_text
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    from dipc_plus.exact.convert import fmt_q
    from dipc_plus.privacy.dp.box import decide_box_privacy
    t0 = time.perf_counter()
    claim = load_privacy_claim(str(THEORIES / row.claim), {k: F(v) for k, v in row.params.items()})
    res = decide_box_privacy(claim)
    seconds = time.perf_counter() - t0
    verdict = res.verdict + (counterexample_text(claim, res) if res.counterexample is not None else "")
    if res.verdict == "undecided":
        verdict = "**UNDECIDED** " + verdict
    timing = f"{seconds:.2f}" + (f" (**over the {row.limit()} s limit**)" if seconds > row.limit() else "")
    box = box_text(claim.program, claim.box_bounds) + (", every output value" if res.every_value else "")
    bound = "-" if res.coupling.bound is None else fmt_q(res.coupling.bound)
    loss = "; ".join(t for _, t, _ in res.losses) or "-"
    return [row.claim, params_text(claim.program), f"{claim.budget}", box, verdict, res.method or "-",
            row.literature, timing, bound, loss, *grid_cells(claim, res.every_value)]


def params_text(program) -> str:
    from dipc_plus.exact.convert import fmt_q
    return ", ".join(f"{k} = {fmt_q(v)}" for k, v in program.params.items()) or "-"


def row_key(row: Row) -> tuple[str, str]:
    """(claim, parameters as the table prints them): how a row of the written table is found again."""
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    claim = load_privacy_claim(str(THEORIES / row.claim), {k: F(v) for k, v in row.params.items()})
    return row.claim, params_text(claim.program)


def written_rows() -> dict:
    """The rows of box_privacy_table.md as written, by `row_key`."""
    rows = {}
    for line in (TABLE.read_text() if TABLE.exists() else "").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0].endswith(".toml"):
            rows[(cells[0], cells[1])] = cells
    return rows


def table(rows: list[Row], only: set | None, kept: dict) -> list[str]:
    def cells(row: Row) -> list[str]:
        if only is not None and row.claim not in only and row_key(row) in kept:
            written = kept[row_key(row)]
            return written[:HEAD.index("literature")] + [row.literature] + written[HEAD.index("literature") + 1:]
        print(f"  {row.claim} {row.params}", file=sys.stderr, flush=True)
        return one(row)
    return ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)] + \
        ["| " + " | ".join(cells(r)) + " |" for r in rows]


INTRO = ("Written by `experiments/box_privacy_table.py` (docs/claims.md, \"Which method proves a box privacy "
         "claim\").  Box: `privacy.dp.box.decide_box_privacy` on every pair of real inputs of the box; the method "
         "is the one `dipc privacy --json` names.  Rows marked \"every output value\" have real outputs and no "
         "`events`: the claim is about the density of every output value.  d*B: the coupling bound of the online "
         "class (an upper bound; `-` outside the class).  Grid: the exact check of the same claim on the box's "
         "integer points (`check_dp`, or the density check `check_real_outputs` for every output value), not run "
         f"above 3^{GRID_UP_TO} points (finite outputs) or {GRID_VALUE_POINTS} points (every output value).  Wall "
         "seconds in one process (loading the claim included) on {machine} with {cores} cores shared with other "
         "jobs; limits: 60 s per row, 5 minutes for the m = 5 rows.")
NOTES = [
    "Methods (docs/claims.md): the coupling bound of the online class; the density-ratio bound (every run's "
    "density moves by at most e^(k*eps) between neighbours when inputs reach outputs only through noise means: "
    "k = max over the adjacency set's vertices of sum_i r_i |a_i.d|) - the histogram under l1 gets exactly eps "
    "where the linf-style coupling bound gave d*B = 4; the worst neighbour by monotonicity (Report Noisy Max: "
    "P[out = j] rises with q[j] and falls with the others, so one ratio of closed forms per point, checked "
    "exactly on the integer points, whose time dominates at m = 5); a refutation is found at rational points of "
    "the box or inside its input-only cells and re-checked by the per-point chain before it is printed.",
    "Left out: the Python programs' theories (theories/python_*_privacy.toml; the Python front end's boxes are "
    "another piece of work), the discrete-noise and randomized-response theories (integer or Boolean inputs: "
    "no box of real inputs), and Lyu Alg. 1 at m = 8 (verified in 229 s when the rows were in "
    "experiments/box_table.md, nearly all of it the cross-check on the two-block integer points).",
]


def main() -> None:
    args = sys.argv[1:]
    only = set(args[args.index("--only") + 1].split(",")) if "--only" in args else None
    kept = written_rows() if only is not None else {}
    lines = ["# Box privacy claims: verdict, method, time and the literature's verdict", "",
             INTRO.format(machine=platform.machine(), cores=os.cpu_count())]
    for head, rows in SECTIONS:
        lines += ["", head, ""] + table(rows, only, kept)
    for note in NOTES:
        lines += ["", note]
    TABLE.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
