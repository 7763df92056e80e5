"""Time of the size refusals of issue 26 (rows 4, 6, 11-16), and of `dipc show` on sparse as m grows.

Why: the tests assert that each hostile size is refused by its named limit (which happens
before the work); how long a refusal takes, and that unrolling and the flow check grow
linearly in m, are measured here instead.  Each command runs as a separate `python -m
dipc_plus` process (start-up included), and the table is written to sizes_table.md.

    PYTHONPATH=. python experiments/sizes_table.py
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def claim(tmp: Path, theory: str, name: str, **replace) -> Path:
    text = (ROOT / "theories" / theory).read_text()
    text = re.sub(r'^(path\s*=\s*")\.\./', lambda m: m.group(1) + str(ROOT) + "/", text, flags=re.M)
    for key, value in replace.items():
        text = re.sub(rf"^{key}\s*=.*$", lambda m: f"{key} = {value}", text, flags=re.M)
    path = tmp / name
    path.write_text(text)
    return path


def program(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def timed(argv) -> tuple[float, int, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dipc_plus", *map(str, argv)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    message = (proc.stderr.strip().splitlines() or [""])[0]
    limit = re.search(r"--limit (\w+)=", proc.stderr)
    return seconds, proc.returncode, limit.group(1) if limit else ("-" if proc.returncode == 0 else message[:60])


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    sparse = ROOT / "programs/sparse.dip"
    header = "input q: real\noutput o: bool\nvar x: real = 0\n"
    rows = [
        ("4", "beta = ((((eps+1)**200)**200)**200)",
         ["accuracy", sparse, claim(tmp, "sparse.toml", "r4.toml", beta='"((((eps+1)**200)**200)**200)"')]),
        ("6", "--set m=<5000 digits>", ["show", sparse, "--set", "m=" + "9" * 5000]),
        ("6", "eps = \"(0, 1e999999999)\"",
         ["accuracy", sparse, claim(tmp, "sparse.toml", "r6.toml", eps='"(0, 1e999999999)"'), "--no-progress"]),
        ("11", "privacy grid q = [0, 99999]",
         ["privacy", claim(tmp, "sparse_privacy.toml", "r11.toml", grid="{ q = [0, 99999] }")]),
        ("12", "show sparse --set m=99999", ["show", sparse, "--set", "m=99999"]),
        ("13", "999000 x (150-term sum)", ["show", program(tmp, "r13a.dip", "input q: real\noutput o: real\n"
                                                          "for i = 1 to 999000 do\n o <- " + "+".join(["q"] * 150) +
                                                          "\nend\n")]),
        ("13", "three nested loops of 1000", ["show", program(tmp, "r13b.dip", "input q: real\noutput o: real\n" +
                                                             "".join(f"for {v} = 1 to 1000 do\n" for v in "ijk") +
                                                             " o <- q\n" + "end\n" * 3)]),
        ("14", "20,000 nested if", ["show", program(tmp, "r14a.dip", header + "o <- true\n" +
                                                   "if q > 0 then\n" * 20000 + "x <- 1\n" + "end\n" * 20000)]),
        ("14", "100,000 chained not", ["show", program(tmp, "r14b.dip", header + "o <- " + "not " * 100000 + "true\n")]),
        ("14", "100,000-term sum", ["show", program(tmp, "r14c.dip", header + "x <- " + "+".join(["q"] * 100000) +
                                                   "\no <- x > 0\n")]),
        ("15", "T = 0.<5000 digits>",
         ["privacy", claim(tmp, "sparse_privacy.toml", "r15.toml", params="{ m = 3, c = 1, T = 0." + "9" * 5000 + " }")]),
        ("16", "simulate -n 99999999999999999999", ["simulate", ROOT / "programs/laplace.dip", "--input", "q=[0,1]",
                                                    "--eps", "1", "-n", "99999999999999999999"]),
        ("16", "prob, 200 comparisons", ["prob", ROOT / "programs/laplace.dip", "--input", "q=[0,1]", "--events",
                                         " & ".join(f"out[1]>{k}" for k in range(-100, 100))]),
    ]
    lines = ["# Size refusals (issue 26) and `dipc show` on sparse as m grows", "",
             "Written by `experiments/sizes_table.py`: wall time of one `python -m dipc_plus` process each "
             "(start-up included, about 1 s here), on a shared 2-core machine; the exit code and the limit the "
             "message names.", "",
             "| row | input | seconds | exit | limit |", "| --- | --- | --- | --- | --- |"]
    for row, what, argv in rows:
        seconds, code, limit = timed(argv)
        lines.append(f"| {row} | {what} | {seconds:.2f} | {code} | {limit} |")
        print(lines[-1], flush=True)
    lines += ["", "| m | `dipc show programs/sparse.dip --set m=M`: seconds | exit |", "| --- | --- | --- |"]
    for m in (500, 1000, 2000, 4000):
        seconds, code, _ = timed(["show", sparse, "--set", f"m={m}"])
        lines.append(f"| {m} | {seconds:.2f} | {code} |")
        print(lines[-1], flush=True)
    (ROOT / "experiments/sizes_table.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
