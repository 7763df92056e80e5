"""A real-output refutation where the neighbour's probability is 0 says so in words, not as an
interval ratio `[+/- inf]` (one-sided noise: ExpNoise(eps, q) never falls below its mean q, so the
released value in (0, 1] has probability 1 - e^(-eps) at q = 0 and 0 at q = 1)."""
import json
import subprocess
import sys


def test_zero_neighbour_probability_in_words(tmp_path):
    (tmp_path / "p.dip").write_text("input q: real\noutput v: real\nv <- ExpNoise(eps, q)\n")
    (tmp_path / "c.toml").write_text('[program]\npath = "p.dip"\n[privacy]\nadjacency = "linf"\nbound = "1"\n'
                                     'budget = "eps"\n[privacy.inputs]\nbox = { q = [0, 1] }\n')
    run = lambda *a: subprocess.run([sys.executable, "-m", "dipc_plus", "privacy", str(tmp_path / "c.toml"), *a],
                                    capture_output=True, text=True, timeout=120)
    text = run()
    assert text.returncode == 1, text.stderr
    assert "> 0 = P[neighbour]" in text.stdout and "+/- inf" not in text.stdout
    cex = json.loads(run("--json").stdout)["counterexample"]
    assert cex["neighbour_probability"] == "0" and cex["event_ratio"] == "inf"
