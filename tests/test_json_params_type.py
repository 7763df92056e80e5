"""JSON `params` have one type everywhere (issue 42, surfaces round 3; docs/json.md): an integer
parameter is a JSON number and any other rational a "p/q" string, in the top-level object and
in nested ones (`scope`, a counterexample) alike - the scope and the box results used to print
every parameter as a string."""
from __future__ import annotations

import json
import re

import pytest

from conftest import PROGRAMS, THEORIES, run_main


def _params_objects(obj, path=""):
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key == "params":
                yield f"{path}.params", value
            yield from _params_objects(value, f"{path}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _params_objects(value, f"{path}[{i}]")


def _is_conventional(value) -> bool:
    if isinstance(value, bool) or isinstance(value, int):
        return True
    if isinstance(value, str):   # a non-integer rational "p/q", or a symbol - never an integer as text
        return not re.fullmatch(r"-?\d+", value) and (re.fullmatch(r"-?\d+/\d+", value) is not None
                                                       or re.fullmatch(r"[A-Za-z_]\w*", value) is not None)
    return False


@pytest.mark.parametrize("argv", [
    ["accuracy", THEORIES / "noisy_max_box.toml"],
    ["accuracy", THEORIES / "noisy_max.toml"],
    ["privacy", THEORIES / "laplace_privacy_box.toml"],
    ["privacy", THEORIES / "svt_lyu_alg4_privacy.toml", "--set", "T=1/2"],
    ["privacy", THEORIES / "svt_lyu_alg5_privacy.toml", "--every-length"],
    ["privacy-loss", THEORIES / "svt_lyu_alg4_privacy.toml"],
    ["prob", PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[0,0,1]", "--eps", "1"],
    ["simulate", PROGRAMS / "sparse.dip", "--set", "T=1/2", "--input", "q=[0,1,0]", "--eps", "1", "-n", "200"],
], ids=lambda a: " ".join(getattr(x, "name", str(x)) for x in a))
def test_every_params_object_uses_numbers_for_integers(argv):
    code, out, err = run_main([*argv, "--json"])
    assert code in (0, 1), err
    found = list(_params_objects(json.loads(out)))
    assert found, "the output names its program's parameters"
    for where, params in found:
        bad = {k: v for k, v in params.items() if not _is_conventional(v)}
        assert not bad, f"{where}: {bad}"
    if "T=1/2" in argv:
        assert all(params["T"] == "1/2" and params["m"] == 3 for _, params in found)
    if argv[0] == "simulate":   # it printed no params before
        assert json.loads(out)["program_path"].endswith("sparse.dip")
