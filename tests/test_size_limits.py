"""Issue 26, the size rows (4, 6, 11, 12, 13, 14, 15, 16): every size a user file or the command
line chooses is bounded before the work it would cost, and refused with exit 2, a located
message naming the limit, and no traceback.  Each test runs the user's command through the
CLI's `main` (under the guard, so a regression stops at the time limit instead of hanging the
suite); none asserts on time: each asserts that the named limit refused the input, which only
happens before the work.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.formula import Where, expanded_terms, parse
from dipc_plus.execution import limits
from conftest import ROOT, run_main

LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.M)      # file:line:column
HUGE = "9" * 5000


run = run_main   # main(argv) in this process: (exit, stdout, stderr)


def refused(code, err, limit, located=True):
    """Exit 2, no traceback, the limit named (so it was this limit that stopped the run, not the
    guard's time limit), and file:line:column when the input is a file."""
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert "stopped after the time limit" not in err, err
    assert f"--limit {limit}=" in err, err
    if located:
        assert LOCATED.search(err), err
    assert len(err) < 1000, err


def claim_with(tmp_path, theory, name="claim.toml", **replace):
    """theories/THEORY with `key = value` lines replaced and the program path made absolute."""
    text = (ROOT / "theories" / theory).read_text()
    text = re.sub(r'^(path\s*=\s*")\.\./', lambda m: m.group(1) + str(ROOT) + "/", text, flags=re.M)
    for key, value in replace.items():
        text, n = re.subn(rf"^{re.escape(key)}\s*=.*$", lambda m: f"{key} = {value}", text, flags=re.M)
        assert n == 1, key
    path = tmp_path / name
    path.write_text(text)
    return path


def program(tmp_path, text: str, name="p.dip") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# -- row 4: nested powers multiply -------------------------------------------------------------------

def test_row4_nested_powers_refused_while_reading(tmp_path):
    claim = claim_with(tmp_path, "sparse.toml", beta='"((((eps+1)**200)**200)**200)"')
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--json", "--timeout", "60"])
    assert code == 2
    report = json.loads(out)                      # one JSON object and nothing else on stdout
    assert report["error"]["line"] == 19 and report["error"]["column"] == 9, report
    assert "--limit terms=" in report["error"]["hint"], report
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--timeout", "60"])
    refused(code, err, "terms")


def test_row4_term_bound_is_an_upper_bound():
    """The shape bound is never below the true number of terms (here counted independently: a
    polynomial in eps of degree n has n + 1 terms; (a + b + c)^n has C(n+2, 2))."""
    where = Where()
    assert expanded_terms(parse("(eps+1)**200", ["alpha"], where).tree) >= 201
    assert expanded_terms(parse("(eps+alpha+1)**20", ["alpha"], where).tree) >= 231
    assert expanded_terms(parse("((eps+1)**20)**10", ["alpha"], where).tree) >= 201
    # and the shipped kind of formula stays far below the limit
    assert expanded_terms(parse("2*m*c*exp(-alpha*eps/(8*c))", ["alpha", "m", "c"], where).tree) < 10
    # a formula at the limit still parses; one term more is refused, naming the limit
    parse("(eps+1)**200", ["alpha"], where)
    with pytest.raises(Exception) as info:
        parse("((eps+1)**100)**100", ["alpha"], where)
    assert "--limit terms=" in str(info.value.hint)


# -- row 6: numbers of any length on the command line and in claim lists ------------------------------

@pytest.mark.parametrize("option", ["--set", "--input", "--eps"])
def test_row6_long_numbers_on_the_command_line(option):
    value = {"--set": f"m={HUGE}", "--input": f"q=[{HUGE},0,0]", "--eps": HUGE}[option]
    if option == "--eps":
        argv = ["prob", ROOT / "programs/laplace.dip", "--input", "q=[0,1]", "--eps", value]
    else:
        argv = ["accuracy", ROOT / "programs/sparse.dip", ROOT / "theories/sparse.toml", "--no-progress",
                option, value]
    code, out, err = run(argv + ["--timeout", "60"])
    refused(code, err, "digits", located=False)
    assert f"{option}" in err and "5000 digits" in err, err   # the option is the location


@pytest.mark.parametrize("where", ["grid", "list", "eps", "eps-exponent", "param-exponent"])
def test_row6_long_numbers_in_a_claim(tmp_path, where):
    """Also numbers whose exponent alone is huge: Fraction('1e999999999') would run for minutes."""
    replace = {"grid": {"grid": f"{{ q = [-1, {HUGE}] }}"},
               "list": {"grid": f"{{ q = [-1, 1] }}\nlist = [ {{ q = [0, 0, {HUGE}] }} ]"},
               "eps": {"eps": f'"(0, {HUGE})"'},
               "eps-exponent": {"eps": '"(0, 1e999999999)"'},
               "param-exponent": {"params": '{ m = 3, c = 2, T = "1e999999999" }'}}[where]
    claim = claim_with(tmp_path, "sparse.toml", **replace)
    if where == "list":       # a claim has a grid or a list: drop the grid line written above
        claim.write_text(re.sub(r"^grid = .*\n", "", claim.read_text(), flags=re.M))
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--no-progress", "--timeout", "60"])
    assert code == 2 and "Traceback" not in err and "internal error" not in err, err
    refused(code, err, "digits")


# -- row 11: privacy grids bounded while reading --------------------------------------------------

def test_row11_privacy_grid_size_refused_while_reading(tmp_path):
    claim = claim_with(tmp_path, "sparse_privacy.toml", grid="{ q = [0, 99999] }")
    code, out, err = run(["privacy", claim, "--timeout", "60"])
    refused(code, err, "grid_points")
    assert f"{claim}:13:" in err, err
    # the bound is the grid's size exactly (10^15 points are not run: laplace with k = 1 on
    # q = [-1, 1] has 3 points, refused under a limit of 2 and verified under 3)
    small = claim_with(tmp_path, "laplace_privacy.toml", name="small.toml", params="{ k = 1, sens = 1 }")
    code, out, err = run(["privacy", small, "--limit", "grid_points=2", "--timeout", "60"])
    refused(code, err, "grid_points")
    code, out, err = run(["privacy", small, "--limit", "grid_points=3", "--timeout", "600"])
    assert code == 0, err


# -- rows 12 and 13: unrolling bounded by loops x body ----------------------------------------------

def test_row12_parameter_refused_before_unrolling(tmp_path):
    code, out, err = run(["show", ROOT / "programs/sparse.dip", "--set", "m=99999", "--timeout", "60"])
    refused(code, err, "unrolled")
    assert "with m = 99999" in err and "sparse.dip:29:" in err, err   # the loop that would be too big
    claim = claim_with(tmp_path, "sparse.toml", params="{ m = 99999, c = 2, T = 0 }")
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--no-progress", "--timeout", "60"])
    refused(code, err, "unrolled")


def test_row12_sparse_at_m_2000_is_shown():
    """m = 2000 is within every limit and is shown in full (the target scan and the flow check
    are linear now; the run is not timed here)."""
    code, out, err = run(["show", ROOT / "programs/sparse.dip", "--set", "m=2000"])
    assert code == 0, err
    assert "out[2000] <- bot" in out


@pytest.mark.parametrize("body", [
    "for i = 1 to 999000 do\n o <- " + "+".join(["q"] * 150) + "\nend\n",
    "for i = 1 to 1000 do\nfor j = 1 to 1000 do\nfor k = 1 to 1000 do\n o <- q\nend\nend\nend\n",
], ids=["long-body", "three-loops"])
def test_row13_loops_times_body_refused(tmp_path, body):
    path = program(tmp_path, "input q: real\noutput o: real\n" + body)
    code, out, err = run(["show", path, "--timeout", "60"])
    refused(code, err, "unrolled")
    assert f"{path}:3:" in err, err


def test_row13_dependent_inner_loop_bounded_while_unrolling(tmp_path):
    """An inner loop whose bound uses the outer index is not in the shape's lower bound; the running
    count stops it (and a smaller one is unrolled in full, so nothing valid is refused)."""
    text = "input q: real\noutput o: real\nfor i = 1 to {n} do\nfor j = 1 to i do\n o <- q\nend\nend\n"
    code, out, err = run(["show", program(tmp_path, text.format(n=300)), "--limit", "unrolled=20000",
                          "--timeout", "120"])
    refused(code, err, "unrolled")
    code, out, err = run(["show", program(tmp_path, text.format(n=30), "ok.dip")])
    assert code == 0 and out.count("o <- q") == 30 * 31 // 2, err


# -- row 14: deep and long programs, invalid UTF-8 ----------------------------------------------------

HEADER = "input q: real\noutput o: bool\nvar x: real = 0\n"


@pytest.mark.parametrize("text, limit, line", [
    (HEADER + "o <- true\n" + "if q > 0 then\n" * 20000 + "x <- 1\n" + "end\n" * 20000, "tokens", None),
    (HEADER + "o <- " + "not " * 100000 + "true\n", "tokens", 4),
    (HEADER + "x <- " + "+".join(["q"] * 100000) + "\no <- x > 0\n", "tokens", 4),
    # within the token limit, the parsed tree is measured before any recursive pass
    (HEADER + "o <- true\n" + "if q > 0 then\n" * 2000 + "x <- 1\n" + "end\n" * 2000, "depth", 205),
    (HEADER + "o <- " + "not " * 10000 + "true\n", "nodes", 4),
    (HEADER + "x <- " + "+".join(["q"] * 6000) + "\no <- x > 0\n", "nodes", 4),
], ids=["20000-ifs", "100000-nots", "100000-sum", "2000-ifs", "10000-nots", "6000-sum"])
def test_row14_deep_and_long_programs_refused_with_line_and_column(tmp_path, text, limit, line):
    path = program(tmp_path, text)
    code, out, err = run(["show", path, "--timeout", "120"])
    refused(code, err, limit)
    if line is not None:
        assert f"{path}:{line}:" in err, err


def test_row14_invalid_utf8_located_by_line_and_column(tmp_path):
    path = tmp_path / "bad.dip"
    path.write_bytes("input q: real\noutput o: real\n# café\no <- q \xff\n".encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    code, out, err = run(["show", path, "--timeout", "60"])
    assert code == 2 and "Traceback" not in err, err
    assert f"{path}:4:8: error:" in err and "UTF-8" in err and "byte" in err, err


# -- row 15: TOML decimals exact, or refused ---------------------------------------------------------

def test_row15_toml_decimal_read_exactly(tmp_path):
    text = "0.30000000000000000000000000000001"
    claim = claim_with(tmp_path, "sparse_privacy.toml", params=f"{{ m = 3, c = 1, T = {text} }}")
    assert load_claim(str(claim)).params["T"] == Fraction(text) != Fraction(3, 10)
    # the same number in a formula keeps every digit too (Python's parser would round it to 0.3)
    f = parse(f"{text}*exp(-eps)", [], Where())
    half = f.exact({})
    assert half == parse(f"{Fraction(text).numerator}/{Fraction(text).denominator}*exp(-eps)", [],
                         Where()).exact({})
    assert half != parse("3/10*exp(-eps)", [], Where()).exact({})


def test_row15_long_toml_decimal_refused(tmp_path):
    claim = claim_with(tmp_path, "sparse_privacy.toml", params=f"{{ m = 3, c = 1, T = 0.{HUGE} }}")
    code, out, err = run(["privacy", claim, "--timeout", "60"])
    refused(code, err, "digits")
    assert f"{claim}:6:30: error:" in err, err


# -- row 16: simulate -n, prob on many comparisons ---------------------------------------------------

def test_row16_simulate_runs_refused():
    code, out, err = run(["simulate", ROOT / "programs/laplace.dip", "--input", "q=[0,1]", "--eps", "1",
                          "-n", "99999999999999999999", "--timeout", "60"])
    refused(code, err, "runs", located=False)
    assert "-n 99999999999999999999" in err, err


def test_row16_prob_comparisons_refused():
    event = " & ".join(f"out[1]>{k}" for k in range(-100, 100))
    code, out, err = run(["prob", ROOT / "programs/laplace.dip", "--input", "q=[0,1]", "--events", event,
                          "--json", "--timeout", "60"])
    assert code == 2
    report = json.loads(out)
    assert "200 comparisons" in report["error"]["message"] and "--limit comparisons=" in report["error"]["hint"]


# -- one place -----------------------------------------------------------------------------------------

def test_every_limit_is_documented():
    table = (ROOT / "docs/limits.md").read_text()
    for name, lim in limits.LIMITS.items():
        assert re.search(rf"^\| `{name}` \| {lim.default} \|", table, re.M), name


def test_row15_written_floats_keep_their_text_through_pickling():
    """TOML floats stay exact however they are written, and survive the trip to a worker process."""
    import pickle
    from dipc_plus.claims.written_numbers import load_toml
    data = load_toml('a = 1_000.5\nb = 1e-3\nc = 0.30000000000000000000000000000001\nd = -2.5E+2\n', "x.toml")
    assert [Fraction(repr(v)) for v in data.values()] == \
        [Fraction(2001, 2), Fraction(1, 1000), Fraction(30000000000000000000000000000001, 10 ** 32), -250]
    c = pickle.loads(pickle.dumps(data["c"]))
    assert Fraction(str(c)) == Fraction(repr(data["c"])) and c == data["c"]


def test_a_huge_hexadecimal_literal_in_a_formula_is_refused(tmp_path):
    """Found by the size fuzz: 0xfff... (5,000 digits) is an int Python cannot print; the message
    that echoes it raised ValueError (exit 3)."""
    claim = claim_with(tmp_path, "sparse.toml", beta='"0x' + "f" * 5000 + '*exp(-alpha*eps)"')
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--no-progress", "--timeout", "60"])
    refused(code, err, "digits")
