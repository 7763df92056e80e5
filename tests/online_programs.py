"""Small online programs (the SVT family) in and just outside the every-length class.

Why: `dipc privacy --every-length` gives a verdict for every m, which a user cannot
re-check by running the program; tests/test_every_length_generator.py compares it with
the exact engine at small m on many programs that differ from the Sparse Vector shape in
one or two statements.  This module only *writes* programs and claim files: a `Spec`
holds the choices (which variables are outputs, how the comparison is made and used,
counters and cutoffs, m-dependent constants, re-sampling, exits, real releases, a read
stored in the threshold `rT <- r`, a shifted mean `q[i] + k`, a second stored variable `rU`, an
output counted after the loop from the per-step outputs, discrete Laplace draws), `render`
turns it into `.dip` text and a claim, `random_spec` draws one from a seeded generator,
and `AUDIT_CASES` are the five programs of issue 25 written as specs.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from fractions import Fraction

# The events of every real output: a released value below or above 0.
REAL_EVENTS = '["(-inf, 0]", "(0, inf)"]'


@dataclass(frozen=True)
class Spec:
    """One program of the family (defaults: Lyu-Su-Li Algorithm 1 with c = 1)."""
    thr_rate: Fraction = Fraction(1, 2)       # rT <- Lap(thr_rate*eps, T)
    read_rate: Fraction | None = Fraction(1, 4)   # r <- Lap(read_rate*eps, q[i]); None: compare q[i] itself
    read_rate_over_c: bool = False            # the read's rate is read_rate*eps/c (c may be m)
    op: str = ">="                            # r op rT
    guard: str = "if"                         # "if": if r op rT; "bool": b <- r op rT; if b;
                                              # "flag": flag[i] <- r op rT; if flag[i];
                                              # "flag_only": flag[i] <- r op rT and no if
    flag_scalar: bool = False                 # flag is a scalar output (else flag[i], an array)
    top_sym: str = "top"                      # out[i] on the top / bot branch ("" writes nothing)
    bot_sym: str = "bot"
    top_release: str = ""                     # val[i] on top: "" | "read" (val[i] <- r) | "noisy" (fresh Lap)
                                              # | "gap" (val[i] <- r - rT)
    bot_release: str = ""
    noisy_rate: Fraction = Fraction(1, 4)     # rate of a fresh Lap(.., q[i]) release
    index_out: bool = False                   # idx <- i on top (an index output)
    thr_out: str = ""                         # "" | "self" (rT itself is an output) | "before" (thr <- rT
                                              # once) | "loop" (thr <- rT at each step)
    read_out: str = ""                        # "" | "self" (the read variable is the output `last`)
                                              # | "copy" (last <- r at each step)
    resample: str = ""                        # "" | "top" (rT re-sampled after a top) | "every" (at each step)
    resample_rate: Fraction = Fraction(1, 2)
    cutoff: str = "exit"                      # "" (no exit) | "exit" (exit after a top) | "count"
                                              # (count tops, exit at c) | "bot_exit" (exit after a bot)
                                              # | "both_exit" (exit after either outcome)
    c: str = "1"                              # the cutoff parameter: "1", "2" or "m"
    count_dom: str = "c"                      # var count: 0..count_dom (c, or m)
    m0: int = 1                               # the claim's own m
    budget: Fraction = Fraction(1)            # claimed budget*eps
    grid: tuple = (0, 1)                      # q[i] ranges over these values
    mean_shift: int = 0                       # r <- Lap(.., q[i] + mean_shift)
    store: str = ""                           # "" | "top" | "bot" | "both": rT <- r on that branch (x <- r)
    second: str = ""                          # issue 41: a second stored variable rU <- Lap(second_rate*eps, T
                                              # + 1), the read compared with it first (output out2[i]):
                                              # "" | "compare" | "store" (rU <- r on its top) | "exit"
                                              # (exit on its top) | "same" (compared again with rT: refused)
    second_rate: Fraction = Fraction(1, 2)
    counted: str = ""                         # issue 40: an output computed after the loop from a per-step
                                              # array: "" | "bots" / "tops" (how many out[i] are bot / top)
                                              # | "score" (Hamming distance of out to top..top bot..bot)
                                              # | "last" (the index of the last top) | "flags" (how many flag[i])
    counted_only: bool = False                # the per-step array it reads is a `var` (only the count released)
    stop_flag: bool = False                   # every `exit` becomes `done <- true`, the body `if not done`
    dlap: bool = False                        # issue 40: q: int[m] and every draw DLap (releases int)

    @property
    def real_outputs(self) -> list[str]:
        outs = []
        if self.top_release or self.bot_release:
            outs.append("val")
        if self.thr_out:
            outs.append("rT" if self.thr_out == "self" else "thr")
        if self.read_out:
            outs.append("last")
        return outs

    def uses_count(self) -> bool:
        return self.cutoff == "count"


def _rate(k: Fraction, over_c: bool = False) -> str:
    num, den = k.numerator, k.denominator
    head = "eps" if num == 1 else f"{num}*eps"
    if over_c:
        return f"{head}/({den}*c)" if den != 1 else f"{head}/c"
    return head if den == 1 else f"{head}/{den}"


def render(spec: Spec) -> str:
    """The `.dip` text of `spec` (each statement on its own line, so a refusal's line is exact)."""
    s = spec
    num = "int" if s.dlap else "real"
    lines = ["param m = 3", f"param c = {s.c}", "param T = 0", "type Ans = {none, bot, top}",
             f"input q: {num}[m]"]
    writes_out = bool(s.top_sym or s.bot_sym)
    counted_from = "flag" if s.counted == "flags" else "out" if s.counted else ""
    if writes_out:
        lines.append(("var" if counted_from == "out" and s.counted_only else "output") + " out: Ans[m]")
    has_flag = s.guard in ("flag", "flag_only")
    if has_flag:
        kind = "var" if counted_from == "flag" and s.counted_only else "output"
        lines.append(f"{kind} flag: bool" if s.flag_scalar else f"{kind} flag: bool[m]")
    if "val" in s.real_outputs:
        lines.append(f"output val: {num}[m]")
    if s.thr_out == "self":
        lines.append(f"output rT: {num}")
    elif s.thr_out:
        lines.append(f"output thr: {num}")
    if s.read_out:
        lines.append(f"output last: {num}")
    if s.index_out:
        lines.append("output idx: 0..m")
    if s.second:
        lines.append("output out2: Ans[m]")
    if s.counted:
        lines.append(f"output {COUNTED_NAMES[s.counted]}: 0..m")
    if s.uses_count():
        lines.append(f"var count: 0..{s.count_dom} = 0")
    if s.stop_flag:
        lines.append("var done: bool = false")
    if not (writes_out or has_flag or s.real_outputs or s.index_out or s.counted):
        raise ValueError("a spec with no output")
    init = []
    if writes_out:
        init.append("    out[i] <- none")
    if has_flag and not s.flag_scalar:
        init.append("    flag[i] <- false")
    if "val" in s.real_outputs:
        init.append("    val[i] <- 0")
    if s.second:
        init.append("    out2[i] <- none")
    if init:
        lines += ["for i = 1 to m do", *init, "end"]
    if s.index_out:
        lines.append("idx <- 0")
    if has_flag and s.flag_scalar and (s.second == "exit" or s.stop_flag):
        lines.append("flag <- false")   # the second variable's exit (or the stop flag) may skip flag's writes
    if s.stop_flag:                     # the body runs under `if not done`: a default for its scalar outputs
        lines += ["last <- 0"] * bool(s.read_out) + ["thr <- 0"] * (s.thr_out == "loop")
    elif s.counted and _exits(s):       # a default, so the program is valid (and the class refuses the exit)
        lines.append(f"{COUNTED_NAMES[s.counted]} <- 0")
    lap = "DLap" if s.dlap else "Lap"
    lines.append(f"rT <- {lap}({_rate(s.thr_rate)}, T)")
    if s.second:
        lines.append(f"rU <- {lap}({_rate(s.second_rate)}, T + 1)")
    if s.thr_out == "before":
        lines.append("thr <- rT")
    lines.append("for i = 1 to m do")
    body = []
    if s.resample == "every":
        body.append(f"rT <- {lap}({_rate(s.resample_rate)}, T)")
    if s.thr_out == "loop":
        body.append("thr <- rT")
    read = "last" if s.read_out == "self" else "r"
    if s.read_rate is not None:
        mean = "q[i]" if not s.mean_shift else f"q[i] + {s.mean_shift}" if s.mean_shift > 0 else f"q[i] - {-s.mean_shift}"
        body.append(f"{read} <- {lap}({_rate(s.read_rate, s.read_rate_over_c)}, {mean})")
        x = read
    else:
        x = "q[i]"
    if s.read_out == "copy":
        body.append("last <- r" if s.read_rate is not None else f"last <- {lap}(eps/4, q[i])")
    elif s.read_out == "self" and s.read_rate is None:
        body.append(f"last <- {lap}(eps/4, q[i])")
    if s.second:
        body += _second_block(s, x)
    cond = f"{x} {s.op} rT"
    flag_ref = "flag" if s.flag_scalar else "flag[i]"
    if s.guard == "if":
        body.append(f"if {cond} then")
    elif s.guard == "bool":
        body += [f"b <- {cond}", "if b then"]
    elif s.guard == "flag":
        body += [f"{flag_ref} <- {cond}", f"if {flag_ref} then"]
    elif s.guard == "flag_only":
        body.append(f"{flag_ref} <- {cond}")
    else:
        raise ValueError(s.guard)
    if s.guard != "flag_only":
        top, bot = _branch(s, "top"), _branch(s, "bot")
        body += ["    " + t for t in top]
        if bot:
            body += ["else", *("    " + t for t in bot)]
        body.append("end")
    if s.stop_flag:
        body = ["if not done then", *("    " + _stop(b) for b in body), "end"]
    lines += ["    " + b for b in body]
    lines.append("end")
    if s.counted:
        lines += _counted_tail(s)
    return "\n".join(lines) + "\n"


COUNTED_NAMES = {"bots": "nbots", "tops": "ntops", "score": "score", "last": "lastTop", "flags": "nflags"}


def _exits(s: Spec) -> bool:
    return s.guard != "flag_only" and s.cutoff != "" or s.second == "exit"


def _stop(line: str) -> str:
    """`exit` as a flag that ends the answering (a counted output needs every run to reach the tail)."""
    return line.replace("exit", "done <- true") if line.strip() == "exit" else line


def _counted_tail(s: Spec) -> list[str]:
    """The statements after the loop that compute the counted output from the per-step array."""
    name = COUNTED_NAMES[s.counted]
    step = {"bots": ["if out[i] == bot then", f"    {name} <- {name} + 1", "end"],
            "tops": ["if out[i] == top then", f"    {name} <- {name} + 1", "end"],
            "flags": ["if flag[i] then", f"    {name} <- {name} + 1", "end"],
            "last": ["if out[i] == top then", f"    {name} <- i", "end"],
            "score": ["if 2*i <= m then", "    if out[i] != top then", f"        {name} <- {name} + 1", "    end",
                      "else", "    if out[i] != bot then", f"        {name} <- {name} + 1", "    end", "end"]}
    return [f"{name} <- 0", "for i = 1 to m do", *("    " + t for t in step[s.counted]), "end"]


def _second_block(s: Spec, x: str) -> list[str]:
    """The comparison with the second stored variable rU (issue 41), before the main one."""
    other = "rT" if s.second == "same" else "rU"
    top = ["    out2[i] <- top"] + (["    rU <- " + x] if s.second == "store" and x != "q[i]" else []) \
        + (["    exit"] if s.second == "exit" else [])
    return [f"if {x} >= {other} then", *top, "else", "    out2[i] <- bot", "end"]


def _branch(s: Spec, side: str) -> list[str]:
    sym = s.top_sym if side == "top" else s.bot_sym
    release = s.top_release if side == "top" else s.bot_release
    out = []
    if sym:
        out.append(f"out[i] <- {sym}")
    if release == "read":
        read = "last" if s.read_out == "self" else "r"
        out.append(f"val[i] <- {read}" if s.read_rate is not None
                   else f"val[i] <- {'DLap' if s.dlap else 'Lap'}(eps/4, q[i])")
    elif release == "noisy":
        out.append(f"val[i] <- {'DLap' if s.dlap else 'Lap'}({_rate(s.noisy_rate)}, q[i])")
    elif release == "gap":
        read = "last" if s.read_out == "self" else "r" if s.read_rate is not None else "q[i]"
        out.append(f"val[i] <- {read} - rT")
    if s.store in (side, "both"):
        out.append("rT <- " + (("last" if s.read_out == "self" else "r") if s.read_rate is not None else "q[i]"))
    if side == "top":
        if s.index_out:
            out.append("idx <- i")
        if s.resample == "top":
            out.append(f"rT <- {'DLap' if s.dlap else 'Lap'}({_rate(s.resample_rate)}, T)")
            if s.thr_out == "loop":
                out.append("thr <- rT")
        if s.cutoff == "exit":
            out.append("exit")
        elif s.cutoff == "count":
            bound = "m" if s.count_dom == "m" else "c"
            out += ["count <- count + 1", f"if count >= {bound} then", "    exit", "end"]
    if s.cutoff == "both_exit" or (side == "bot" and s.cutoff == "bot_exit"):
        out.append("exit")
    return out


def claim_text(spec: Spec, program_path: str, every: bool) -> str:
    """The claim file: DP under linf (bound 1) on the grid, the budget, events of real outputs;
    `length = "every"` when `every`, else the same claim at the claim's own m."""
    rows = ["[program]", f'path = "{program_path}"', f"params = {{ m = {spec.m0} }}", "",
            "[privacy]", 'adjacency = "linf"', f'budget = "{budget_text(spec.budget)}"']
    if every:
        rows.append('length = "every"')
    if spec.real_outputs:
        rows.append("events = { " + ", ".join(f"{o} = {REAL_EVENTS}" for o in spec.real_outputs) + " }")
    rows += ["", "[privacy.inputs]", f"grid = {{ q = [{', '.join(str(v) for v in spec.grid)}] }}", ""]
    return "\n".join(rows)


def budget_text(k: Fraction) -> str:
    return "0" if k == 0 else ("eps" if k == 1 else f"{k.numerator}/{k.denominator}*eps" if k.denominator != 1
                               else f"{k.numerator}*eps")


# --------------------------------------------------------------------------- the generator

RATES = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1))
BUDGETS = (Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(7, 4),
           Fraction(2), Fraction(3))


def random_spec(rng: random.Random, counted_and_dlap: bool = True) -> Spec:
    """One program: Algorithm 1 with a few statements changed, each change drawn independently
    so that most programs are in the class and many are one step outside it.  Without
    `counted_and_dlap`, the program the stream drew before those two constructs existed."""
    p = rng.random
    s = Spec(thr_rate=rng.choice(RATES), read_rate=rng.choice(RATES), budget=rng.choice(BUDGETS),
             m0=rng.choice((1, 1, 2, 3)))
    if p() < 0.12:
        s = replace(s, read_rate=None)                       # a noise-free guard
    if p() < 0.15:
        s = replace(s, read_rate_over_c=True)
    s = replace(s, op=rng.choice((">=", ">=", ">", "<", "<=")),
                guard=rng.choice(("if", "if", "bool", "flag", "flag_only")))
    if s.guard in ("flag", "flag_only"):
        s = replace(s, flag_scalar=p() < 0.4)
        if s.guard == "flag_only":
            s = replace(s, top_sym="", bot_sym="")
    if s.guard != "flag_only":
        r = p()
        if r < 0.1:
            s = replace(s, bot_sym="top")                    # both outcomes write the same symbol
        elif r < 0.17:
            s = replace(s, bot_sym="")                       # bot writes nothing: stays `none`
        elif r < 0.22:
            s = replace(s, top_sym="", bot_sym="")           # no symbol output at all
        if p() < 0.25:
            s = replace(s, top_release=rng.choice(("read", "noisy", "noisy")), noisy_rate=rng.choice(RATES))
        if p() < 0.08:
            s = replace(s, bot_release=rng.choice(("read", "noisy")))
        if p() < 0.15:
            s = replace(s, index_out=True)
        s = replace(s, cutoff=rng.choice(("exit", "exit", "count", "count", "", "bot_exit", "both_exit")))
        if s.cutoff == "count":
            s = replace(s, c=rng.choice(("1", "2", "2", "m")), count_dom=rng.choice(("c", "c", "m")))
        if p() < 0.2:
            s = replace(s, resample="top", resample_rate=rng.choice(RATES))
    elif p() < 0.3:
        s = replace(s, c="m", read_rate_over_c=s.read_rate is not None)
    if s.read_rate_over_c and s.c == "1" and p() < 0.6:
        s = replace(s, c=rng.choice(("2", "m")))
    if p() < 0.08:
        s = replace(s, resample="every", resample_rate=rng.choice(RATES))
    if p() < 0.1:
        s = replace(s, thr_out=rng.choice(("self", "self", "before", "loop")))
    if p() < 0.1:
        s = replace(s, read_out=rng.choice(("self", "copy")))
    if not (s.top_sym or s.bot_sym or s.guard in ("flag", "flag_only") or s.real_outputs or s.index_out):
        s = replace(s, top_sym="top", bot_sym="bot")
    # drawn last, so that the stream of every other choice stays what it was before the gap existed
    if p() < 0.5:
        s = replace(s, top_release="gap" if s.top_release == "read" else s.top_release,
                    bot_release="gap" if s.bot_release == "read" else s.bot_release)
    if s.guard != "flag_only" and not (s.top_release or s.bot_release) and p() < 0.1:
        s = replace(s, top_release="gap")
    # issue 40: drawn after everything else, so the programs drawn before these constructs existed keep
    # every earlier choice (each program has its own seeded generator)
    if s.guard != "flag_only" and p() < 0.25:
        s = replace(s, store=rng.choice(("top", "top", "bot", "both")))
    if p() < 0.15:
        s = replace(s, mean_shift=rng.choice((-2, 1, 2)))
    # issue 41: a second stored variable, drawn last for the same reason
    if p() < 0.25:
        s = replace(s, second=rng.choice(("compare", "store", "store", "exit", "same")),
                    second_rate=rng.choice(RATES))
    # issue 40: counted outputs and discrete Laplace draws, drawn last for the same reason
    return _draw_counted_and_dlap(s, rng) if counted_and_dlap else s


def _draw_counted_and_dlap(s: Spec, rng: random.Random) -> Spec:
    """A counted output (mostly with the exits turned into a flag, which the class needs) and DLap
    draws on integer inputs (mostly without the real releases, which the class refuses as integers)."""
    p = rng.random
    kinds = (["bots", "tops", "score", "last"] if s.top_sym or s.bot_sym else []) \
        + (["flags"] if s.guard in ("flag", "flag_only") and not s.flag_scalar else [])
    if kinds and p() < 0.3:
        s = replace(s, counted=rng.choice(kinds), counted_only=p() < 0.6, stop_flag=p() < 0.85)
    if p() < 0.2:
        s = replace(s, dlap=True)
        if p() < 0.7:
            s = replace(s, top_release="", bot_release="", thr_out="", read_out="")
            if not (s.top_sym or s.bot_sym or s.guard in ("flag", "flag_only") or s.index_out or s.counted):
                s = replace(s, top_sym="top", bot_sym="bot")
    return s


# --------------------------------------------------------------------------- issue 25's audit

A1 = Spec(budget=Fraction(1))   # Lyu-Su-Li Algorithm 1, c = 1: eps-DP for every m (d = 1)

AUDIT_CASES = {
    # 1: the comparison stored in a Boolean output, no `if`; claim eps/10.  At m = 1 the plain
    #    check refutes it (flag = false: 1/2 against e^(-eps/2)(1/2 + eps/8)).
    "1-bool-output": replace(A1, guard="flag_only", flag_scalar=True, top_sym="", bot_sym="", cutoff="",
                             budget=Fraction(1, 10)),
    # 2: the noisy threshold is also an output: the ratio e^(m*eps/4), no constant (m = 5 refutes eps).
    "2-threshold-output": replace(A1, thr_out="self"),
    # 3: the noisy read is a scalar output: Algorithm 3's leak, refuted at m = 5.
    "3-read-output": replace(A1, guard="bool", read_out="self"),
    # 4a: Algorithm 4 (threshold eps/4, reads 3eps/4) with c = m and exit at the c-th top; claim at
    #     m = 1 with 7/4*eps: at m = 4 the ratio is 12.03 > e^1.75 at eps = 1.
    "4a-cutoff-param-m": replace(A1, thr_rate=Fraction(1, 4), read_rate=Fraction(3, 4),
                                 c="m", cutoff="count", budget=Fraction(7, 4)),
    # 4b: Algorithm 1 with a counter 0..m and the cutoff count >= m; claim at m = 1, eps: the ratio
    #     at m = 5 is 2.8969 > e.
    "4b-counter-to-m": replace(A1, cutoff="count", count_dom="m"),
    # 5: one noise-free comparison then exit in every iteration: eps-DP for every m (one comparison).
    "5-noise-free-exit": replace(A1, read_rate=None, cutoff="both_exit"),
}
