"""The proofs of "private for no constant", each used only where its precondition holds.

Why: when the coupling bound is infinite, the program may still be private (the bound is
only an upper bound).  A program is called private for no constant d only when one of the
patterns of docs/design/every_length.md section 3 is reachable *and* the precondition of its
written proof is checked here: every guard shows in the outputs (`hidden_guard`), a
pumped pair or a pumped guard uses noisy reads, a noise-free guard has both outcomes
within one threshold segment, one after the other, and a stored chain (section 3b) pumps steps
of one direction that draw and release nothing.  Otherwise `leaks` finds nothing and
the verdict is "cannot decide" (exit 2), never a refutation without a witness.
"""
from __future__ import annotations

from dipc_plus.execution.lazy import lazy_import
from dipc_plus.privacy.online.automaton import EXIT, Automaton

nx = lazy_import("networkx")


def hidden_guard(auto: Automaton):
    """A step whose guard outcomes need not show in the outputs, or None.  The outcomes show when
    every step from the same node with other outcomes (of the comparisons with the same stored
    variables: another path through the iteration) writes a different constant to some output
    both write; then an output sequence fixes the path, which every proof of section 3 needs (a
    guard whose outcomes look alike leaks nothing, however often it repeats)."""
    states = auto.states()
    for st in auto.steps:
        if not st.guards or st.src not in states:
            continue
        mine = st.writes()
        for other in auto.steps:
            if other.src != st.src or not other.guards or other.outcomes() == st.outcomes():
                continue
            theirs = other.writes()
            if not any(k in theirs and theirs[k] != v for k, v in mine.items()):
                return st
    return None


def _components(nodes, steps) -> tuple:
    """The graph of the steps over `nodes` and each node's strongly connected component (a number):
    a step repeats without bound exactly when its ends share one."""
    G = nx.MultiDiGraph()
    G.add_nodes_from(nodes)
    G.add_edges_from((st.src, st.dst) for st in steps if st.dst != EXIT)
    return G, {s: n for n, scc in enumerate(nx.strongly_connected_components(G)) for s in scc}


def leaks(auto: Automaton) -> list[str]:
    """The patterns of section 3 reachable in the automaton whose preconditions hold.  None
    when a reachable step releases a gap r - x: the written proofs compare step probabilities,
    and a released gap turns its step's probability into a density in the gap, which they do
    not cover (so a program with a gap is verified by the bound or left undecided)."""
    states = auto.states()
    steps = [s for s in auto.steps if s.src in states]
    if any(st.has("gap") for st in steps):
        return []
    found = _cycle_leaks(auto, states, steps)
    # Within a segment: the graph of steps that neither re-sample a stored variable nor store a read.
    seg = [st for st in steps if st.dst != EXIT and not st.has("resample", "store")]
    G0, comp0 = _components(states, seg)
    # the guard steps that repeat without bound within a segment, with comparisons of one outcome
    pumped = [st for st in seg if st.direction() is not None and comp0[st.src] == comp0[st.dst]]
    found += _pumped_leaks(auto, steps, pumped, G0)
    found += [x for x in (_pumped_on_constant(auto, pumped, G0), _stored_chain(auto, states, steps),
                          _noise_free_pair(auto, steps, G0)) if x]
    return list(dict.fromkeys(found))


def _pumped_on_constant(auto: Automaton, pumped, G0) -> str | None:
    """A noisy guard that repeats in the first segment when its thresholds are constants (x <- c
    before the loop, reached from the start without a draw or a store): each pass gains the fixed
    factor F(c + B)/F(c) > 1 (docs/design/every_length.md, section 3).  With several stored variables
    the step's comparisons must all have one outcome, each against a constant start (then the step is
    one comparison with their max for tops, their min for bots: a constant again)."""
    first = nx.descendants(G0, auto.start) | {auto.start}
    for st in pumped:
        if st.src in first and all(auto.constant_start(g.var) for g in st.guards):
            return ("pumped guard on a constant threshold: a noisy comparison with the constant start value of "
                    "the stored variable repeats without bound: " + auto.describe_step(st))
    return None


def _cycle_leaks(auto: Automaton, states, steps) -> list[str]:
    """Leaks of a cycle as a whole: it re-samples the threshold and compares with it, or it
    releases a fresh noisy value on every turn."""
    _, comp = _components(states, steps)
    found = []
    by_comp = {}
    for st in steps:
        if st.dst != EXIT and comp[st.src] == comp[st.dst]:
            by_comp.setdefault(comp[st.src], []).append(st)
    for sts in by_comp.values():
        # a cycle that stores a read chains its passes (a pass compares with the last one's read); with
        # several stored variables a pass may also compare with one it does not draw again, which ties
        # the passes together: the proof is used for one stored variable only
        if len(auto.variables) == 1 and any(st.has("resample") for st in sts) and any(st.guard for st in sts) \
                and not any(st.has("store") for st in sts):
            found.append("leaking cycle: a cycle re-samples the threshold and compares with it: "
                         + auto.describe_step(next(st for st in sts if st.guard)))
        for st in sts:
            # a fresh noisy output, or a released read that no guard compares (docs, section 3)
            if any(e.kind == "noisy_out" or e.kind == "disclose" and st.guard is None and not st.has("store")
                   for e in st.events):
                found.append("disclosing cycle: a cycle releases a noisy value of q[i] each time: "
                             + auto.describe_step(st))
                break
    return found


def _chain_step(st) -> bool:
    """A step a stored chain may pump: one noisy read compared with outcomes of one direction, no
    draw, and nothing released (a release or a noisy output depends on the moved q[i] itself)."""
    return st.direction() is not None and not st.has("resample", "disclose", "gap", "noisy_out")


def _stored_chain(auto: Automaton, states, steps) -> str | None:
    """A stored chain (docs/design/every_length.md, section 3b): a cycle of steps of one direction
    (`_chain_step`) with two consecutive steps, the first storing its read in a variable y and the
    next comparing its read with y.  Pumped, the reads form a monotone chain, and the pair of
    consecutive reads loses a factor per pass whatever the other stored variables hold."""
    for top in (True, False):
        pumped = [st for st in steps if st.dst != EXIT and _chain_step(st) and st.direction() is top]
        G, comp = _components(states, pumped)
        for first in pumped:
            stored = {e.var for e in first.events if e.kind == "store"}
            if not stored or comp[first.src] != comp[first.dst]:
                continue
            for second in pumped:
                if second.src == first.dst and comp[second.dst] == comp[first.src] \
                        and stored & {g.var for g in second.guards}:
                    return ("stored chain: a cycle of '" + ("above" if top else "below") + "' steps stores each "
                            "compared read and compares the next read with it, so the reads are pumped as a "
                            "monotone chain: " + auto.describe_step(first) + ", then " + auto.describe_step(second))
    return None


def _pumped_leaks(auto: Automaton, steps, pumped_steps, G0) -> list[str]:
    """Leaks of a noisy guard that repeats within one threshold segment (a pumped guard):
    both outcomes pumped, or a release on a step of the opposite outcome around it.  A pumped step
    has comparisons of one outcome only (`Step.direction`); a leaking pair needs a top and a bot
    step that compare with a common stored variable (the proof's one threshold t: a top against
    several is one against their max, whose gain is at least the gain against t, and a bot's
    against their min likewise, by log-concavity)."""
    found = []
    pumped = {True: {}, False: {}}     # outcome -> node -> the stored variables its pumped steps compare
    for st in pumped_steps:
        pumped[st.direction()].setdefault(st.src, set()).update(g.var for g in st.guards)
    for top in (True, False):
        for s, xs in pumped[top].items():
            ahead = nx.descendants(G0, s) | {s}
            behind = nx.ancestors(G0, s) | {s}
            if any((o in ahead or o in behind) and xs & ys for o, ys in pumped[not top].items()):
                found.append("leaking pair: within one threshold segment both 'above' and 'below' steps repeat "
                             "without bound")
                break
            if len(auto.variables) != 1:
                continue   # the disclosure proof compares with one threshold: used for one stored variable
            disclosure = _disclosure_around(auto, steps, top, ahead, behind)
            if disclosure is not None:
                found.append(disclosure)
    return found


def _disclosure_around(auto: Automaton, steps, top: bool, ahead, behind) -> str | None:
    """The first step with the opposite guard that releases the noisy read next to a pumped guard."""
    for st in steps:
        g = st.guard
        if g is not None and g.top != top and st.has("disclose") and (st.src in ahead or st.dst in behind):
            return ("disclosure after a pumped guard: the noisy read is released on a step whose "
                    "guard is the opposite of a repeating one in the same segment: " + auto.describe_step(st))
    return None


def _noise_free_pair(auto: Automaton, steps, G0) -> str | None:
    """Two noise-free guard steps of opposite outcomes, the second reachable from the first
    without drawing the threshold again (the precondition of the noise-free proof: a bot
    then a top, or a top then a bot, on one threshold), said as the pattern; or None."""
    plain = [st for st in steps if len(st.guards) == 1 and not st.guard.noisy and not st.has("resample", "store")]
    for first in plain:
        if first.dst == EXIT:
            continue
        ahead = nx.descendants(G0, first.dst) | {first.dst}
        for second in plain:
            if second.guard.top != first.guard.top and second.guard.var == first.guard.var and second.src in ahead:
                return ("noise-free guard: q[i] itself is compared with the threshold, and both outcomes follow "
                        "each other within one threshold segment: " + auto.describe_step(first) + ", then "
                        + auto.describe_step(second))
    return None
