"""Privacy claim files and the `dipc privacy` / `dipc privacy-loss` commands: exit codes,
JSON shape, and every mistake in a claim reported with its line and a hint."""
from __future__ import annotations

import json
import os

import pytest

from dipc_plus.cli import main
from dipc_plus.errors import UserError
from dipc_plus.claims.privacy_reader import load_privacy_claim
from conftest import ROOT



def p(*parts):
    return os.path.join(ROOT, *parts)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_verified_exit_0(capsys):
    code, out, _ = run(capsys, "privacy", p("programs/rr_clients.dip"), p("theories/rr_clients_privacy.toml"))
    assert code == 0 and "VERIFIED" in out and "independent components" in out


def test_refuted_exit_1_and_json_shape(capsys):
    code, out, _ = run(capsys, "privacy", p("programs/svt_lyu_alg4.dip"), p("theories/svt_lyu_alg4_privacy.toml"),
                       "--json")
    assert code == 1
    data = json.loads(out)
    assert data["verdict"] == "refuted"
    cex = data["counterexample"]
    for key in ("input", "neighbour", "output", "eps", "probability", "neighbour_probability",
                "probability_value", "neighbour_probability_value", "bound_value", "ratio_value"):
        assert key in cex
    assert isinstance(cex["input"]["q"], list) and "/" in cex["eps"] or cex["eps"].isdigit()


def test_verified_json(capsys):
    code, out, _ = run(capsys, "privacy", p("programs/randomized_response.dip"),
                       p("theories/randomized_response_privacy.toml"), "--json")
    assert code == 0 and json.loads(out)["verdict"] == "verified"


def test_pufferfish_through_the_same_command(capsys):
    code, out, _ = run(capsys, "privacy", p("programs/truncated_geometric_count.dip"),
                       p("theories/truncated_geometric_count_pufferfish.toml"), "--json")
    assert code == 1
    data = json.loads(out)
    assert data["kind"] == "pufferfish" and data["counterexample"]["scenario"].startswith("contagious")


def test_wrong_program_is_a_usage_error(capsys):
    code, _, err = run(capsys, "privacy", p("programs/laplace.dip"), p("theories/rr_clients_privacy.toml"))
    assert code == 2 and "claim is about" in err


def test_privacy_loss_prints_closed_forms(capsys, tmp_path):
    code, out, _ = run(capsys, "privacy-loss", p("programs/randomized_response_coin.dip"),
                       p("theories/randomized_response_coin_privacy.toml"))
    assert code == 0 and "tight eps = ln(3)" in out
    png = tmp_path / "loss.png"
    code, out, _ = run(capsys, "privacy-loss", p("programs/svt_lyu_alg4.dip"), p("theories/svt_lyu_alg4_privacy.toml"),
                       "--set", "m=2", "--plot", str(png))
    assert code == 0 and "sup L(eps)/eps" in out and png.exists() and png.stat().st_size > 1000


def test_privacy_loss_at_ln2_and_attack(capsys):
    code, out, _ = run(capsys, "privacy-loss", p("programs/discrete_above_threshold.dip"),
                       p("theories/discrete_above_threshold_privacy.toml"), "--set", "m=3", "--json")
    assert code == 0 and json.loads(out)["loss"] == "ln(8)"
    code, out, _ = run(capsys, "privacy-loss", p("programs/truncated_geometric_count.dip"),
                       p("theories/truncated_geometric_count_pufferfish.toml"), "--attack")
    assert code == 0 and "Bayes-optimal attack" in out and "advantage" in out


# --------------------------------------------------------------------------- claim mistakes


def write(tmp_path, body: str) -> str:
    path = tmp_path / "c.toml"
    path.write_text(body.replace("@ROOT@", str(ROOT)))
    return str(path)


HEAD = '[program]\npath = "@ROOT@/programs/randomized_response.dip"\n[privacy]\n'


@pytest.mark.parametrize("body,needle,line", [
    ('budget = "eps"\n', "adjacency", 3),
    ('adjacency = "hamming"\nbudget = "eps^2"\n', "not linear", 5),
    ('adjacency = "hamming"\nbudget = "ln(eps)"\n', "positive rational constant", 5),
    ('adjacency = "hamming"\nbudget = 2\n', "ambiguous", 5),
    ('adjacency = "hamming"\nbudget = "2"\n', "not a logarithm of a rational", 5),
    ('adjacency = "hamming"\nbudget = "ln(2)/2"\n', "not the logarithm of a rational", 5),
    ('adjacency = "hamming"\nbudget = "eps"\neps = "ln(1)"\n', "not positive", 6),
    ('adjacency = "hamming"\nbudget = "eps"\neps = "[0, 1]"\n', "not inside", 6),
    ('adjacency = "hamming"\nbudget = "eps"\ndelta = "log(2)"\n', "'log(...)': a logarithm is not a rational number", 6),
    ('adjacency = "hammming"\nbudget = "eps"\n', "did you mean 'hamming'", 4),
    ('adjacency = "hamming"\nbudget = "eps"\nbudjet = 1\n', "unknown key", 6),
    ('adjacency = "hamming"\nbound = 2\nbudget = "eps"\n', "bound is not used", 5),
    ('adjacency = "pairs"\nbudget = "eps"\npairs = [ { input = { x = true }, neighbour = { x = true } } ]\n',
     "itself", 6),
])
def test_claim_errors(tmp_path, body, needle, line):
    with pytest.raises(UserError) as exc:
        load_privacy_claim(write(tmp_path, HEAD + body))
    assert needle in str(exc.value)
    assert exc.value.line == line


def test_real_outputs_need_events_with_delta(tmp_path):
    """Without events real outputs are decided on every value, for eps-DP only (issue 38, item 5)."""
    body = ('[program]\npath = "@ROOT@/programs/laplace.dip"\nparams = { k = 1 }\n[privacy]\n'
            'adjacency = "linf"\nbudget = "eps"\ndelta = "1/100"\n[privacy.inputs]\ngrid = { q = [0, 1] }\n')
    with pytest.raises(UserError) as exc:
        load_privacy_claim(write(tmp_path, body))
    assert "need output events" in str(exc.value) and "events =" in exc.value.hint


def test_bad_event_interval(tmp_path):
    body = ('[program]\npath = "@ROOT@/programs/laplace.dip"\nparams = { k = 1 }\n[privacy]\n'
            'adjacency = "linf"\nbudget = "eps"\nevents = { out = ["[-inf, 0]"] }\n'
            '[privacy.inputs]\ngrid = { q = [0, 1] }\n')
    with pytest.raises(UserError) as exc:
        load_privacy_claim(write(tmp_path, body))
    assert "infinite end" in str(exc.value) and exc.value.line == 7


def test_pufferfish_claim_errors(tmp_path):
    base = ('[program]\npath = "@ROOT@/programs/truncated_geometric_count.dip"\n[privacy]\nkind = "pufferfish"\n'
            'budget = "eps"\nparameters = { p = "(0, 1)" }\nsecrets = { a = "x[1] == 1", b = "x[1] == 0" }\n')
    scenario = '[[privacy.scenarios]]\nindependent = { x = { "0" = "1 - p", "1" = "p" } }\n'
    with pytest.raises(UserError, match="not a secret"):
        load_privacy_claim(write(tmp_path, base + 'pairs = [["a", "c"]]\n' + scenario))
    with pytest.raises(UserError, match="unknown name 'q'"):
        load_privacy_claim(write(tmp_path, base + 'pairs = [["a", "b"]]\n[[privacy.scenarios]]\n'
                                 'independent = { x = { "0" = "1 - q", "1" = "q" } }\n'))
    with pytest.raises(UserError, match="not an input"):
        load_privacy_claim(write(tmp_path, base.replace('x[1] == 0', 'z[1] == 0') + 'pairs = [["a", "b"]]\n' + scenario))


def test_cli_turns_claim_errors_into_exit_2(capsys, tmp_path):
    path = write(tmp_path, HEAD + 'adjacency = "hamming"\nbudget = "eps^2"\n')
    code, _, err = run(capsys, "privacy", p("programs/randomized_response.dip"), path)
    assert code == 2 and "error" in err and "Traceback" not in err


def test_attack_plot(capsys, tmp_path):
    png = tmp_path / "attack.png"
    code, out, _ = run(capsys, "privacy-loss", p("programs/truncated_geometric_count.dip"),
                       p("theories/truncated_geometric_count_pufferfish.toml"), "--attack", "--plot", str(png))
    assert code == 0 and png.exists() and png.stat().st_size > 1000


def test_a_parameter_with_a_huge_denominator_is_refused_not_factored(capsys, tmp_path):
    """T = 1e-66 makes exponents e^(q eps) with denominators near 10^66: FLINT cannot factor
    such a polynomial (it failed with a RuntimeError, exit 3); the size limit refuses it."""
    text = open(p("theories/sparse_privacy.toml")).read().replace("T = 0 }", "T = 1e-66 }")
    text = text.replace('"../programs/', f'"{p("programs")}/')
    claim = tmp_path / "tiny_threshold.toml"
    claim.write_text(text)
    code, out, err = run(capsys, "privacy", str(claim), "--timeout", "0")     # refused while reading
    assert code == 2 and f"{claim}:6:" in err and "67 digits" in err and "Traceback" not in err
    code, out, err = run(capsys, "privacy", str(claim), "--timeout", "0", "--limit", "digits=100")
    assert code == 2 and "--limit exp_degree" in err and "Traceback" not in err   # before FLINT factors
