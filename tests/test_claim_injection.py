"""Claim files are data: no string in one may run code (issue 8, item 2).

Every payload below is put into every string slot of a privacy claim (Pufferfish
prior weights, both `prior` and `independent`; secrets; budget; delta; eps; output
events; parameter ranges) and into an accuracy claim's beta.  Each must end with exit
code 2, a message located in the claim file (file:line) and no traceback -- and the
file the payload tries to create must not exist afterwards.  A last test greps the
package for the Python and sympy entry points that evaluate text.
"""
from __future__ import annotations

import ast
import json

import pytest

from dipc_plus.cli import main
from conftest import ROOT

PACKAGE = ROOT / "dipc_plus"


def payloads(mark: str) -> list[str]:
    cmd = f"touch {mark}"
    return [
        f'[__import__("os").system("{cmd}"), 1 - p][1]',                       # the audit's payload
        f'__import__("os").system("{cmd}") or p',
        f"getattr(getattr(__builtins__, '__imp' + 'ort__')('os'), 'system')('{cmd}')",
        f"(lambda: __import__('os').system('{cmd}'))()",
        "().__class__.__base__.__subclasses__()",
        f"f\"{{__import__('os').system('{cmd}')}}\"",
        f"__\uff49\uff4d\uff50\uff4f\uff52\uff54__('os').system('{cmd}')",      # fullwidth letters (NFKC)
        f"p if __import__('os').system('{cmd}') else p",
        f"[p for _ in [__import__('os').system('{cmd}')]][0]",
        f"(q := __import__('os')).system('{cmd}')",
        f"open('{mark}', 'w')",
        f"eval(\"__import__('os').system('{cmd}')\")",
        f"exec(\"import os; os.system('{cmd}')\")",
        "globals()['__builtins__']",
        "vars()",
        "p.__class__.__mro__",
        "'__imp' 'ort__'",
        f"1 - p; __import__('os').system('{cmd}')",
        "\\x5f\\x5fimport\\x5f\\x5f",
        "p" + "*p" * 5 + "**" + "9" * 30,                                       # a huge degree
        "2**10**10",                                                            # a huge number
        "-(" * 250 + "p" + ")" * 250,                                           # nesting past the depth limit (200)
        "-" * 3000 + "p",                                                       # deeper nesting
        "\U0001d4f9" + "(1)",                                                    # a math-script letter call
        "p\x00",
        "",
    ]


PUFFERFISH = """\
[program]
path = "{root}/programs/truncated_geometric_count.dip"

[privacy]
kind = "pufferfish"
budget = {budget}
eps = {eps}
parameters = {{ p = {range} }}
secrets = {{ sick = {secret}, healthy = "x[1] == 0" }}
pairs = [["sick", "healthy"]]

[[privacy.scenarios]]
name = "independent"
independent = {{ x = {{ "0" = {indep}, "1" = "p" }} }}

[[privacy.scenarios]]
name = "contagious"
prior = [ {{ input = {{ x = [0, 0] }}, weight = {prior} }}, {{ input = {{ x = [1, 1] }}, weight = "p" }} ]
"""

DP = """\
[program]
path = "{root}/programs/laplace.dip"
params = {{ k = 1 }}

[privacy]
adjacency = "linf"
budget = {budget}
delta = {delta}
eps = {eps}
events = {{ out = [{event}, "(0, inf)"] }}

[privacy.inputs]
grid = {{ q = [0, 1] }}
"""

ACCURACY = """\
[program]
path = "{root}/programs/laplace.dip"
params = {{ k = 1 }}

[accuracy]
input_distance = "linf"
output_distance = "linf"
alpha = 0
gamma = 1
beta = {beta}

[accuracy.inputs]
grid = {{ q = [0, 1] }}
"""

GOOD = {"budget": '"eps"', "eps": '"ln(2)"', "range": '"(0, 1)"', "secret": '"x[1] == 1"', "indep": '"1 - p"',
        "prior": '"1 - p"', "delta": '"0"', "event": '"(-inf, 0]"', "beta": '"exp(-eps)"'}
SLOTS = {"pufferfish": (PUFFERFISH, ["budget", "eps", "range", "secret", "indep", "prior"],
                        "programs/truncated_geometric_count.dip", "privacy"),
         "dp": (DP, ["budget", "delta", "eps", "event"], "programs/laplace.dip", "privacy"),
         "accuracy": (ACCURACY, ["beta"], "programs/laplace.dip", "accuracy")}


def toml_string(text: str) -> str:
    """A TOML basic string holding `text` exactly."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def test_good_claims_are_accepted(tmp_path, capsys):
    """The templates themselves are valid (so every refusal below is the payload's doing)."""
    for kind, (template, _, program, command) in SLOTS.items():
        path = tmp_path / f"{kind}.toml"
        path.write_text(template.format(root=ROOT, **GOOD))
        # 5: a vacuous accuracy answer (the linf Laplace template applies at no input) is still a read claim
        assert main([command, str(ROOT / program), str(path)]) in (0, 1, 5), capsys.readouterr()
        capsys.readouterr()


# sizes (a huge degree or number, deep nesting: payloads 19-22) are refused by this layer's readers;
CASES = [(kind, slot, k) for kind, (_, slots, _, _) in SLOTS.items() for slot in slots
         for k in range(len(payloads("x")))]


@pytest.mark.parametrize("kind,slot,k", CASES, ids=[f"{a}-{b}-{c}" for a, b, c in CASES])
def test_payload_is_refused_and_never_runs(tmp_path, capsys, kind, slot, k):
    mark = tmp_path / "PWNED"
    payload = payloads(str(mark))[k]
    template, _, program, command = SLOTS[kind]
    values = dict(GOOD)
    values[slot] = toml_string(payload)
    path = tmp_path / "claim.toml"
    path.write_text(template.format(root=ROOT, **values))
    code = main([command, str(ROOT / program), str(path), "--json"])
    captured = capsys.readouterr()
    assert not mark.exists(), f"the payload ran: {payload!r}"
    assert code == 2, (payload, captured.out[-500:], captured.err[-500:])
    assert "Traceback" not in captured.err
    error = json.loads(captured.out)["error"]     # --json: the error is one JSON object on stdout
    assert error["file"] == str(path) and isinstance(error["line"], int), error


def test_nothing_in_the_package_evaluates_text():
    """No call of eval, exec, compile, sympify, parse_expr, literal_eval, __import__ or
    pickle.loads anywhere in dipc_plus (found in the syntax trees, so docstrings do not count)."""
    forbidden = {"eval", "exec", "compile", "sympify", "parse_expr", "literal_eval", "__import__"}
    hits = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
                if (name in forbidden and not (name == "compile" and owner == "re")) or \
                        (name == "loads" and owner in ("pickle", "marshal", "dill")):
                    hits.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}(...)")
    assert not hits, "\n".join(hits)
