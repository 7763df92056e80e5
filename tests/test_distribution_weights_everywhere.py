"""A `choose` weight below 0, or weights whose total is 0, at some eps > 0: every route that reads a
user distribution refuses it (exit 2, at the weight's file/line/column naming the draw's line - the
total at the distribution - in the sampler's wording) or cannot
reach it (it refuses the draw itself); weights that are non-negative with a positive total are
unnormalised (docs/language.md) and still give their distribution."""
from __future__ import annotations

import json
import re

from conftest import run_main
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics.distribution import output_distribution

NEGATIVE = "distribution 'd' has a negative weight (outcome 0) at the draw on line {}"
ZERO = "all weights of distribution 'd' are zero at the draw on line {}"
W0 = 40   # the column of {w0} in POINT and BOX

POINT = """input x: 0..2
output y: 0..2
distribution d(v: 0..2) over 0..2 {{ 0: {w0}; 1: {w1} }}
y <- choose(d(x))
"""

BOX = """input q: real
output y: 0..2
output o: bool
var k: 0..2
distribution e(v: 0..2) over 0..2 {{ 0: 1; 2: 1 }}
distribution d(v: 0..2) over 0..2 {{ 0: {w0}; 1: 2 }}
r <- Lap(eps, q)
o <- r > 0
k <- {k}
y <- choose(d(k))
"""

BOX_CLAIM = """[program]
path = "box.dip"
[privacy]
adjacency = "linf"
budget = "eps"
[privacy.inputs]
box = { q = [0, 1] }
"""


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(code: int, err: str, message: str, line: int, column: int = 1) -> bool:
    return code == 2 and f":{line}:{column}: error: {message}" in err and "Traceback" not in err


# -- the per-point chain (prob, dtmc, accuracy/privacy on grids, Pufferfish, kernels) ---------------

def test_prob_refuses_a_weight_negative_at_the_input(tmp_path):
    path = write(tmp_path, "p.dip", POINT.format(w0="v - 1", w1="2"))
    code, _, err = run_main(["prob", path, "--input", "x=0"])
    assert refused(code, err, NEGATIVE.format(4), 3, W0)
    assert "weights must be non-negative" in err


def test_prob_refuses_weights_whose_total_is_zero_at_the_input(tmp_path):
    path = write(tmp_path, "p.dip", POINT.format(w0="v", w1="0"))
    code, _, err = run_main(["prob", path, "--input", "x=0"])
    assert refused(code, err, ZERO.format(4), 3, 14)        # at the distribution's name


def test_prob_refuses_a_total_that_is_zero_at_one_irrational_eps(tmp_path):
    # (e^eps - 2)^2 >= 0, but it is 0 at eps = ln 2, where the draw has no distribution (the sampler
    # refuses it there); the chain printed P[y=0] = 1 for every eps
    path = write(tmp_path, "p.dip", POINT.format(w0="(exp(eps) - 2) * (exp(eps) - 2)", w1="0"))
    code, _, err = run_main(["prob", path, "--input", "x=0"])
    assert refused(code, err, ZERO.format(4) + " at eps = ln(2)", 3, 14)


def test_prob_refuses_a_weight_undefined_at_one_eps_with_a_clean_message(tmp_path):
    # 1/(e^eps - 2)^2 has a pole at ln 2: refused before too, as "error: error: ... restrict the eps interval"
    path = write(tmp_path, "p.dip", POINT.format(w0="1 / ((exp(eps) - 2) * (exp(eps) - 2))", w1="1"))
    code, _, err = run_main(["prob", path, "--input", "x=0"])
    assert refused(code, err, "a weight of distribution 'd' (outcome 0) is undefined at the draw on line 4: its "
                              "denominator", 3, W0), err
    assert "vanishes at eps = ln(2)" in err and "error: error" not in err and "eps interval" not in err


def test_unnormalised_weights_are_divided_by_their_total():
    # docs/language.md: weights are unnormalised; totals 1/2 and 3/4 give the same distributions
    # as the weights times 2 and times 4/3
    program = parse_program(POINT.format(w0="1/4", w1="v/4"), "half.dip")
    half = output_distribution(program, {"x": 1})
    assert half.sums_to_one() and str(half.probability(y=0)) == str(half.probability(y=1)) == "1/2"
    three_quarters = output_distribution(program, {"x": 2})
    assert three_quarters.sums_to_one() and str(three_quarters.probability(y=0)) == "1/3"


def test_sampler_normalises_unnormalised_weights(tmp_path):
    # weights 1/4 and 2/4 (total 3/4): P[y=1] = 2/3 inside the sampler's 99% interval (seeded)
    path = write(tmp_path, "p.dip", POINT.format(w0="1/4", w1="v/4"))
    code, out, err = run_main(["simulate", path, "--input", "x=2", "--eps", "1", "--runs", "4000",
                               "--seed", "7", "--json"])
    assert code == 0, err
    outcome = {o["values"]["y"]: o["interval"] for o in json.loads(out)["outcomes"]}
    assert outcome[1][0] <= 2 / 3 <= outcome[1][1] and outcome[0][0] <= 1 / 3 <= outcome[0][1]


def test_dtmc_export_refuses_a_negative_weight(tmp_path):
    path = write(tmp_path, "p.dip", POINT.format(w0="exp(eps) - 2", w1="1"))
    code, _, err = run_main(["dtmc", path, "--input", "x=0"])
    assert refused(code, err, NEGATIVE.format(4) + " at eps = 1/2", 3, W0)


def test_grid_privacy_and_pufferfish_refuse_a_negative_weight(tmp_path):
    write(tmp_path, "p.dip", POINT.format(w0="v - 1", w1="2"))
    grid = write(tmp_path, "grid.toml", '[program]\npath = "p.dip"\n[privacy]\nadjacency = "hamming"\n'
                                        'budget = "eps"\n')
    puffer = write(tmp_path, "puffer.toml", '[program]\npath = "p.dip"\n[privacy]\nkind = "pufferfish"\n'
                   'budget = "eps"\neps = "ln(2)"\nsecrets = { zero = "x == 0", one = "x == 1" }\n'
                   'pairs = [["zero", "one"]]\n[[privacy.scenarios]]\nname = "uniform"\n'
                   'independent = { "x" = { "0" = "1/2", "1" = "1/2" } }\n')
    for claim in (grid, puffer):
        code, _, err = run_main(["privacy", claim])
        assert refused(code, err, NEGATIVE.format(4), 3, W0), (claim, err)


def test_symmetry_reduced_privacy_refuses_a_negative_weight(tmp_path):
    # the canonical-input (kernel) route of rr_counting: the weight lam - x is -4/5 at x = 1
    text = ("param n = 3\nparam lam = 1/5\ntype Bit = 0..1\n"
            "distribution d(x: Bit) over Bit { x: 1 - lam; 1 - x: lam - x }\n"
            "input x: Bit[n]\noutput yes: 0..n\nvar y: Bit\nyes <- 0\nfor i = 1 to n do\n"
            "    y <- choose(d(x[i]))\n    yes <- yes + y\nend\n")
    write(tmp_path, "rr.dip", text)
    claim = write(tmp_path, "rr.toml", '[program]\npath = "rr.dip"\nparams = { n = 12 }\n[privacy]\n'
                                       'adjacency = "hamming"\nbudget = "ln(4)"\n')
    code, _, err = run_main(["privacy", claim])
    column = text.splitlines()[3].index("lam - x") + 1                   # the weight, on line 4; the draw on line 10
    assert code == 2 and re.search(rf"rr\.dip:4:{column}: error: " + re.escape(NEGATIVE.format(10)), err), err


# -- box privacy: the density-ratio bound never evaluates the draw ---------------------------------

def test_box_privacy_refuses_a_negative_weight_the_density_ratio_walk_passes(tmp_path):
    # before: VERIFIED (exit 0) by the density-ratio bound, which never reads the weights
    write(tmp_path, "box.dip", BOX.format(w0="v - 1", k="0"))
    claim = write(tmp_path, "box.toml", BOX_CLAIM)
    code, _, err = run_main(["privacy", claim])
    assert refused(code, err, NEGATIVE.format(10), 6, W0) and "(for" not in err, err     # k = 0 is known on the path


def test_box_privacy_past_the_density_ratio_bound_refuses_a_negative_weight(tmp_path):
    # r > q reads the input beside a draw: the bound declines and the later routes meet the draw
    write(tmp_path, "box.dip", BOX.format(w0="v - 1", k="0").replace("r <- Lap(eps, q)\no <- r > 0",
                                                                       "r <- Lap(eps, 0)\no <- r > q"))
    code, _, err = run_main(["privacy", write(tmp_path, "box.toml", BOX_CLAIM)])
    assert refused(code, err, NEGATIVE.format(10), 6, W0), err


def test_box_privacy_checks_every_argument_a_draw_may_receive(tmp_path):
    # k is drawn, so the walk does not know it: d(k) is checked for k = 0 and k = 2
    write(tmp_path, "box.dip", BOX.format(w0="v - 1", k="choose(e(0))"))
    claim = write(tmp_path, "box.toml", BOX_CLAIM)
    code, _, err = run_main(["privacy", claim])
    assert refused(code, err, NEGATIVE.format(10) + " (for v = 0, which this draw may receive)", 6, W0), err


def test_box_privacy_with_valid_weights_is_still_verified(tmp_path):
    write(tmp_path, "box.dip", BOX.format(w0="v + exp(-eps)", k="choose(e(0))"))
    claim = write(tmp_path, "box.toml", BOX_CLAIM)
    code, out, err = run_main(["privacy", claim])
    assert code == 0 and "VERIFIED" in out and "density-ratio" in out, out + err


# -- routes that refuse the draw itself -------------------------------------------------------------

def test_routes_without_choose_refuse_the_draw(tmp_path):
    write(tmp_path, "box.dip", BOX.format(w0="v - 1", k="0"))
    code, _, err = run_main(["prob", tmp_path / "box.dip", "--symbolic", "--box", "q=[-1,1]"])
    assert code == 2 and "a choose or exponential-mechanism draw" in err
    noise_free = write(tmp_path, "acc.toml", '[program]\npath = "box.dip"\n[accuracy]\ndet = "noise-free"\n'
                       'input_distance = "linf"\noutput_distance = "zero-one"\nalpha = "dd"\ngamma = 0\n'
                       'beta = "exp(-alpha*eps)"\n[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    code, _, err = run_main(["accuracy", noise_free])
    assert code == 2 and "Traceback" not in err and ("Choose" in err or "choose" in err), err


def test_every_length_refuses_a_choose_in_the_loop(tmp_path):
    text = ("param m = 3\ntype Ans = {bot, top}\ninput q: real[m]\noutput out: Ans[m]\n"
            "distribution d(v: 0..2) over 0..2 { 0: v - 1; 1: 2 }\nvar x: real\nvar y: 0..2\nx <- -20\n"
            "for i = 1 to m do\n    r <- Lap(eps/2, q[i])\n    y <- choose(d(0))\n    if r > x then\n"
            "        out[i] <- top\n        x <- r\n    else\n        out[i] <- bot\n    end\nend\n")
    write(tmp_path, "ol.dip", text)
    claim = write(tmp_path, "ol.toml", '[program]\npath = "ol.dip"\n[privacy]\nadjacency = "linf"\n'
                                       'budget = "eps"\nlength = "every"\n[privacy.inputs]\ngrid = { q = [-1, 1] }\n')
    code, _, err = run_main(["privacy", claim])
    assert code == 2 and "ol.dip:11:5" in err and "Traceback" not in err, err


def test_python_front_end_has_no_weighted_choice(tmp_path):
    path = write(tmp_path, "c.py", "def rr(prng, queries, epsilon):\n    out = []\n    for query in queries:\n"
                                   "        b = prng.choice([0, 1], p=[-1, 2])\n"
                                   "        out.append(query + prng.laplace(scale=1.0 / epsilon) >= b)\n"
                                   "    return out\n")
    code, _, err = run_main(["show", path, "--function", "rr", "--set", "m=2"])
    assert code == 2 and "c.py:4:13: error: the distribution `choice` is outside the Python subset" in err


def test_a_negative_constant_weight_is_refused_at_the_weight(tmp_path):
    path = write(tmp_path, "p.dip", POINT.format(w0="-1", w1="2"))
    code, _, err = run_main(["show", path])
    assert code == 2 and "p.dip:3:40: error: a weight must not be negative, but this one is -1" in err


# -- the sampler: the same check at its one eps, on exact weights ----------------------------------

def test_sampler_takes_a_weight_that_is_exactly_zero_though_its_floats_are_negative(tmp_path):
    # e^eps - e^(eps/2) e^(eps/2) = 0, but -4.4e-16 in floats at eps = 1: refused before
    path = write(tmp_path, "p.dip", POINT.format(w0="exp(eps) - exp(eps/2) * exp(eps/2)", w1="1"))
    code, out, err = run_main(["simulate", path, "--input", "x=0", "--eps", "1", "--runs", "200", "--seed", "1"])
    assert code == 0 and "y=1" in out and "y=0" not in out, err


def test_sampler_refuses_a_negative_weight_its_floats_call_positive(tmp_path):
    # e^(eps/2) e^(eps/2) - e^eps - 10^-30 < 0, but +4.4e-16 in floats at eps = 1: drawn before
    weight = "exp(eps/2) * exp(eps/2) - exp(eps) - 1/1000000000000000000000000000000"
    path = write(tmp_path, "p.dip", POINT.format(w0=weight, w1="1"))
    code, _, err = run_main(["simulate", path, "--input", "x=0", "--eps", "1", "--runs", "200", "--seed", "1"])
    assert refused(code, err, NEGATIVE.format(4), 3, W0), err
    code, _, err = run_main(["prob", path, "--input", "x=0"])
    assert refused(code, err, NEGATIVE.format(4), 3, W0), err


# -- Pufferfish: the scenario priors are distributions too -----------------------------------------

PUFFER_BOX = """[program]
path = "p.dip"
[privacy]
kind = "pufferfish"
budget = "eps"
eps = "ln(2)"
parameters = {{ p = "(0, 1)" }}
secrets = {{ zero = "x == 0", one = "x == 1" }}
pairs = [["zero", "one"]]
[[privacy.scenarios]]
name = "s"
independent = {{ "x" = {{ "0" = "{w0}", "1" = "{w1}", "2" = "{w2}" }} }}
"""


def puffer(tmp_path, w0: str, w1: str, w2: str):
    write(tmp_path, "p.dip", POINT.format(w0="1", w1="exp(-eps)"))
    return run_main(["privacy", write(tmp_path, "c.toml", PUFFER_BOX.format(w0=w0, w1=w1, w2=w2))])


def test_a_prior_weight_negative_somewhere_on_the_parameter_box_is_refused_at_its_line(tmp_path):
    code, _, err = puffer(tmp_path, "1 - 2*p", "2*p", "1")
    assert code == 2 and "c.toml:12:" in err and "the prior weight 1 - 2*p (x = 0) is negative at p = 2/3" in err


def test_negative_marginals_whose_products_are_positive_are_refused(tmp_path):
    # an independent prior over two positions with marginals (-1, -1) each has products 1: it passed
    text = POINT.replace("input x: 0..2", "input x: 0..2\ninput z: 0..1")
    write(tmp_path, "p.dip", text.format(w0="1", w1="exp(-eps)"))
    claim = PUFFER_BOX.format(w0="-1", w1="-1", w2="-1").replace(
        '"2" = "-1" } }', '"2" = "-1" }, "z" = { "0" = "-1", "1" = "-1" } }')
    code, _, err = run_main(["privacy", write(tmp_path, "c.toml", claim)])
    assert code == 2 and "c.toml:12:" in err and "the prior weight -1 (x = 0) is negative" in err, err


def test_unnormalised_priors_with_weights_non_negative_on_the_box_are_decided(tmp_path):
    code, out, err = puffer(tmp_path, "1 - p", "p", "p*p")
    assert code in (0, 1) and ("VERIFIED" in out or "REFUTED" in out), err


def test_box_privacy_refuses_a_draw_with_too_many_unknown_argument_tuples_as_a_limit(tmp_path):
    # d(k, k2) with both drawn: 101 x 101 argument tuples, past the 4096 the walk checks
    text = BOX.format(w0="v + 1", k="choose(e(0))").replace(
        "var k: 0..2", "var k: 0..2\nvar k2: 0..100").replace(
        "distribution d(v: 0..2)", "distribution f(v: 0..2) over 0..100 { 0: 1; 100: 1 }\n"
                                   "distribution d(v: 0..100, w: 0..100)").replace(
        "y <- choose(d(k))", "k2 <- choose(f(0))\ny <- choose(d(k2, k2))")
    write(tmp_path, "box.dip", text)
    code, _, err = run_main(["privacy", write(tmp_path, "box.toml", BOX_CLAIM)])
    assert code == 2 and "may receive 10201 argument tuples here, more than the 4096" in err, err
