"""Writing a DTMC for other tools: Graphviz DOT (to look at) and PRISM (for Storm/PRISM).

PRISM's expression language has no exp(), so probabilities are written with
t = e^(eps/L), L the least common denominator of the exponents in the chain,
and t is tied to eps in one of three ways:

- default: one constant ``eps`` and ``formula t = pow(e, eps/L)`` (e as a
  25-digit decimal): give eps to Storm (``--constants eps=1/2``) and every
  property is evaluated there, nothing to substitute;
- ``parametric``: rational functions for Storm's parametric engine, which cannot
  take pow(): the single parameter is ``t`` (eps = L*ln t) when eps enters only
  through exponentials; when eps also appears as a polynomial factor (eps*e^(-eps)
  terms), ``eps`` is a second parameter and the relation t = e^(eps/L) is stated in
  the file: a result is read back by substituting it;
- ``at``: decimals at one eps (20 significant digits of a certified ball; each
  state's row is adjusted in its last digit so that it sums to 1 exactly).

`prism_properties` writes the matching .props file: P=? [F "o0"], P=? [F "o1"], ...
for the output labels (one per finite output value, in value order) and P=? [F "exit"]
(termination).
"""
from __future__ import annotations

from fractions import Fraction
from math import lcm

from dipc_plus.exact.convert import fmt_q, signed_sum
from dipc_plus.exact.decimals import dyadic, plain_decimal
from dipc_plus.semantics.values import show_value, value_key, values_equal
from dipc_plus.semantics.dtmc import DTMC, EXIT
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import LinForm

DIGITS = 20
E_DIGITS = "2.718281828459045235360287"   # e to 25 significant digits, for `formula t`


def eps_shape(chain: DTMC) -> tuple[int, bool]:
    """(L, polynomial): every exponent of every transition probability is a multiple of 1/L, and
    whether eps also appears outside exponentials (a factor eps^k, k > 0) in one of them."""
    L, polynomial = 1, False
    for u, v in chain.graph.edges:
        p = chain.edge_probability(u, v)
        L = lcm(L, p.num.denominator_lcm(), p.den.denominator_lcm())
        polynomial = polynomial or any(k for poly in (p.num, p.den) for _, k, _ in poly.monomials())
    return L, polynomial


def poly_eps_t(p: ExpPoly, L: int, shift: int = 0) -> str:
    """p * t^shift as a polynomial in eps and t = e^(eps/L) (exponents must come out >= 0)."""
    terms = []
    for c, k, q in p.monomials():
        j = q * L + shift
        if j.denominator != 1 or j < 0:
            raise ValueError(f"exponent {q} does not fit t = e^(eps/{L}) with shift {shift}")
        j = int(j)
        factors = []
        if k:
            factors.append("eps" if k == 1 else f"eps^{k}")
        if j:
            factors.append("t" if j == 1 else f"t^{j}")
        mag = abs(c)
        coef = fmt_q(mag)
        body = "*".join(([f"({coef})" if "/" in coef else coef] if (mag != 1 or not factors) else []) + factors)
        terms.append(("-" if c < 0 else "+", body))
    return signed_sum(terms)


def frac_eps_t(f: ExpFrac, L: int) -> str:
    """An ExpFrac as (polynomial)/(polynomial) in eps and t."""
    qs = [q * L for q in list(f.num.terms) + list(f.den.terms)]
    low = min(qs) if qs else 0
    shift = int(-low) if low < 0 else 0
    num = poly_eps_t(f.num, L, shift)
    if f.den == ExpPoly.ONE and shift == 0:
        return f"({num})"
    den = poly_eps_t(f.den, L, shift)
    return f"({num})/({den})"


def row_decimals(chain: DTMC, u: int, eps: Fraction) -> list[tuple[int, str]]:
    """Successors of u with decimal probabilities at eps that add up to exactly 1: each the midpoint
    of a certified ball rounded to DIGITS places, the largest adjusted in its last place."""
    succ = sorted(chain.graph.succ[u])
    units = [round(dyadic(chain.edge_probability(u, v).arb_value(eps, 128).mid()) * 10 ** DIGITS)
             for v in succ]    # in units of 10^-DIGITS
    if units:
        big = max(range(len(units)), key=lambda i: units[i])
        units[big] += 10 ** DIGITS - sum(units)
    return [(v, plain_decimal(n, DIGITS)) for v, n in zip(succ, units)]


def transition_rows(chain: DTMC, at: Fraction | None, exact) -> list:
    """[(state, [(successor, probability text)])] in state order, the one traversal of both
    formats: exact probabilities written by `exact`, or the decimals of `row_decimals` at `at`."""
    return [(u, row_decimals(chain, u, at) if at is not None
             else [(v, exact(chain.edge_probability(u, v))) for v in sorted(chain.graph.succ[u])])
            for u in sorted(chain.graph.nodes)]


def output_groups(chain: DTMC) -> dict:
    """{label text: [exit nodes]} grouping exits by their finite output values, in the order of
    those values (as `dipc prob` lists them), so that "o0", "o1", ... do not depend on the order
    in which the chain happened to reach its exits."""
    groups: dict = {}
    keys: dict = {}
    for e in chain.exits:
        finite = [(name, v) for name, v in zip(chain.outputs, chain.outputs_at(e)) if not isinstance(v, LinForm)]
        text = ", ".join(f"{name}={show_value(v)}" for name, v in finite) or "(no finite outputs)"
        groups.setdefault(text, []).append(e)
        keys.setdefault(text, tuple(value_key(v) for _, v in finite))
    return {text: groups[text] for text in sorted(groups, key=lambda t: keys[t])}


# --------------------------------------------------------------------------- PRISM


def to_prism(chain: DTMC, at: Fraction | None = None, header: str = "", parametric: bool = False) -> str:
    """The chain as a PRISM dtmc: eps with t = e^(eps/L) as a formula, parametric, or numeric at `at`."""
    n = chain.graph.number_of_nodes()
    lines = [f"// {h}" for h in header.splitlines()]
    lines.append(f"// {n} states, {chain.graph.number_of_edges()} transitions, {len(chain.exits)} exit states")
    lines += ["dtmc", ""]
    L, polynomial = eps_shape(chain) if at is None else (1, False)
    if at is None and not parametric:
        lines.append("const double eps; // the privacy budget, eps > 0 (e.g. storm --constants eps=0.5)")
        lines.append(f"formula t = pow({E_DIGITS}, eps/{L}); // t = exp(eps/{L}): PRISM has no exp()")
    elif at is None:
        if polynomial:
            lines.append("const double eps; // the privacy budget, eps > 0")
            lines.append(f"const double t;   // t = exp(eps/{L}) (tied to eps: substitute it in Storm's result; "
                         "rational functions cannot express exp)")
        else:
            lines.append(f"const double t;   // the only parameter: t = exp(eps/{L}), i.e. eps = {L}*ln(t); "
                         f"e^(k*eps/{L}) is written t^k")
    else:
        lines.append(f"// transition probabilities at eps = {at} (decimals of certified balls)")
    lines.append("")
    lines.append("module chain")
    lines.append(f"  s : [0..{max(n - 1, 0)}] init {chain.initial};")
    for u, row in transition_rows(chain, at, lambda p: frac_eps_t(p, L)):
        desc = chain.describe(u).replace("\n", " | ")
        lines.append(f"  // s={u}: {desc}")
        parts = [f"{p} : (s'={v})" for v, p in row] or [f"1 : (s'={u})"]
        lines.append(f"  [] s={u} -> " + " + ".join(parts) + ";")
    lines.append("endmodule")
    lines.append("")
    lines.append("label \"exit\" = " + (" | ".join(f"s={e}" for e in chain.exits) or "false") + ";")
    for k, (text, members) in enumerate(output_groups(chain).items()):
        lines.append(f"// o{k}: {text}")
        lines.append(f"label \"o{k}\" = " + " | ".join(f"s={e}" for e in members) + ";")
    return "\n".join(lines) + "\n"


def exits_with_outputs(chain: DTMC, expected: dict) -> list[int]:
    """The exit states whose finite outputs equal `expected` (flat output name -> value), by the
    one equality of program values (a Boolean is never a number)."""
    outputs = {e: dict(zip(chain.outputs, chain.outputs_at(e))) for e in chain.exits}
    return [e for e, values in outputs.items()
            if all(values_equal(values.get(name), value) for name, value in expected.items())]


def prism_properties(chain: DTMC, header: str = "", correct: list[int] | None = None,
                     correct_note: str = "") -> str:
    """The .props file for `to_prism`: the probability of each output label and of termination,
    and with `correct` (exit states) the probability of a correct answer, P[error] = 1 - it."""
    lines = [f"// {h}" for h in header.splitlines()]
    if correct is not None:
        lines.append(f"// accuracy: {correct_note}" if correct_note else "// accuracy")
        lines.append("// P[correct]; the claim bounds P[error] = 1 - P[correct]")
        lines.append('"correct": P=? [ F (' + (" | ".join(f"s={e}" for e in correct) or "false") + ") ];")
    lines.append("// P[output] for each output label of the model (finite outputs; real outputs are symbolic)")
    for k, (text, _) in enumerate(output_groups(chain).items()):
        lines.append(f"// o{k}: {text}")
        lines.append(f'"o{k}": P=? [ F "o{k}" ];')
    lines.append("// termination: 1 for a program that always halts")
    lines.append('"exit": P=? [ F "exit" ];')
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- DOT


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def to_dot(chain: DTMC, at: Fraction | None = None, header: str = "") -> str:
    """Graphviz: one box per state (its description), edges labelled with exact probabilities."""
    lines = [f"digraph \"{_dot_escape(chain.program.name)}\" {{"]
    if header:
        lines.append(f"  label=\"{_dot_escape(header)}\"; labelloc=t;")
    lines.append("  node [shape=box, fontname=\"monospace\", fontsize=10];")
    for u in sorted(chain.graph.nodes):
        st = chain.graph.nodes[u]["state"]
        attrs = [f"label=\"s{u}\\n{_dot_escape(chain.describe(u))}\""]
        if st.pc == EXIT:
            attrs.append("peripheries=2")
        if u == chain.initial:
            attrs.append("style=bold")
        lines.append(f"  s{u} [{', '.join(attrs)}];")
    for u, row in transition_rows(chain, at, lambda p: "1" if p == 1 else str(p)):
        lines += [f"  s{u} -> s{v} [label=\"{_dot_escape(p)}\"];" for v, p in row]
    lines.append("}")
    return "\n".join(lines) + "\n"
