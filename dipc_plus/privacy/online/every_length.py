"""Privacy for every number of queries: the verdict of `dipc privacy --every-length`.

Why: a verdict for every m is only given from an argument that is implemented and
tested.  `classify` checks the program's shape (`shape`), recognises the online class by
whitelist (`recognise`), bounds its loss (`bound`) and looks for the proofs of "no
constant" whose preconditions hold (`patterns`).  `decide_every_length` puts that beside
the exact engine's tight losses at small m: a "verified for every m" is printed only after
the exact loss at m = 1, 2, 3 is shown to be at most d (else `BoundContradiction`, an
internal error: exit 3); "no constant" shows the growing losses; a refutation at a
concrete m is re-checked by the exact engine; outside the class the answer is "cannot
decide" (exit 2) - never a guess (docs/design/every_length.md).
"""
from __future__ import annotations

import dataclasses
import itertools
import os
import time
from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.claims.claim_file import key_error
from dipc_plus.execution import ledger
from dipc_plus.errors import UserError
from dipc_plus.privacy.online.automaton import Automaton
from dipc_plus.privacy.online.bound import Bound, coupling_bound
from dipc_plus.privacy.online.patterns import hidden_guard, leaks
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import online_shape
from dipc_plus.decision.sup_ratio import SupRatio


# Adjacencies decided through linf with the same bound: each of their pairs is an linf pair.
THROUGH_LINF = ("linf", "l1", "one-position")


def adjacency_refusal(claim_path: str, kind: str) -> UserError:
    """The refusal of an adjacency the class does not decide, at the line of its key."""
    why = ("two inputs differing in one position by any amount are not within any linf bound, so the coupling "
           "bound (which pays for each |q[i] - q'[i]| <= bound) proves nothing about them"
           if kind == "hamming" else "the explicit pairs are not an adjacency of every length")
    return key_error(
        claim_path, "privacy.adjacency",
        f"privacy.adjacency: cannot decide privacy for every m with adjacency \"{kind}\": {why}",
        'use adjacency = "linf", "l1" or "one-position" with a bound (decided through linf with that '
        'bound), or decide one m at a time without --every-length')


def integer_bound_refusal(claim_path: str, bound: Fraction, draw_at: str) -> UserError:
    """The refusal of a non-integer adjacency bound for a program with discrete noise, at the line of
    the bound: the discrete Laplace shift cost holds for integer shifts only, and the coupling shifts
    draws by the bound (docs/design/every_length.md, "Discrete Laplace draws")."""
    return key_error(
        claim_path, "privacy.bound", "privacy.bound: cannot decide privacy for every m: the program draws discrete "
        f"Laplace noise ({draw_at}), whose shift cost e^(k*eps*|s|) holds only for integer shifts s, but the adjacency bound "
        f"{bound} is not an integer (the coupling shifts draws by the bound)",
        "use an integer bound (on integer inputs a bound B allows the same pairs as its floor), or decide "
        "one m at a time without --every-length")


def every_value_refusal(claim, claim_path: str) -> UserError:
    """A real output without events has no finite output table, and the every-length checks
    compare exact tight losses on such tables.  The hint offers what does apply - events, or
    the claim at its own m without the flag - and never the command the user just ran."""
    from dipc_plus.semantics import ir
    reals = [name for name, typ in claim.program.outputs if isinstance(typ, ir.RealT)]
    array = reals[0].split("[")[0] if reals else "NAME"
    flag = 'length = "every"' if claim.every_length else "--every-length"
    return UserError(f"cannot decide privacy for every m: the real output(s) {', '.join(reals)} name no events, and "
                     "the every-length checks compare exact losses on finite sets of outputs",
                     file=claim_path,
                     hint=f"add `events = {{ {array} = [\"(-inf, 0]\", \"(0, inf)\"] }}` to [privacy] to decide "
                          f"every m on those events; without {flag} the claim is decided at its own m on every "
                          "output value")


class BoundContradiction(RuntimeError):
    """The exact loss at a small m exceeds the bound d: the bound (our code) is wrong."""


# --------------------------------------------------------------------------- the verdict


@dataclass
class EveryLengthCheck:
    verdict: str                 # 'verified' | 'refuted' | 'not private for any constant' | 'undecided'
    automaton: Automaton
    d: Fraction | None
    patterns: list
    class_seconds: float
    losses: list = field(default_factory=list)   # (m, sup L/eps text, value or None, witness text)
    counterexample: object = None                # a dp.check.PairCheck at a concrete m
    budget_k: Fraction | None = None
    adjacency: str = "linf"                      # the claim's; l1 / one-position are decided through linf
    family: str = ""                             # how the pattern's counterexample was found (or the limit hit)
    coupling_states: int = 0                     # the coupling game's reachable positions

    def to_json(self) -> dict:
        a = self.automaton
        return {"verdict": self.verdict, "scope": "every m >= 1", "d": None if self.d is None else str(self.d),
                "budget": None if self.budget_k is None else str(self.budget_k), "adjacency": self.adjacency,
                "loop": a.loop_pos, "control_states": len(a.states()), "steps": len(a.steps),
                "stored_variables": list(a.variables), "coupling_states": self.coupling_states,
                "class_check_ms": round(self.class_seconds * 1000, 3), "patterns": self.patterns,
                "losses": [{"m": m, "sup_loss_over_eps": t, "witness": w} for m, t, _, w in self.losses],
                "counterexample_m": None if self.counterexample is None else self.counterexample[0],
                "pattern_counterexample": self.family or None, "derived_outputs": list(a.derived)}

    def report(self) -> str:
        a = self.automaton
        lines = [f"every-length: the loop over the queries (body at {a.loop_pos}) is an online automaton "
                 f"({len(a.states())} control state(s), {len(a.steps)} step(s), {len(a.variables)} stored variable(s), "
                 f"{self.coupling_states} coupling game position(s)); class check {self.class_seconds*1000:.1f} ms"]
        derived = ", ".join(a.derived)
        lines += [text for shown, text in (
            (self.d is not None, f"coupling bound: d = {self.d}  (every m: P[P(q)=w] <= e^(d*eps) P[P(q')=w], "
                                 "||q-q'||_inf <= the claim's bound)"),
            (derived, f"post-processing: {derived} computed after the loop from the per-step outputs alone; the "
                      f"bound is the per-step outputs' and carries over to {derived} (a function of them); a "
                      "refutation is a counterexample of the program as written"),
            (self.adjacency != "linf", f"adjacency {self.adjacency}: decided through linf with the same bound (each "
                                       f"of its pairs is an linf pair); refuted only by a counterexample under "
                                       f"{self.adjacency} itself")) if shown]
        lines += [f"pattern: {p}" for p in self.patterns]
        lines += [f"  m = {m}: exact tight sup L(eps)/eps = {text}" + (f"  at {witness}" if witness else "")
                  for m, text, _, witness in self.losses]
        if self.family and self.verdict in ("undecided", "not private for any constant"):
            lines.append(self.family)
        if self.verdict == "verified":
            lines.append(f"VERIFIED for every m: the claimed budget {self.budget_k}*eps >= d*eps (and the exact "
                         f"loss at m = {', '.join(str(m) for m, *_ in self.losses)} is at most d)")
        elif self.verdict == "refuted" and self.counterexample is not None:
            lines.append(f"REFUTED at m = {self.counterexample[0]} (the exact engine's counterexample below)")
        elif self.verdict == "undecided" and self.d is None and derived:
            lines.append(f"UNDECIDED: the per-step outputs are private for no constant d (d = inf), which proves "
                         f"nothing about {derived} computed from them, and the program as written "
                         "has no counterexample to the claim at the m tried")
        elif self.verdict == "undecided" and self.d is None:
            lines.append(f"UNDECIDED: under linf the program is private for no constant (the pattern above), but "
                         f"that proof moves many positions at once, which {self.adjacency} does not allow, and no "
                         "counterexample to the claim was found at the m tried")
        elif self.verdict == "undecided":
            lines.append(f"UNDECIDED: the claimed {self.budget_k}*eps is below the bound d = {self.d}, which is "
                         "only an upper bound, and no counterexample was found at the m tried; "
                         "a claim of d*eps is verified for every m")
        else:
            lines.append(f"{self.verdict.upper()}: the program is d*eps-DP for no d "
                         "(the loss grows with m, above)"
                         + (f"; the claimed {self.budget_k}*eps fails at m = {self.counterexample[0]} (the exact "
                            "engine's counterexample below)" if self.counterexample is not None else ""))
        return "\n".join(lines)


def classify(program, explicit=()) -> tuple[Automaton, Bound, list, float]:
    """Check the shape, recognise, bound and look for leaks; a located UserError (exit 2)
    outside the class.  `explicit`: the parameters the claim gives a number (the others
    are the program's defaults, refused where they depend on m)."""
    t0 = time.perf_counter()
    auto = recognise(online_shape(program.source, {n: program.params[n] for n in explicit if n in program.params}))
    bound = coupling_bound(auto)
    pats = []
    if bound.d is None and not auto.derived:
        # (outputs computed after the loop: the patterns prove "no constant" for the sequence only, not for
        # a function of it, so such a program is refuted only by a concrete counterexample)
        hidden = hidden_guard(auto)
        if hidden is not None:
            raise UserError.at(hidden.at or auto.loop_at,
                               "cannot decide privacy for every m: the coupling bound is infinite, and the outcome "
                               "of this comparison does not always show in the outputs (both outcomes write the same "
                               "constant), so the proofs of non-privacy do not apply",
                               hint="write different symbols on the two outcomes (out[i] <- top / bot), or decide "
                                    "one m at a time without --every-length")
        pats = leaks(auto)
        if not pats:
            raise UserError.at(auto.loop_at, "cannot decide privacy for every m: the coupling bound is infinite, "
                               "and no pattern of non-privacy whose proof's precondition holds is reachable "
                               "(docs/design/every_length.md, section 3), so neither verdict is proved",
                               hint="decide one m at a time without --every-length")
    return auto, bound, pats, time.perf_counter() - t0


def on_points(claim, points: list):
    """The claim on the listed inputs `points` instead of its own."""
    return dataclasses.replace(claim, explicit_points=points, grid=None, inputs_kind="list")


def witness_inputs(claim, array: str, m: int):
    """The claim at length m restricted to the two-block inputs q = (x, ..., x, y, ..., y)
    (every split point; x, y over the values the claim's grid gives q[1] and q[m]; other
    inputs over their own grid values): every counterexample family of
    docs/design/every_length.md section 3 has this shape, and their number grows only linearly in
    m, so longer lengths stay cheap.  None when the claim lists its inputs (its list is used
    as given)."""
    if claim.grid is None:
        return None
    first, last = f"{array}[1]", f"{array}[{m}]"
    if first not in claim.grid or last not in claim.grid:
        return None
    others = [n for n in claim.grid if not n.startswith(f"{array}[")]
    blocks = dict.fromkeys(tuple([x] * split + [y] * (m - split)) for split in range(m + 1)
                           for x, y in itertools.product(claim.grid[first], claim.grid[last]))
    points = [{**{f"{array}[{i}]": v for i, v in enumerate(block, 1)}, **dict(zip(others, rest))}
              for block in blocks for rest in itertools.product(*(claim.grid[n] for n in others))]
    return on_points(claim, points)


def _witness_text(program, lr) -> str:
    """The pair and output behind an unrolled loss, as the user writes them."""
    from dipc_plus.privacy.display import ENV_STYLE, user_env
    from dipc_plus.semantics.values import show_env
    cand = lr.infinite if lr.infinite is not None else (lr.sup.candidate if lr.sup is not None else None)
    if cand is None or not hasattr(cand, "input"):
        return ""
    show = lambda env: show_env(user_env(program, env), **ENV_STYLE)  # noqa: E731
    return f"{show(cand.input)} vs {show(cand.neighbour)}, {show(cand.output)}"


def claim_at_length(what: str, claim_path: str, overrides: tuple, m: int, array: str | None):
    """The claim at length m and the text naming its inputs: for "family" on the family inputs of
    `array` (`family_inputs`), else on its own inputs (`array` None) or on the two-block witness
    inputs of `array`.  Module-level and built from the file alone, so a Dask worker rebuilds
    exactly what the client checks.  The family claim's own grid is never expanded (it is replaced
    before use), so the grid's size limit, which guards the expansion, is lifted while it is read."""
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    from dipc_plus.execution import limits
    before = limits.get("grid_points")
    if what == "family":
        limits.set_limit("grid_points", 10 ** 300)
    try:
        c = load_privacy_claim(claim_path, dict(overrides))
    finally:
        limits.set_limit("grid_points", before)
    if what == "family":
        return on_points(c, family_inputs(m, c.adjacency.bound, array)), ""
    w = None if array is None else witness_inputs(c, array, m)
    return (w, " (two-block inputs q = (x, ..., x, y, ..., y))") if w is not None else (c, "")


def build_length_work(what: str, claim_path: str, overrides: tuple, m: int, array: str | None, max_states: int):
    """The work at length m a worker rebuilds (`execution.executor.Source`): "dp" the eps-DP check
    and "loss" the pairs of the tight loss, on the claim's own inputs (`array` None) or the two-block
    inputs of `array`; "family" the eps-DP check on the family inputs of `array`."""
    from dipc_plus.privacy.dp.check import DPWork
    from dipc_plus.privacy.dp.plan import PairWork, plan
    c = claim_at_length(what, claim_path, overrides, m, array)[0]
    if what == "loss":
        return PairWork(c, plan(c, c.structure, max_states=max_states, symmetry=True))
    return DPWork(c, None, max_states)


def family_inputs(m: int, bound: Fraction, array: str) -> list:
    """The inputs of the families of docs/design/every_length.md section 3 at length m: q = 0 and,
    each adjacent to it (linf bound B), q' moving the pumped reads towards their outcome: B on a
    block of tops then -B on a block of bots (leaking pair, leaking cycle) or the mirror image,
    B or -B everywhere (disclosing cycle, a cycle of tops or of bots), and -B or B on all but
    the last position (pumped bots or tops, then the release)."""
    n = (m + 1) // 2
    shapes = [[0] * m, [1] * n + [-1] * (m - n), [-1] * n + [1] * (m - n), [1] * m, [-1] * m,
              [-1] * (m - 1) + [0], [1] * (m - 1) + [0]]
    return [{f"{array}[{i}]": v * bound for i, v in enumerate(shape, 1)} for shape in dict.fromkeys(map(tuple, shapes))]


def predicted_length(losses: list, k: Fraction) -> int | None:
    """The first m at which the growth of the last two exact losses (per query) passes k, or None
    (no growth seen).  Only a guess where to look: the exact check at that m is the proof."""
    vals = [(m, v) for m, _, v, _ in losses if v is not None]
    if len(vals) < 2 or vals[-1][0] != vals[-2][0] + 1 or vals[-1][1] <= vals[-2][1]:
        return None
    (_, before), (last_m, last) = vals[-2], vals[-1]
    step = last - before
    return last_m + int((k - last) // step) + 1


# What the limit length_work counts, for the verdict's note.
WORK_UNIT = "a (pair, output) comparison of an eps-DP check is 1, a distinct ratio of an exact loss 8"
# The CPU time of a distinct ratio of the tight loss (placed on the upper envelope by certified
# decisions) over that of one comparison of the DP check: about 8 in experiments/every_length_work.md
# (medians 4.2 ms and 0.53 ms on an idle core), so that one unit is about the same time in both.
LOSS_RATIO_WORK = 8


def check_work(result) -> int:
    """The work of one finished exact check, counted from its result: the DP check's (pair, output)
    comparisons, or LOSS_RATIO_WORK per distinct ratio of the tight loss.  A count, not a time, so
    the limit `length_work` stops the search at the same m on an idle machine and a loaded one; the
    counts are the same whichever process ran the pairs (experiments/every_length_work.md measures how
    they track the CPU time: within a factor of about 3 of the median either way)."""
    if hasattr(result, "obligations"):
        return max(1, result.obligations)
    return max(1, LOSS_RATIO_WORK * result.distinct)


def per_step_growth(done: list) -> float:
    """The growth per step of m of the last two (m, work), at least 1 (1 with fewer than two)."""
    if len(done) < 2:
        return 1.0
    (m1, w1), (m2, w2) = done[-2], done[-1]
    return max(1.0, (w2 / w1) ** (1.0 / (m2 - m1))) if m2 > m1 and w1 > 0 else 1.0


@dataclass
class _LengthChecks:
    """The exact engine's checks of the claim at concrete lengths m, recorded on `res`: on the
    claim's own inputs for m in `lengths`, on the two-block witness inputs for longer m; their
    pairs run on `executor`, whose workers rebuild the claim at m from the file alone."""
    claim_path: str
    overrides: dict
    lengths: tuple
    executor: object
    res: EveryLengthCheck
    work: int | None = None            # the budget of work of the checks past `lengths` (None: none)
    max_m: int | None = None           # the largest m checked past `lengths` (None: none)
    bar: object = None                 # a progress bar over m (None: no bar), moved as checks start
    spent: dict = field(default_factory=dict)   # m -> the work its checks did (`check_work`)
    stopped: tuple | None = None       # (m, predicted work) of the check not started

    def predicted(self, m) -> int:
        """A guess of the work of the checks at m: the last one's, grown by the per-step ratio of the
        last two checks on the same kind of inputs (at least 1).  The first check past
        the claim's lengths counts one step only: its two-block or family inputs are far fewer than the
        whole grid.  Only decides whether to start a check; never a verdict."""
        done = sorted(self.spent.items())
        if not done:
            return 0
        past = [x for x in done if x[0] not in self.lengths]
        own = [x for x in done if x[0] in self.lengths]
        m2, w2 = done[-1]
        steps = m - m2 if past else 1
        return round(w2 * per_step_growth(past if len(past) > 1 else own) ** max(0, steps))

    def affordable(self, m) -> bool:
        """Whether the checks at m may start: always at the claim's own lengths; past them only while
        the work done there plus the guess for m stays within the budget (else `stopped` says so)."""
        if m in self.lengths:
            return True
        if self.max_m is not None and m > self.max_m:
            self.stopped = (m, None)
            return False
        if self.work is None:
            return True
        past = sum(w for n, w in self.spent.items() if n not in self.lengths)
        guess = self.predicted(m)
        if past + guess <= self.work:
            return True
        self.stopped = (m, guess)
        return False

    def limit_text(self) -> str:
        """The verdict's note when a limit (on m, or on the work of the checks past the claim's
        lengths) stopped the search for a counterexample."""
        (m, guess), k = self.stopped, self.res.budget_k
        tried = sorted(self.spent)
        found = f"no counterexample to the claimed {k}*eps found up to m = {tried[-1] if tried else 0} (limit): "
        if guess is None:
            return found + f"m = {m} is past the limit m = {self.max_m} (--limit length_m=N)"
        return (found + f"the checks at m = {m} were predicted to do about {guess} units of work ({WORK_UNIT}), "
                f"past the limit of {self.work} on the checks beyond the claim's lengths (--limit length_work=N; "
                "the limit on m is length_m)")

    def key(self, what, m):   # what a worker needs to rebuild the claim at m (a path valid on any machine)
        a = self.res.automaton
        return (what, os.path.abspath(self.claim_path), tuple({**self.overrides, a.size_param: m}.items()), m,
                a.input_name if what == "family" or m not in self.lengths else None)

    def at(self, m):
        return claim_at_length(*self.key("dp", m))

    def run(self, what: str, m: int, c=None):
        """One exact check at m on the executor, its workers rebuilding the claim (`build_length_work`):
        check_dp of the claim `c` ("dp") or of the pattern's family inputs ("family", re-checked as every
        refutation is), or the pairs of privacy_loss of `c` ("loss"); what it built is not kept past it."""
        from dipc_plus.execution.executor import Source
        from dipc_plus.privacy.dp.check import DEFAULT_MAX_STATES, check_dp
        from dipc_plus.privacy.loss.tight import privacy_loss
        key = self.key(what, m)
        c = claim_at_length(*key)[0] if what == "family" else c
        self.starting(what, m)
        source = Source.of(build_length_work, (*key, DEFAULT_MAX_STATES), (self.claim_path, c.program.source))
        try:
            result = (privacy_loss if what == "loss" else check_dp)(c, executor=self.executor, source=source)
        finally:
            source.forget()
        self.spent[m] = self.spent.get(m, 0) + check_work(result)
        return result

    def starting(self, what: str, m: int) -> None:
        """Name the check starting (the ledger's "working on" line: a run stopped by --timeout says
        which m it was at) and move the bar to m: the checks past m = 3 may take minutes each."""
        doing = {"dp": "exact check", "family": "pattern's inputs", "loss": "exact loss"}[what]
        ledger.working_on("length", f"{doing} at m = {m}")
        if self.bar is not None:
            self.bar.set_description_str(f"every length: {doing} at m = {m}", refresh=False)
            self.bar.update(max(0, m - self.bar.n))

    def exact_loss(self, m, c, scope=""):
        """The exact tight sup L/eps at m, recorded with its pair; the SupRatio (None: no loss)."""
        lr = self.run("loss", m, c)
        s = SupRatio(infinite=True) if lr.infinite is not None else lr.sup
        text = "inf" if lr.infinite is not None else (s.text() if s else lr.loss_text())
        self.res.losses.append((m, text, None if s is None or s.value is None else s.value,
                                _witness_text(c.program, lr) + scope))
        return s


def _cross_check(checks: _LengthChecks, claim) -> None:
    """The exact loss at m = 1, 2, 3 must be at most d before "verified" is printed (else the
    bound, our code, is wrong).  A claim that lists its inputs names them for its own m only:
    that m is checked instead."""
    res, d = checks.res, checks.res.d
    todo = []
    for m in checks.lengths:
        try:
            todo.append((m, checks.at(m)[0]))
        except UserError:
            continue
    if not todo:
        own = int(claim.program.params[res.automaton.size_param])
        todo = [(own, checks.at(own)[0])]
    for m, c in todo:
        s = checks.exact_loss(m, c)
        if s is not None and (s.infinite or s.upper() > d):
            above = s.infinite or s.lower() > d
            raise BoundContradiction(
                f"the every-length bound is wrong: at m = {m} the exact tight sup L(eps)/eps is "
                f"{res.losses[-1][1]}, " + ("above" if above else "not certified to be at most")
                + f" d = {d} (at {res.losses[-1][3]}); no verdict is given")


def decide_every_length(claim, claim_path: str, overrides: dict, lengths=(1, 2, 3),
                        longer=(4, 5, 6), executor=None, family_limit: int | None = None,
                        search_work: int | None = None, progress: bool = False) -> EveryLengthCheck:
    """The every-length verdict for a DP claim whose program is online.  `lengths` are
    checked on the claim's own inputs; `longer` ones (for "no constant" verdicts and for a
    refutation) on the witness inputs of `witness_inputs`.  The exact checks at each m run
    their pairs on `executor` (default this process).  A "no constant" verdict whose claim holds
    at those m looks for its counterexample on the pattern's inputs up to m = `family_limit`
    (default: the limit length_m).  The checks past `lengths` stop, with the limit reported, before
    one predicted to pass `search_work` units of work in all (`check_work`; default: the limit length_work).
    `progress`: a bar on stderr (a terminal only) naming the check and its m."""
    from dipc_plus.execution import limits
    from dipc_plus.execution.progress import progress_bar
    if claim.kind != "dp":
        raise UserError("--every-length decides differential privacy, not Pufferfish", file=claim_path)
    adj = claim.adjacency
    if adj.kind not in THROUGH_LINF:
        raise adjacency_refusal(claim_path, adj.kind)
    if getattr(claim, "every_output_value", False):
        raise every_value_refusal(claim, claim_path)
    # the parameters given a number (the others keep the program's defaults, which may depend on m)
    auto, bound, pats, secs = classify(claim.program, set(claim.given_params) | set(overrides or ()))
    if auto.integer_draw and adj.bound.denominator != 1:
        raise integer_bound_refusal(claim_path, adj.bound, auto.integer_draw)
    k = claim.budget.k if claim.budget.factor == 1 and claim.delta_is_zero else None
    if k is None:
        raise UserError("cannot decide privacy for every m: the budget must be a multiple of eps",
                        file=claim_path, hint='budget = "eps" or "2*eps"')
    d = None if bound.d is None else bound.d * adj.bound
    res = EveryLengthCheck("", auto, d, pats, secs, budget_k=k, adjacency=adj.kind, coupling_states=len(bound.values))
    family_limit = limits.get("length_m") if family_limit is None else family_limit
    work = limits.get("length_work") if search_work is None else search_work
    bar = progress_bar(max(family_limit, *lengths, *longer), "every length", unit="m") if progress else None
    try:
        _decide(_LengthChecks(claim_path, overrides, lengths, executor, res, work, family_limit, bar), claim, longer)
    finally:
        if bar is not None:
            bar.close()
    return res


def _decide(checks: _LengthChecks, claim, longer: tuple) -> None:
    """The verdict on `checks.res`: the bound's proof cross-checked, or the exact checks' refutation,
    or "no constant" with its growing losses and (while affordable) the pattern's counterexample."""
    res = checks.res
    d, k, lengths = res.d, res.budget_k, (*checks.lengths, *longer)
    if d is not None and d <= k:
        # The bound is a proof; the exact engine at small m must agree with it before it is printed.
        _cross_check(checks, claim)
        res.verdict = "verified"
        return
    if d is not None or res.adjacency != "linf" or res.automaton.derived:
        # d > k proves nothing (d is an upper bound), the patterns' proofs of "no constant" move
        # many positions at once (an linf pair, not an l1 or one-position one), and they are about the
        # per-step outputs, not a count computed from them: only a concrete, re-checked failure of the
        # program as written, under the claim's own adjacency, refutes.
        _first_failure(checks, lengths, with_losses=False)
        res.verdict = "refuted" if res.counterexample is not None else "undecided"
    else:
        # No constant: the growing exact losses, each with its pair, until the claim itself
        # fails at a concrete m (then the exact engine's re-checked counterexample is shown).
        _first_failure(checks, lengths, with_losses=True)
        if res.counterexample is None and checks.stopped is None:
            _family_counterexample(checks, max(lengths))
        res.verdict = "not private for any constant"
    if res.counterexample is None and checks.stopped is not None:
        res.family = checks.limit_text()


def _first_failure(checks: _LengthChecks, lengths: tuple, with_losses: bool) -> None:
    """The exact checks at `lengths` in turn, while affordable, until one refutes the claimed k*eps
    (recorded on `checks.res`).  `with_losses`: each m's exact loss first, and the check only where
    that loss passes k."""
    for m in lengths:
        if not checks.affordable(m):
            return
        c, scope = checks.at(m)
        if with_losses:
            s = checks.exact_loss(m, c, scope)
            if s is None or not (s.infinite or s.lower() > checks.res.budget_k):
                continue
        r = checks.run("dp", m, c)
        if not r.verified:
            checks.res.counterexample = (m, r)
            return


def _family_counterexample(checks: _LengthChecks, checked: int) -> None:
    """The first m past the checked lengths at which the pattern's family inputs violate the claimed
    k*eps: looked for at the m the growth predicts, then down to the first failing m (or up from
    it, to `limit`).  The exact check at that m is the proof; the limit is reported when reached."""
    res, k, limit = checks.res, checks.res.budget_k, checks.max_m
    guess = predicted_length(res.losses, k)
    m = min(max(guess or checked + 1, checked + 1), limit)
    found = {}
    while checked < m <= limit and m not in found:
        if not checks.affordable(m):
            break
        r = checks.run("family", m)
        found[m] = r
        if r.verified:
            m += 1
        elif m - 1 > checked and m - 1 not in found:
            m -= 1
        else:
            break
    failing = sorted(n for n, r in found.items() if not r.verified)
    how = ("predicted from the growth of the last two losses" if guess is not None else "no growth to predict from")
    if failing:
        first = failing[0]
        res.counterexample = (first, found[first])
        held = first - 1 in found      # then m = first is the first failing m, not only a failing one
        res.family = (f"the pattern's inputs (q = 0 against q' moving the pumped reads) {'first ' if held else ''}"
                      f"fail the claimed {k}*eps at m = {first} ({how}: m = {guess}"
                      + (f"; m = {first - 1} holds for them)" if held else ")"))
    elif checks.stopped is None:
        res.family = (f"no counterexample to the claimed {k}*eps among the pattern's inputs up to the limit m = "
                      f"{limit} (--limit length_m=N; the loss still grows without bound, by the proof of the pattern)")
