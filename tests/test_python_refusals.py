"""Every construct outside the Python subset is refused with exit 2 at the .py file's line and
column, naming the construct (docs/python.md, "What is refused")."""
from __future__ import annotations

import pytest

from conftest import run_main

HEAD = "def f(prng, queries, epsilon):\n"
NOISE = "prng.laplace(scale=1/epsilon)"

# body, (line, column) of the refusal, a word of the message
CASES = {
    "while on a coin": (f"    x = 0\n    while {NOISE} > 0:\n        x += 1\n    return x\n", (3, 5), "while"),
    "import": ("    import os\n    return 1\n", (2, 5), "import"),
    "user function": ("    return g(queries)\n", (2, 12), "g(...)"),
    "eval": ("    return eval('1')\n", (2, 12), "eval"),
    "other distribution": ("    return queries[0] + prng.normal(scale=1/epsilon)\n", (2, 25), "normal"),
    "numpy gaussian": ("    return queries[0] + np.random.normal(0, 1)\n", (2, 25), "normal"),
    "attribute trick": ("    return queries.__class__\n", (2, 12), "Attribute"),
    "scale that grows with eps": ("    return queries[0] + prng.laplace(scale=epsilon)\n", (2, 44), "rate"),
    "scale without eps": ("    return queries[0] + prng.laplace(scale=2.0)\n", (2, 44), "c/epsilon"),
    "list mixing bools and numbers": (f"    out = []\n    out.append(True)\n    out.append(queries[0] + {NOISE})\n"
                                      "    return out\n", (4, 16), "mixing"),
    "product of two noisy values": (f"    a = queries[0] + {NOISE}\n    return a * a\n", (3, 12), "Mult"),
    "break before more statements": ("    c = 0\n    for q in queries:\n        if q > 0:\n            break\n"
                                     "        c += 1\n    c += 1\n    return c\n", (5, 13), "break"),
    "no return": ("    x = 1\n", (2, 5), "return"),
    "numbers cut short by break": (f"    out = []\n    for q in queries:\n        out.append(q + {NOISE})\n"
                                   "        if q > 0:\n            break\n    return out\n", (1, 1), "cut short"),
    "appends differ by branch": ("    out = []\n    for q in queries:\n        if q > 0:\n            out.append(True)\n"
                                 "    return out\n", (4, 9), "append"),
    "lambda": ("    g = lambda x: x\n    return 1\n", (2, 9), "Lambda"),
    "noise of a size": ("    return prng.laplace(scale=1/epsilon, size=3)\n", (2, 47), "size"),
    "continue": ("    for q in queries:\n        continue\n    return 1\n", (3, 9), "continue"),
    "a real as a condition": (f"    x = queries[0] + {NOISE}\n    if x:\n        return 1\n    return 0\n", (3, 8),
                              "condition"),
    "nested function": ("    def g():\n        return 1\n    return 1\n", (2, 5), "nested function"),
    "power": ("    return queries[0] ** 2\n", (2, 12), "Pow"),
    "syntax error": ("    return (1\n", (2, 12), "syntax"),
    "output unassigned on a path (the .dip checker)": (f"    if queries[0] + {NOISE} > 0:\n        y = True\n"
                                                       "    return y\n", (1, 1), "unassigned"),
    "index out of range (the .dip checker)": (f"    return queries[5] + {NOISE}\n", (2, 12), "out of range"),   # at queries[5]
}


@pytest.mark.parametrize("name", list(CASES))
def test_refused_construct_is_located_in_the_py_file(tmp_path, name):
    body, (line, column), word = CASES[name]
    path = tmp_path / "mech.py"
    path.write_text("import numpy as np\n\n\n" + HEAD + body)
    code, out, err = run_main(["show", path, "--function", "f", "--set", "m=2"])
    assert code == 2, out + err
    assert err.startswith(f"{path}:{line + 3}:{column}: error: "), err
    assert word in err and "Traceback" not in err


def test_missing_parameter_value_names_it(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(HEAD.replace("epsilon)", "epsilon, N)") + "    return N\n")
    code, _, err = run_main(["show", path, "--function", "f", "--set", "m=2"])
    assert code == 2 and err.startswith(f"{path}:1:31: error: the parameter 'N' has no value"), err


def test_m_is_required(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(HEAD + "    return 1\n")
    code, _, err = run_main(["show", path, "--function", "f"])
    assert code == 2 and "m has no value" in err, err


def test_unknown_function_lists_the_functions(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(HEAD + "    return 1\n")
    code, _, err = run_main(["show", path, "--function", "g", "--set", "m=2"])
    assert code == 2 and "no top-level function 'g'" in err and "its functions are: f" in err, err


def test_claim_on_a_py_file_needs_its_function(tmp_path):
    (tmp_path / "mech.py").write_text(HEAD + "    return queries[0] + prng.laplace(scale=1/epsilon) >= 0\n")
    claim = tmp_path / "c.toml"
    claim.write_text('[program]\npath = "mech.py"\nparams = { m = 1 }\n\n[privacy]\nadjacency = "linf"\n'
                     'budget = "eps"\n\n[privacy.inputs]\ngrid = { queries = [0, 1] }\n')
    code, _, err = run_main(["privacy", claim])
    assert code == 2 and "function" in err and err.startswith(f"{claim}:"), err
    claim.write_text(claim.read_text().replace('path = "mech.py"', 'path = "mech.py"\nfunction = "f"'))
    code, out, err = run_main(["privacy", claim, "--strict"])
    assert code in (0, 4) and "VERIFIED" in out, out + err
