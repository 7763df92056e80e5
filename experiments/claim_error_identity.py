"""Behaviour-unchanged check for the claim readers: exit status and stderr of malformed claim files.

    PYTHONPATH=/tmp/old python experiments/claim_error_identity.py --write /tmp/claim_errors.json
    PYTHONPATH=$PWD python experiments/claim_error_identity.py --compare /tmp/claim_errors.json

`json_identity.py` runs the shipped claims, which are all well formed; this script writes one claim
file per mistake (wrong types, unknown keys, bad intervals, missing sections, grid ranges, inputs given
twice, bad events, budgets and parameters) into a temporary folder, runs `dipc accuracy` or `dipc
privacy` on it with the `dipc_plus` that PYTHONPATH names, and records the exit status and stderr.
The cases are written from a few shipped claims by replacing one piece of text each.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "programs")

ACCURACY = f'''[program]
path = "{PROGRAMS}/sparse.dip"
params = {{ m = 3, c = 2, T = 0 }}

[accuracy]
det = "noise-free"
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "2*m*c*exp(-alpha*eps/(8*c))"
eps = "(0, inf)"

[accuracy.inputs]
grid = {{ q = [-1, 1] }}
'''

LAPLACE = f'''[program]
path = "{PROGRAMS}/laplace.dip"
params = {{ k = 2, sens = 1 }}

[accuracy]
det = "noise-free"
input_distance = "zero-one"
output_distance = "linf"
alpha = 0
gamma = [1, 2, 3]
beta = "k*exp(-gamma*eps/sens)"
eps = "(0, inf)"

[accuracy.inputs]
grid = {{ q = [-1, 1] }}
'''

TABLE = f'''[program]
path = "{PROGRAMS}/sparse.dip"
params = {{ m = 2, c = 1, T = 0 }}

[accuracy]
det = "table"
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "m*exp(-alpha*eps/2)"

[[accuracy.table]]
input = {{ q = [0, 0] }}
output = {{ out = ["top", "none"] }}

[[accuracy.table]]
input = {{ q = [0, 2] }}
output = {{ out = ["top", "none"] }}
'''

PRIVACY = f'''[program]
path = "{PROGRAMS}/laplace.dip"
params = {{ k = 1, sens = 1 }}

[privacy]
adjacency = "linf"
bound = 1
budget = "eps"
eps = "(0, inf)"
events = {{ out = ["(-inf, -1]", "(-1, 0]", "(0, 1]", "(1, 2]", "(2, inf)"] }}

[privacy.inputs]
grid = {{ q = [-1, 1] }}
'''

PUFFERFISH = f'''[program]
path = "{PROGRAMS}/truncated_geometric.dip"
params = {{ k = 2 }}

[privacy]
kind = "pufferfish"
budget = "eps"
eps = "ln(2)"
parameters = {{ p = "(0, 1)" }}
secrets = {{ absent = "x >= 0", present = "x >= 1" }}
pairs = [["present", "absent"]]

[[privacy.scenarios]]
name = "one"
prior = [ {{ input = {{ x = 0 }}, weight = "(1 - p)^2" }}, {{ input = {{ x = 1 }}, weight = "2*p*(1 - p)" }}, {{ input = {{ x = 2 }}, weight = "p^2" }} ]
'''

# (base, text replaced, its replacement): each a claim file with one mistake (a few are valid edges)
CASES = [
    (ACCURACY, "[program]", "[programme]"),
    (ACCURACY, 'path = "', 'pth = "'),
    (ACCURACY, f'"{PROGRAMS}/sparse.dip"', '"nothere.dip"'),
    (ACCURACY, f'"{PROGRAMS}/sparse.dip"', f'"{PROGRAMS}"'),
    (ACCURACY, f'"{PROGRAMS}/sparse.dip"', "3"),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", "params = 3"),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", "params = { m = 3, c = 2, T = 0, z = 1 }"),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", "params = { m = 3, c = 2, T = 0, cc = 1 }"),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", 'params = { m = "x", c = 2, T = 0 }'),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", "params = { m = true, c = 2, T = 0 }"),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", 'params = { m = 3, c = 2, T = "1' + "1" * 300 + '" }'),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", 'params = { m = 3, c = 2, T = 0 }\nfunction = "f"'),
    (ACCURACY, "params = { m = 3, c = 2, T = 0 }", "params = { m = 3, c = 2, T = 0 }\nfunction = 3"),
    (ACCURACY, "[accuracy]\n", "[accuracy]\nbogus = 1\n"),
    (ACCURACY, "[accuracy]\n", "[accuracy]\nbta = 1\n"),
    (ACCURACY, "[accuracy]\n", "accuracy = 3\n[x]\n"),
    (ACCURACY, 'det = "noise-free"', 'det = "noisefree"'),
    (ACCURACY, 'det = "noise-free"', "det = true"),
    (ACCURACY, 'det = "noise-free"', 'det = "table"'),
    (ACCURACY, 'input_distance = "linf"\n', ""),
    (ACCURACY, 'input_distance = "linf"', 'input_distance = "lin"'),
    (ACCURACY, 'input_distance = "linf"', 'input_distance = "numeric-sparse"'),
    (ACCURACY, 'input_distance = "linf"', 'input_distance = "numeric-sparse"\nthreshold = "Q"'),
    (ACCURACY, 'input_distance = "linf"', 'input_distance = "numeric-sparse"\nthreshold = 1'),
    (ACCURACY, 'input_distance = "linf"', 'input_distance = "linf"\nthreshold = 1'),
    (ACCURACY, 'output_distance = "zero-one"\n', ""),
    (ACCURACY, 'output_distance = "zero-one"', 'output_distance = "zeroone"'),
    (ACCURACY, 'output_distance = "zero-one"', 'output_distance = "zero-one"\nscores = 1'),
    (ACCURACY, 'output_distance = "zero-one"', 'output_distance = "noisy-max"'),
    (ACCURACY, 'output_distance = "zero-one"', 'output_distance = "score"'),
    (ACCURACY, 'alpha = "dd"\n', ""),
    (ACCURACY, 'alpha = "dd"', 'alpha = "abc"'),
    (ACCURACY, 'alpha = "dd"', "alpha = -1"),
    (ACCURACY, 'alpha = "dd"', "alpha = true"),
    (ACCURACY, 'alpha = "dd"', 'alpha = [1]'),
    (ACCURACY, 'alpha = "dd"', 'alpha = "1/0"'),
    (ACCURACY, "gamma = 0\n", ""),
    (ACCURACY, "gamma = 0", 'gamma = "alpha"'),
    (ACCURACY, "gamma = 0", "gamma = []"),
    (ACCURACY, "gamma = 0", "gamma = [1, -1]"),
    (ACCURACY, "gamma = 0", 'gamma = "x"'),
    (ACCURACY, "gamma = 0", "gamma = [0, 0, 1]"),
    (ACCURACY, 'beta = "2*m*c*exp(-alpha*eps/(8*c))"\n', ""),
    (ACCURACY, 'beta = "2*m*c*exp(-alpha*eps/(8*c))"', "beta = 1"),
    (ACCURACY, 'beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "2*m*exp(alpha*eps)"'),
    (ACCURACY, 'beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "2*m*zz"'),
    (ACCURACY, 'beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "2*m*("'),
    (ACCURACY, 'eps = "(0, inf)"', 'eps = "(0, x)"'),
    (ACCURACY, 'eps = "(0, inf)"', "eps = 1"),
    (ACCURACY, 'eps = "(0, inf)"', 'eps = "[2, 1]"'),
    (ACCURACY, 'eps = "(0, inf)"', 'eps = "(0, inf)"\ndd_over = "grid"'),
    (ACCURACY, 'eps = "(0, inf)"', 'eps = "(0, inf)"\ndd_over = "all"'),
    (ACCURACY, "[accuracy.inputs]\ngrid = { q = [-1, 1] }\n", ""),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = 3"),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 1] }\nlist = [ { q = [0, 0, 0] } ]"),
    (ACCURACY, "grid = { q = [-1, 1] }", "step = 1"),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 1] }\nstep = 0"),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { q = [-1, 1] }\nstep = "1/2"'),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 1], step = 1 }"),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 0.5] }"),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { q = [-1, "1/3"] }\nstep = "1/2"'),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = [1, -1] }"),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 1, 2] }"),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 99999] }"),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { q = "all" }'),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = { values = [] } }"),
    (ACCURACY, "grid = { q = [-1, 1] }", "grid = { q = { values = [0, 1] }, z = [0, 1] }"),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { q = { values = [0, "0", 1] } }'),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { q = { values = [0, "x"] } }'),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { q = [0, 1], "q[1]" = [5, 5] }'),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { "q[1]" = [0, 1] }'),
    (ACCURACY, "grid = { q = [-1, 1] }", 'grid = { "q[1]" = [0, 1], "q[2]" = [0, 1], "q[3]" = [0, 1] }'),
    (ACCURACY, "grid = { q = [-1, 1] }", "list = []"),
    (ACCURACY, "grid = { q = [-1, 1] }", "list = [ { q = [0, 0] } ]"),
    (ACCURACY, "grid = { q = [-1, 1] }", "list = [ { q = [0, 0, 0] }, { r = [0, 0, 0] } ]"),
    (ACCURACY, "grid = { q = [-1, 1] }", "list = [ { q = [0, 0, 0] }, { q = [0, 0, 0] } ]"),
    (ACCURACY, "grid = { q = [-1, 1] }", "list = [ { q = [0, 0, 0] } ]\nstep = 1"),
    (ACCURACY, "grid = { q = [-1, 1] }", "box = { q = [-1, 1] }"),
    (ACCURACY, "grid = { q = [-1, 1] }", "box = { q = [-1, 1] }\nstep = 1"),
    (ACCURACY, "grid = { q = [-1, 1] }", 'box = { q = [-1, 1] }\ndd_over = "grid"'),
    (ACCURACY, "[accuracy.inputs]\ngrid = { q = [-1, 1] }", 'inputs = 3'),
    (ACCURACY, "[accuracy.inputs]\ngrid = { q = [-1, 1] }", "[accuracy.inputs]\ngrid = { q = [-1, 1] }\nbox = 1"),
    (ACCURACY, "[accuracy.inputs]\ngrid = { q = [-1, 1] }", "[accuracy.inputs]\ngrd = { q = [-1, 1] }"),
    (ACCURACY, "[accuracy.inputs]\ngrid = { q = [-1, 1] }", "[accuracy.inputs]\ngrid = { q = [\n  -1,\n  0.5\n] }"),
    (ACCURACY, "[accuracy]\n", "[accuracy]\nnote = 3\n"),
    (ACCURACY, "[accuracy]", "[privacy]\nbudget = 1\n\n[accuracy]"),
    (LAPLACE, "grid = { q = [-1, 1] }", "box = { q = [-1, 1] }"),
    (LAPLACE, "gamma = [1, 2, 3]", 'gamma = "alpha"'),
    (LAPLACE, "alpha = 0", 'alpha = "dd"'),
    (LAPLACE, "alpha = 0", 'alpha = "1/2"\ngamma_ = 1'),
    (LAPLACE, 'output_distance = "linf"', 'output_distance = "noisy-max"\nscores = "out"'),
    (LAPLACE, "grid = { q = [-1, 1] }", 'grid = { q = [-1, 1] }\nstep = "1/4"'),
    (TABLE, "", ""),
    (TABLE, 'input = { q = [0, 2] }', 'input = { q = [0, 0] }'),
    (TABLE, 'output = { out = ["top", "none"] }\n\n[[accuracy.table]]', 'output = { out = ["top"] }\n\n[[accuracy.table]]'),
    (TABLE, 'output = { out = ["top", "none"] }\n\n[[accuracy.table]]', 'output = 3\n\n[[accuracy.table]]'),
    (TABLE, 'output = { out = ["top", "none"] }\n\n[[accuracy.table]]', 'output = { out = ["top", "none"], "out[1]" = "top" }\n\n[[accuracy.table]]'),
    (TABLE, 'output = { out = ["top", "none"] }\n\n[[accuracy.table]]', 'output = { }\n\n[[accuracy.table]]'),
    (TABLE, 'output = { out = ["top", "none"] }\n\n[[accuracy.table]]', 'output = { ot = 1 }\n\n[[accuracy.table]]'),
    (TABLE, 'output = { out = ["top", "none"] }\n\n[[accuracy.table]]', 'output = { out = ["up", "none"] }\n\n[[accuracy.table]]'),
    (TABLE, 'input = { q = [0, 2] }', 'input = { q = [0, 2] }\nextra = 1'),
    (TABLE, 'alpha = "dd"', 'alpha = "dd"\ndd_over = "reals"'),
    (TABLE, 'alpha = "dd"', 'alpha = "dd"\n\n[accuracy.inputs]\ngrid = { q = [0, 1] }'),
    (TABLE, 'alpha = "dd"', 'alpha = "dd"\n\n[accuracy.inputs]\nbox = { q = [0, 1] }'),
    (TABLE, '[[accuracy.table]]\ninput = { q = [0, 0] }\noutput = { out = ["top", "none"] }\n', ""),
    (TABLE, 'det = "table"', 'det = "noise-free"'),
    (PRIVACY, "", ""),
    (PRIVACY, 'budget = "eps"', "budget = 1"),
    (PRIVACY, 'budget = "eps"', 'budget = "eps*eps"'),
    (PRIVACY, 'budget = "eps"', 'budget = "epss"'),
    (PRIVACY, 'budget = "eps"', 'budget = "eps + 1"'),
    (PRIVACY, 'budget = "eps"', 'budget = "-eps"'),
    (PRIVACY, 'budget = "eps"', 'budget = "ln(0)"'),
    (PRIVACY, 'budget = "eps"\n', ""),
    (PRIVACY, 'eps = "(0, inf)"', 'eps = "ln(1)"'),
    (PRIVACY, 'eps = "(0, inf)"', 'eps = "(0, x]"'),
    (PRIVACY, 'eps = "(0, inf)"', 'eps = "-1"'),
    (PRIVACY, 'eps = "(0, inf)"', "eps = 2"),
    (PRIVACY, 'eps = "(0, inf)"', 'eps = "(0, inf)"\ndelta = "exp(-eps)/100"'),
    (PRIVACY, 'eps = "(0, inf)"', 'eps = "(0, inf)"\ndelta = "zz"'),
    (PRIVACY, 'eps = "(0, inf)"', 'eps = "(0, inf)"\ndelta = true'),
    (PRIVACY, 'events = { out = ["(-inf, -1]", "(-1, 0]", "(0, 1]", "(1, 2]", "(2, inf)"] }', ""),
    (PRIVACY, '"(-inf, -1]", "(-1, 0]"', '"(-inf, -1]", "(-2, 0]"'),
    (PRIVACY, '"(-inf, -1]", "(-1, 0]"', '"(-inf, -1]", "(-1, x]"'),
    (PRIVACY, '"(-inf, -1]", "(-1, 0]"', '"(-inf, -1]", "(-inf,  -1]"'),
    (PRIVACY, "events = { out = [", "events = { ot = ["),
    (PRIVACY, 'events = { out = ["(-inf, -1]", "(-1, 0]", "(0, 1]", "(1, 2]", "(2, inf)"] }', "events = { out = [] }"),
    (PRIVACY, 'events = { out = ["(-inf, -1]", "(-1, 0]", "(0, 1]", "(1, 2]", "(2, inf)"] }', "events = 3"),
    (PRIVACY, 'adjacency = "linf"', 'adjacency = "lnf"'),
    (PRIVACY, 'adjacency = "linf"', "adjacency = true"),
    (PRIVACY, "bound = 1", 'bound = "x"'),
    (PRIVACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 0.5] }"),
    (PRIVACY, "grid = { q = [-1, 1] }", 'grid = { q = [-1, 1], "q" = [0, 1] }'),
    (PRIVACY, "grid = { q = [-1, 1] }", "list = [ { q = 0 }, { q = 1 } ]"),
    (PRIVACY, "grid = { q = [-1, 1] }", "list = [ { q = 0 }, { z = 1 } ]"),
    (PRIVACY, "grid = { q = [-1, 1] }", "box = { q = [-1, 1] }"),
    (PRIVACY, "grid = { q = [-1, 1] }", "grid = { q = [-1, 9999999] }"),
    (PRIVACY, "[privacy]\n", "[privacy]\nbogus = 1\n"),
    (PRIVACY, "[privacy]\n", '[privacy]\nkind = "dpp"\n'),
    (PUFFERFISH, "", ""),
    (PUFFERFISH, 'parameters = { p = "(0, 1)" }', 'parameters = { p = "(0, x)" }'),
    (PUFFERFISH, 'parameters = { p = "(0, 1)" }', 'parameters = { q = "(0, 1)" }'),
    (PUFFERFISH, 'parameters = { p = "(0, 1)" }', "parameters = 3"),
    (PUFFERFISH, 'secrets = { absent = "x >= 0", present = "x >= 1" }', 'secrets = { absent = "x >= 0", present = "y >= 1" }'),
    (PUFFERFISH, 'pairs = [["present", "absent"]]', 'pairs = [["present", "gone"]]'),
    (PUFFERFISH, 'pairs = [["present", "absent"]]', "pairs = 3"),
    (PUFFERFISH, 'weight = "p^2"', 'weight = "p^^2"'),
    (PUFFERFISH, 'weight = "p^2"', 'weight = "p^2"\n}'),
    (PUFFERFISH, '{ input = { x = 2 }, weight = "p^2" }', '{ input = { x = 1 }, weight = "p^2" }'),
    (PUFFERFISH, '{ input = { x = 2 }, weight = "p^2" }', '{ input = { z = 2 }, weight = "p^2" }'),
    (PUFFERFISH, 'name = "one"', 'name = "one"\nextra = 2'),
    (PUFFERFISH, 'eps = "ln(2)"', 'eps = "ln(x)"'),
    (PUFFERFISH, 'kind = "pufferfish"', 'kind = "pufferfish"\nadjacency = "linf"'),
]


def run_case(args) -> dict:
    """The exit status and stderr (the temporary folder written $DIR) of one case."""
    folder, k, (base, old, new) = args
    path = os.path.join(folder, f"case{k:03d}.toml")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(base.replace(old, new, 1) if old else base)
    command = "accuracy" if "[accuracy" in base.replace(old, new, 1) and "[privacy]" not in base else "privacy"
    try:
        done = subprocess.run([sys.executable, "-m", "dipc_plus.cli", command, path, "--no-progress"],
                              capture_output=True, text=True, timeout=300)
        return {"case": k, "exit": done.returncode, "stderr": done.stderr.replace(folder, "$DIR")}
    except subprocess.TimeoutExpired:
        return {"case": k, "exit": "timeout", "stderr": ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE")
    group.add_argument("--compare", metavar="FILE")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run_case, [(folder, k, case) for k, case in enumerate(CASES)]))
    if args.write:
        with open(args.write, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)
        print(f"{len(results)} cases written, exits: {sorted({str(r['exit']) for r in results})}")
        return 0
    with open(args.compare, encoding="utf-8") as fh:
        base = json.load(fh)
    changed = [(a, b) for a, b in zip(base, results) if a != b]
    for a, b in changed:
        print(f"case {a['case']} {CASES[a['case']][1:]!r}:\n  old {a['exit']}: {a['stderr']}\n  new {b['exit']}: {b['stderr']}")
    print(f"{len(results) - len(changed)} of {len(results)} identical")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
