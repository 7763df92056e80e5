"""Grid points whose per-point work is identical share it: classes of inputs.

An accuracy grid check does the same exact work at many inputs.  Argmax orbits, output
supports, det regions, decisions by exact key and report classes share it, each sound by
construction; `CLASSES_ENV` set to "off" turns them all off (the per-point path, for
benchmarks and identity checks).  Design: docs/design/input_classes.md.
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from fractions import Fraction
from typing import Callable, Mapping

from dipc_plus.execution.accelerators import classes_enabled
from dipc_plus.errors import UserError
from dipc_plus.accuracy.released_values import ReleasedValues
from dipc_plus.claims import noise_free
from dipc_plus.claims.argmax_dd import recognise_regions as argmax_regions
from dipc_plus.claims.disagreement import Disagreement
from dipc_plus.claims.distances import LinfInput, LinfOutput, NumericSparseInput, ZeroOneOutput
from dipc_plus.exact.argmax_integral import argmax_probabilities
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics import ir
from dipc_plus.semantics.argmax import recognise, samples_at
from dipc_plus.semantics.distribution import Distribution, Entry, Outcome, bind, distribution_of_argmax
from dipc_plus.semantics.output_support import OutputSupport, output_support
from dipc_plus.semantics.symbolic_chain import NotSymbolic

MAX_ORBITS = 4096      # orbit representatives remembered (least recently used dropped)
MAX_DECISIONS = 65536  # decisions remembered by exact key
MAX_SCANNED_PATHS = 64      # det read off the noise-free paths when there are at most this many
MAX_SUPPORT_KEYS = 1 << 18   # per-output probabilities remembered by support key (then no more are added)

CLASS_PATH = "argmax orbits"
SUPPORT_PATH = "output supports"
RELEASED_PATH = "released values"
POINT_PATH = "per point"
_BALL_BY_DET = (ZeroOneOutput, LinfOutput)   # output distances whose ball (of finite outputs) is fixed by det
_ZERO = ExpFrac.of(0)
_ONE = ExpFrac.of(1)



class InputClasses:
    """The shared work of one checker: orbit distributions and decisions by exact key, with the
    counts a report prints (inputs seen, distributions and decisions computed)."""

    def __init__(self, program: ir.Program, enabled: bool | None = None, noise_free_det: bool = True,
                 output_distance=None, input_distance=None, dd_over: str | None = None):
        """`output_distance`: the claim's; output supports serve zero-one and L-inf (None: not known
        yet, `ball_probability` checks the claim's).  `input_distance`, `dd_over`: the claim's; dd
        is shared by det region for L-inf over the reals."""
        self.program = program
        self._names = program.input_names()
        self._name_set = frozenset(self._names)   # distinct: the frontend refuses a name declared twice
        self.output_distance = output_distance
        self.noise_free_det = noise_free_det
        self.enabled = classes_enabled() if enabled is None else enabled
        # an argmax, its output the index or a one-to-one relabelling of it (`semantics.argmax`)
        self.shape = recognise(program) if self.enabled else None
        self.support, self.support_refusal = (self._support() if self.enabled and self.shape is None
                                              else (None, None))
        self.regions = (DetRegions.of(program) if self.enabled and self.shape is None and noise_free_det
                        else None)
        # dd by (det region, u on its support): L-inf and the numeric-sparse distance are a maximum over
        # the inputs of a gap that is 0 where w agrees with u, and the disagreement set is a set over the
        # support times anything, so the distance to it reads u on the support only
        self.share_dd = (self.regions is not None and type(input_distance) in (LinfInput, NumericSparseInput)
                         and dd_over == "reals")
        # an argmax of plain noisy reads: det is the first index of the largest input, and dd (L-inf,
        # over the reals) a function of the two largest values (`argmax_key`)
        self.argmax = (argmax_regions(program, input_distance) if self.shape is not None and noise_free_det
                       else None)
        self.share_argmax_dd = self.argmax is not None and dd_over == "reals"
        # real det outputs released as det's value plus fresh noise: P[in the ball] by (template, reads)
        self.released = (ReleasedValues.of(program, self.regions)
                         if self.regions is not None and self.regions.forms and self.regions.scan
                         and self.support is None and type(output_distance) is LinfOutput else None)
        self._released: dict = {}   # ReleasedValues.key + (output distance, gamma) -> P[in the ball]
        self._last_released = None  # (input, its distribution) last computed for _released
        self._last_argmax = None      # (input, a copy of it, its argmax_key)
        self._dd: dict = {}           # (det output, u on its support) -> Disagreement without witness
        self._by_support: dict = {}   # OutputSupport.key -> P[out = o] (exact)
        self._totals: dict = {}       # the keys of a ball's outputs -> P[in the ball]
        self._balls: dict = {}        # (distance, det, gamma) -> the outputs in the ball of det
        self._ball_by_region: dict = {}   # (claim id, det region key, gamma) -> (claim, the ball's outputs)
        self._orbits: OrderedDict = OrderedDict()
        self._decisions: dict = {}
        self.distributions = 0   # output distributions computed (one per orbit on the class path)
        self.decisions = 0       # certified decisions run
        self.points = 0          # inputs whose distribution was asked for

    @property
    def path(self) -> str:
        if self.shape is not None:
            return CLASS_PATH
        if self.released is not None:
            return RELEASED_PATH
        return SUPPORT_PATH if self.support is not None else POINT_PATH

    def _support(self) -> tuple[OutputSupport | None, str | None]:
        """The program's output supports, or (None, why not)."""
        if self.output_distance is not None and type(self.output_distance) not in _BALL_BY_DET:
            return None, f"the output distance '{self.output_distance.name}' is not zero-one or L-inf"
        finite = [name for name, t in self.program.inputs if not isinstance(t, ir.RealT)]
        if finite:
            return None, f"the input '{finite[0]}' is not real"
        try:
            return output_support(self.program), None
        except NotSymbolic as err:
            return None, err.message

    def orbit(self, u: Mapping):
        """(key, permutation) of u's orbit: key the sorted sample triples, permutation[j] the
        index at u of the representative's j-th sample; None off the class path."""
        if self.shape is None:
            return None
        samples = samples_at(self.shape, bind(self.program, u))
        if samples is None:
            return None
        order = sorted(range(len(samples)), key=lambda j: samples[j])
        return tuple(samples[j] for j in order), order

    def det(self, u: Mapping) -> dict | None:
        """det(u) of a recognised argmax with a noise-free det: the first index of the best
        centre; else from the det regions; None off both (the caller runs the noise-free program)."""
        if self.regions is not None and self.regions.scan:
            return self.regions.det(self._flat(u))[1]
        if self.shape is None or not self.noise_free_det:
            return None
        if self.argmax is not None:   # the centres are the inputs themselves: no Fraction arithmetic
            return {self.shape.output: self.shape.label(self.argmax_key(self._flat(u))[0])}
        samples = samples_at(self.shape, bind(self.program, u))
        if samples is None:
            return None
        sign = -1 if self.shape.minimum else 1   # max gives the first index of the best centre
        best = max(range(len(samples)), key=lambda k: sign * samples[k][2])
        return {self.shape.output: self.shape.label(best + 1)}

    def distribution(self, u: Mapping, compute: Callable):
        """u's output distribution: from its orbit's representative when on the class path,
        else `compute(u)`."""
        self.points += 1
        found = self.orbit(u)
        if found is None:
            self.distributions += 1
            return compute(u)
        key, order = found
        probs = self._orbits.get(key)
        if probs is None:
            self.distributions += 1
            probs = self._orbits[key] = argmax_probabilities(list(key), minimum=self.shape.minimum)
            if len(self._orbits) > MAX_ORBITS:
                self._orbits.popitem(last=False)
        else:
            self._orbits.move_to_end(key)
        at_u = [None] * len(order)
        for j, i in enumerate(order):
            at_u[i] = probs[j]
        return distribution_of_argmax(self.program, bind(self.program, u), at_u, self.shape.labels)

    def _flat(self, u: Mapping) -> Mapping:
        """u with flat input names (grid points already are; `--input q=[...]` is bound)."""
        return u if u.keys() == self._name_set else bind(self.program, u)   # a set comparison in C

    def dd(self, u: Mapping, det_u: Mapping, compute: Callable) -> Disagreement | None:
        """dd(u) shared by (det output, u on its region's support), `compute(u, det_u)` on a miss;
        None where it is not shared (the caller computes it).  For a recognised argmax of plain
        reads the key is `argmax_key` less the det index."""
        if self.share_argmax_dd:
            key = tuple(map(_cheap, self.argmax_key(self._flat(u))[1:]))
        elif not self.share_dd:
            return None
        else:
            det_key = self.regions.key_of(det_u)
            key = det_key, _cheap_values(self._flat(u), self.regions.support[det_key])
        found = self._dd.get(key)
        if found is None:
            found = compute(u, det_u)
            if len(self._dd) < MAX_SUPPORT_KEYS:
                self._dd[key] = Disagreement(found.value, found.attained)
        return found

    def argmax_key(self, flat: Mapping) -> tuple:
        """(det index, the largest value, the largest of the others, whether an index before det's has
        that value) at u, values negated for argmin.  `claims.argmax_dd` proves dd(u) = (largest -
        next) / 2, attained exactly when an index before det's reaches the next value: a function of
        the last three, so inputs with equal keys share dd (however their other values lie)."""
        last = self._last_argmax   # det and dd ask for the same input in turn
        if last is not None and last[0] is flat and last[1] == flat:
            return last[2]
        values = [flat[name] for name in self.argmax.means]
        if self.argmax.minimum:
            values = [-v for v in values]
        best = max(range(len(values)), key=values.__getitem__)   # the first index of the largest
        top = values[best]
        if len(values) == 1:
            key = 1, top, None, False
        else:
            before = values[:best]
            runner_up = max(before + values[best + 1:])
            key = best + 1, top, runner_up, runner_up in before
        self._last_argmax = (flat, dict(flat), key)
        return key

    def report_key(self, claim, u: Mapping) -> tuple | None:
        """A key whose equal values give equal reports but for the input (`accuracy.class_reports`),
        or None where there is none yet.  The key is (det region, u on the region's support: dd(u)
        is a function of it, see dd), and per gamma of the claim at that dd the values of u on the
        supports of the outputs in the ball of det(u) (P_err is a function of them, see
        ball_probability); the decision is a function of P_err and beta at (alpha, gamma).  None
        off the support path with shared dd, or before dd was computed once for u's region key."""
        if not self.share_dd or self.support is None or not self.regions.scan \
                or type(claim.output_distance) not in _BALL_BY_DET:
            return None
        flat = self._flat(u)
        det_key, det_u = self.regions.det(flat)
        dd_key = (det_key, _cheap_values(flat, self.regions.support[det_key]))
        dd = self._dd.get(dd_key)
        if dd is None:
            return None
        key = [dd_key]
        alpha = dd.value if claim.alpha == "dd" else claim.alpha
        supports = self.support.support
        for gamma in claim.gamma_values(alpha):
            if type(gamma) not in (int, Fraction):
                return None
            outputs = self._ball_of(claim, det_key, det_u, gamma)
            key.append((_cheap(gamma), tuple([_cheap_values(flat, supports[o]) for o in outputs])))
        return tuple(key)

    def report_positions(self, claim, u: Mapping) -> tuple | None:
        """(det region key, the input names `report_key` reads at u): every input that agrees with u
        on these names has u's report key (det's paths read only its region's names, and dd, gamma
        and the ball are functions of them); None where `report_key(claim, u)` is None."""
        key = self.report_key(claim, u)
        if key is None:
            return None
        det_key = key[0][0]   # report_key found u's dd and every ball it reads under (det key, u on its support)
        read = set(self.regions.support[det_key])
        alpha = self._dd[key[0]].value if claim.alpha == "dd" else claim.alpha
        for gamma in claim.gamma_values(alpha):
            for o in self._ball_by_region[(id(claim), det_key, gamma)][1]:
                read.update(self.support.support[o])
        return det_key, tuple(name for name in self._names if name in read)

    def _ball_of(self, claim, det_key: tuple, det_u: Mapping, gamma) -> tuple:
        """`_ball` by det region key (no sorting of det(u) per input)."""
        key = (id(claim), det_key, gamma)
        found = self._ball_by_region.get(key)
        if found is None or found[0] is not claim:
            found = self._ball_by_region[key] = (claim, self._ball(claim, det_u, Fraction(gamma)))
        return found[1]

    def ball_probability(self, claim, u: Mapping, det_u: Mapping, gamma, compute: Callable) -> ExpFrac | None:
        """P[P(u) in B(det(u), u, gamma)] from per-output probabilities shared by support key, or
        None off the support path or for an output distance whose ball depends on more than det
        (the caller then uses the distribution at u).  `compute(u)` is u's output distribution."""
        if self.released is not None:   # made only where there are no output supports
            return self._released_probability(claim, u, det_u, gamma, compute)
        if self.support is None or type(claim.output_distance) not in _BALL_BY_DET:
            return None
        self.points += 1
        flat = self._flat(u)
        support = self.support
        row = {name: _cheap(x) for name, x in flat.items()}
        keys = tuple(support.key(o, row) for o in self._ball(claim, det_u, gamma))
        total = self._totals.get(keys)
        if total is not None:   # the same object for equal keys: its hash and text are made once
            return total
        total = _ZERO
        for key in keys:
            p = self._by_support.get(key)
            if p is None:   # key[0] is the output; read off u's distribution (kept if the cache has room)
                p = self._fill(row, compute(u)).get(key[0], _ZERO)
            total = total + p
        if len(self._totals) < MAX_SUPPORT_KEYS:
            self._totals[keys] = total
        return total

    def _released_probability(self, claim, u: Mapping, det_u: Mapping, gamma, compute: Callable):
        """P[P(u) in the ball of det(u) at gamma] shared by `ReleasedValues.key` (computed by the
        claim at the first input of a key), or None for an output distance the proof does not cover."""
        distance = claim.output_distance
        if type(distance) is not LinfOutput or not self.released.real_outputs <= set(distance.numeric):
            return None
        self.points += 1
        flat = self._flat(u)
        key = (self.released.key(self.regions.key_of(det_u), flat, _cheap), distance, gamma)
        found = self._released.get(key)
        if found is None:
            last = self._last_released   # the next gamma at the same input reuses its distribution
            if last is None or last[0] != flat:
                self.distributions += 1
                last = self._last_released = (dict(flat), compute(u))
            found = ExpFrac.of(claim.ball_probability(last[1], u, det_u, gamma))
            if len(self._released) < MAX_SUPPORT_KEYS:
                self._released[key] = found
        return found

    def _fill(self, row: dict, dist: Distribution) -> dict:
        """Cache P[out = o] at the input (its values as `_cheap` keys) for every output o (0 for those the chain never
        reaches) while the cache has room; returns the marginal {o: P[out = o]}."""
        self.distributions += 1
        marginal = dist.marginal()
        missing = [o for o in marginal if o not in self.support.support]
        if missing:   # the symbolic walk's paths are complete: this is a bug, not a verdict
            raise RuntimeError(f"{self.program.name}: output {missing[0]} is not among the symbolic walk's")
        if len(self._by_support) + len(self.support.outputs) <= MAX_SUPPORT_KEYS:
            for o in self.support.outputs:
                self._by_support.setdefault(self.support.key(o, row), marginal.get(o, _ZERO))
        return marginal

    def _ball(self, claim, det_u: Mapping, gamma) -> tuple:
        """The outputs in the ball of det_u, asked of the claim itself (one output at a time)."""
        key = (claim.output_distance, tuple((k, _hashable(v)) for k, v in sorted(det_u.items())), gamma)
        found = self._balls.get(key)
        if found is None:
            inside = []
            for o in self.support.outputs:
                one = Distribution(self.program, {}, {Outcome(o): Entry(_ONE, _ONE)}, {})
                p = ExpFrac.of(claim.ball_probability(one, {}, det_u, gamma))
                if p == _ONE:
                    inside.append(o)
                elif p != _ZERO:
                    raise RuntimeError(f"the ball of {dict(det_u)} gives one output probability {p}")
            found = self._balls[key] = tuple(inside)
        return found

    def decide(self, p_error, bound, run: Callable):
        """The decision of bound - p_error >= 0, shared by every input with the same exact pair
        (`run(sentence)` decides it); off the class path `run` is called each time (it keeps its
        own cache of recent sentences, as before)."""
        if not self.enabled:
            return run(bound - p_error)
        key = (p_error, bound)
        found = self._decisions.get(key)
        if found is None:
            self.decisions += 1
            found = run(bound - p_error)
            if len(self._decisions) < MAX_DECISIONS:
                self._decisions[key] = found
        return found

    def work(self, inputs: int, in_process: bool) -> dict:
        """What the report says about how the work was shared, and why output supports do not
        apply when they do not.  The counts are this process's: with workers (--jobs, Dask) each
        counts its own caches, so the fields are there with null rather than missing or partial."""
        out = {"path": self.path if self.enabled else POINT_PATH + " (classes off)", "inputs": inputs}
        if self.enabled and self.shape is None and self.support is None:
            out["support_refused"] = self.support_refusal
        if self.share_dd:
            out["dd"] = "shared by det region"
        elif self.share_argmax_dd:
            out["dd"] = "shared by the two largest values"
        out.update({"distributions": self.distributions if in_process else None,
                    "decisions": self.decisions if in_process and self.enabled else None})
        return out


class DetRegions:
    """The noise-free program's paths over symbolic real inputs, grouped by det output: det(u) is
    the output of the one path whose condition holds at u; `support[o]` the inputs the
    conditions of o's paths and its real outputs' linear forms read (in input order).  A lookup of
    det(u), not a region type (`accuracy.box` makes box or polyhedral regions of the same paths).

    A real det output is a linear form in the inputs (NumericSparse's `val[i] = q[i]`); its key
    is the template (the forms themselves), and det(u) evaluates the forms at u.  Such templates
    are accepted only when their finite (DOM/Bool) outputs tell them apart, so det(w) = det(u)
    means w lies in u's template's region with the same form values: a set over `support` alone."""

    def __init__(self, program: ir.Program, paths: list):
        self.program = program
        self.paths = []      # (det output key, det output, condition compiled by _compiled)
        self.forms: dict = {}     # det output key -> ((real output, its LinForm), ...) read at u
        self.templates: dict = {}   # det output key -> the path's outputs (real ones as LinForms)
        order = {name: k for k, name in enumerate(noise_free.real_inputs(program))}
        used: dict = {}
        for path in paths:
            # a constant output keyed by its number, as det(u) (noise_free.run) gives it
            key = tuple((name, _hashable(v.const if isinstance(v, LinForm) and v.is_constant() else v))
                        for name, v in path.outputs.items())
            forms = tuple((name, v) for name, v in path.outputs.items()
                          if isinstance(v, LinForm) and not v.is_constant())
            outputs = {name: v.const if isinstance(v, LinForm) else v for name, v in path.outputs.items()}
            self.paths.append((key, outputs, [_compiled(c) for c in path.condition]))
            self.templates[key] = dict(path.outputs)
            if forms:
                self.forms[key] = forms
            found = used.setdefault(key, set())
            for c in path.condition:
                found |= c.variables()
            for _, form in forms:
                found.update(name for name, _ in form.coeffs)
        self.support = {key: tuple(sorted(names, key=order.__getitem__)) for key, names in used.items()}
        # det by scanning the paths only when they are few (a program with 2^m paths is faster to run)
        self.scan = len(self.paths) <= MAX_SCANNED_PATHS
        self._finite_names = [name for name, t in program.outputs if isinstance(t, (ir.DomT, ir.BoolT))]
        # finite outputs as det(u) gives them: a constant LinForm of a template read as its number
        self._by_finite = {self._finite_key(outputs): key for key, outputs, _ in self.paths}

    def _finite_key(self, outputs: Mapping) -> tuple:
        return tuple((name, _hashable(outputs[name])) for name in self._finite_names)

    @staticmethod
    def of(program: ir.Program) -> "DetRegions | None":
        """The regions, or None when they do not apply: a Bool/DOM input (regions per assignment),
        a real output on templates whose finite outputs do not tell them apart, or a noise-free
        program the path enumeration refuses."""
        if any(not isinstance(t, ir.RealT) for _, t in program.inputs):
            return None
        try:
            paths = noise_free.paths(program, {}, noise_free.real_inputs(program))
        except UserError:
            return None
        real = {name for name, t in program.outputs if isinstance(t, ir.RealT)}
        formed = {name for p in paths for name, v in p.outputs.items() if isinstance(v, LinForm)}
        if not formed <= real:
            return None
        regions = DetRegions(program, paths)
        if formed and len(regions._by_finite) != len(regions.support):
            return None
        return regions

    def det(self, u: Mapping) -> tuple:
        """(det output key, det(u)); u maps flat real input names to values."""
        for key, outputs, condition in self.paths:
            for terms, holds, rhs, seen in condition:
                if len(terms) == 1:   # its truth depends on one value: remembered by the value
                    name, c = terms[0]
                    v = u[name]
                    found = seen.get(id(v))
                    if found is None or found[0] is not v:
                        found = (v, holds(v if c == 1 else c * v, rhs))
                        if len(seen) < _SEEN_VALUES:   # the value is kept, so its id is not reused
                            seen[id(v)] = found
                    if not found[1]:
                        break
                elif not holds(sum(c * u[name] for name, c in terms), rhs):
                    break
            else:
                forms = self.forms.get(key)
                if forms:   # real outputs: the template's forms at u (noise_free.run's Fractions)
                    outputs = dict(outputs)
                    for name, form in forms:
                        outputs[name] = sum((c * u[n] for n, c in form.coeffs), form.const)
                return key, outputs
        raise AssertionError(f"no noise-free path of {self.program.name} holds at {dict(u)}")

    def key_of(self, det_u: Mapping) -> tuple:
        """The det output key (template) of det(u)."""
        if self.forms:
            return self._by_finite[self._finite_key(det_u)]
        return tuple((name, _hashable(v)) for name, v in det_u.items())


_COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt}


_SEEN_VALUES = 256   # values whose truth a one-input condition remembers


def _compiled(c) -> tuple:
    """An lp.Constraint as (terms, comparison, rhs, memo): `Constraint.holds` without building a
    Fraction per term (the inputs are exact numbers already); the memo is DetRegions.det's."""
    return c.coeffs, _COMPARE[c.op], c.rhs, {}


def _cheap(x):
    """A cache key for an exact number: equal keys are equal numbers, and hashing a pair of ints
    is much cheaper than hashing a Fraction."""
    return (x.numerator, x.denominator) if type(x) is Fraction else x


def _cheap_values(flat: Mapping, names) -> tuple:
    """_cheap(flat[name]) for each name, written inline: it runs once per input of a grid and support."""
    return tuple([(v.numerator, v.denominator) if type(v) is Fraction else v for v in map(flat.__getitem__, names)])


def _hashable(value):
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value
