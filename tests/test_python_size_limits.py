"""The sizes a .py program chooses are bounded before the work they cost, like those of a .dip file:
a number literal by the `digits` limit before it is read exactly (`1e999999999` would compute
10^999999999), the translated text by the `tokens` limit while it is written (a sum over
m = 10^8 queries wrote 10^8 lines first)."""
from __future__ import annotations

import subprocess
import sys

from conftest import run_main

HEAD = "def f(prng, queries, epsilon):\n"


def test_huge_exponent_literal_is_refused_at_it(tmp_path):
    path = tmp_path / "big.py"
    path.write_text(HEAD + "    return queries[0] + prng.laplace(scale=1e999999999/epsilon)\n")
    # a subprocess with a timeout: a regression would compute the number, not hang the test run
    done = subprocess.run([sys.executable, "-m", "dipc_plus", "show", str(path), "--function", "f", "--set", "m=2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"{path}:2:44: error: the number 1e999999999 has far more than 60 digits"), done.stderr
    assert "--limit digits=N" in done.stderr and "Traceback" not in done.stderr


def test_long_literal_is_refused_and_the_limit_can_be_raised(tmp_path):
    path = tmp_path / "long.py"
    digits = "1" * 70
    path.write_text(HEAD + f"    return queries[0] + prng.laplace(scale={digits}/epsilon)\n")
    code, _, err = run_main(["show", path, "--function", "f", "--set", "m=2"])
    assert code == 2 and f"{path}:2:44: error: the number " in err and "has 70 digits, more than 60" in err, err
    code, out, err = run_main(["show", path, "--function", "f", "--set", "m=2", "--limit", "digits=80"])
    assert code == 0 and f"Lap(eps/{digits}" in out, out + err


def test_translation_past_the_token_limit_is_refused_while_it_is_written(tmp_path):
    path = tmp_path / "sum.py"
    path.write_text(HEAD + "    return sum(queries) + prng.laplace(scale=1/epsilon)\n")
    done = subprocess.run([sys.executable, "-m", "dipc_plus", "show", str(path), "--function", "f", "--set",
                           "m=100000000"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"{path}:2:12: error: the program has more than 50000 tokens (words, numbers and "
                                  "symbols) (in the DiPWhile+ program translated from f)"), done.stderr
    assert "--limit tokens=N" in done.stderr
    code, out, err = run_main(["show", path, "--function", "f", "--set", "m=3"])
    assert code == 0 and "queries[3]" in out, out + err


def test_list_of_integers_past_the_token_limit_is_refused_before_its_type_is_written(tmp_path):
    path = tmp_path / "ints.py"
    path.write_text(HEAD + "    out = []\n    for i in range(100000000):\n        out.append(i)\n    return out\n")
    done = subprocess.run([sys.executable, "-m", "dipc_plus", "show", str(path), "--function", "f", "--set", "m=2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"{path}:1:1: error: the program has more than 50000 tokens"), done.stderr


def test_padded_count_past_the_token_limit_is_refused_at_the_count(tmp_path):
    path = tmp_path / "count.py"
    loop = ("    out = []\n    for i in range({n}):\n        b = queries[0] + prng.laplace(scale=1/epsilon) > 0\n"
            "        out.append(b)\n        if b:\n            break\n    return out.count(True)\n")
    path.write_text(HEAD + loop.format(n=100000000))
    done = subprocess.run([sys.executable, "-m", "dipc_plus", "show", str(path), "--function", "f", "--set", "m=2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"{path}:8:12: error: the program has more than 50000 tokens"), done.stderr
    path.write_text(HEAD + loop.format(n=3))
    code, out, err = run_main(["show", path, "--function", "f", "--set", "m=2"])
    assert code == 0 and "count(EQ(out[1], True), EQ(out[2], True), EQ(out[3], True))" in out, out + err
