"""`dipc prob --symbolic` and `Program.symbolic`: per output the cells of the box as inequalities
on the inputs with the closed form on each, the same closed forms as `dipc prob --input` at points
of the cells, JSON and LaTeX, and bad input as exit 2 with a hint toward the per-point path."""
from __future__ import annotations

import json
import random
from fractions import Fraction as F

import pytest

import dipc_plus
from dipc_plus.exact.expoly import ExpFrac
from conftest import PROGRAMS, run_main

SPARSE = PROGRAMS / "sparse.dip"
NOISY_MAX = PROGRAMS / "noisy_max.dip"


def per_point_json(program, m: int, q: list) -> dict:
    """{outputs as JSON text: probability text} from `dipc prob --input --json`."""
    code, out, _ = run_main(["prob", program, "--set", f"m={m}", "--input",
                             "q=[" + ",".join(str(x) for x in q) + "]", "--json"])
    assert code == 0
    return {json.dumps(o["outputs"], sort_keys=True): o["probability"] for o in json.loads(out)["outcomes"]}


def test_the_text_report_names_cells_by_inequalities_and_prints_closed_forms():
    code, out, _ = run_main(["prob", "--symbolic", SPARSE, "--set", "m=2", "--box", "q=[-1,1]"])
    assert code == 0
    assert "for every q in [-1, 1]" in out and "Method: symbolic inputs" in out
    assert "out=[top, none]:  2 cells" in out and "out=[bot, top]:  6 cells" in out
    assert "  where q[1] <= 0:" in out and "  where q[1] > 0:" in out
    assert "q[1] - q[2] >= 0" in out
    assert "e^(1/4*q[1]*eps)" in out      # a closed form in eps and the inputs
    assert "summed out" not in out
    code, out, _ = run_main(["prob", "--symbolic", PROGRAMS / "numeric_sparse.dip", "--set", "m=2",
                             "--box", "q=[0,1]"])
    assert code == 0 and "The real outputs (val) are summed out." in out
    code, out, _ = run_main(["prob", "--symbolic", PROGRAMS / "numeric_sparse_fig4a.dip",
                             "--box", "q1=[0,1]", "--box", "q2=[0,0]", "--json"])
    report = json.loads(out)
    assert code == 0 and report["summed_out"] == ["o1_2", "o2_2"]
    assert all(c["constraints"] == ["q2 == 0"] and c["equality"] for o in report["outcomes"] for c in o["cells"])


def test_json_cells_hold_the_per_point_closed_forms():
    """Each JSON cell's form, read back through the API's cell at a point of the cell, is the
    `dipc prob --input` probability there (the same printer: identical text)."""
    code, out, _ = run_main(["prob", "--symbolic", NOISY_MAX, "--set", "m=3", "--box", "q=[-1,1]", "--json"])
    assert code == 0
    report = json.loads(out)
    assert report["method"] == "symbolic" and report["box"] == {"q": [-1, 1]}
    assert report["input_names"] == ["q[1]", "q[2]", "q[3]"]
    assert [o["outputs"] for o in report["outcomes"]] == [{"out": 1}, {"out": 2}, {"out": 3}]
    assert report["cells"] == sum(len(o["cells"]) for o in report["outcomes"]) == 18
    s = dipc_plus.load(NOISY_MAX, params={"m": 3}).symbolic(box={"q": (-1, 1)})
    rng = random.Random(2)
    for value, cells in s.cells.items():
        entry = next(o for o in report["outcomes"] if o["outputs"] == {"out": value})
        assert [c["probability"] for c in entry["cells"]] == [str(c.form.text(c.names)) for c in cells]
        for c in cells:
            q = c.cell.sample(rng, 2)[1]
            want = per_point_json(NOISY_MAX, 3, q)[json.dumps({"out": value})]
            assert str(c.form.at(q)) == want


def test_latex():
    code, out, _ = run_main(["prob", "--symbolic", NOISY_MAX, "--set", "m=2", "--box", "q=[0,1]", "--latex"])
    assert code == 0 and "\\epsilon q_{1}" in out and "e^{" in out


@pytest.mark.parametrize("args, words", [
    (["--box", "q=[1,-1]"], "above the upper end"),
    ([], "no bounds for the real input"),
    (["--box", "q=[0,1,2]"], "two numbers"),
    (["--box", "z=[0,1]"], "not an input"),
    (["--box", "q=[0,1]", "--input", "q=[0,0]"], "a real input is a symbol"),
    (["--box", "q=[0,1]", "--eps", "1"], "does not combine"),
])
def test_bad_input_is_exit_2_with_a_hint(args, words):
    code, _, err = run_main(["prob", "--symbolic", NOISY_MAX, "--set", "m=2"] + args)
    assert code == 2 and words in err and "Traceback" not in err and "hint:" in err


def test_a_box_on_a_finite_input_and_refused_programs(tmp_path):
    code, _, err = run_main(["prob", "--symbolic", PROGRAMS / "randomized_response.dip", "--box", "x=[0,1]"])
    assert code == 2 and "bool input, not a real one" in err
    dlap = tmp_path / "dlap_draw.dip"
    dlap.write_text("input x: real\noutput b: bool\nn <- DLap(eps, 0)\nb <- n >= 0\n")
    code, _, err = run_main(["prob", "--symbolic", dlap, "--box", "x=[0,1]"])
    assert code == 2 and "dlap_draw.dip:3:" in err and "DLap" in err and "Traceback" not in err
    assert "run without --symbolic for the per-point path" in err
    code, _, err = run_main(["prob", "--box", "q=[0,1]", NOISY_MAX])
    assert code == 2 and "--symbolic" in err


def test_the_api_object():
    program = dipc_plus.load(SPARSE, params={"m": 2})
    s = program.symbolic(box={"q": (-1, 1)})
    assert [len(v) for v in s.cells.values()] == [6, 6, 2]
    assert all(c.constraints for cells in s.cells.values() for c in cells)
    for q in ([F(0), F(1, 2)], [F(-1), F(-1)], [F(1, 3), F(1, 3)]):
        at = s.at(input={"q": q})
        d = program.distribution(input={"q": q})
        for value, exact in at.items():
            assert exact.value == (d[value] if value in {o.values for o in d} else ExpFrac.of(0))
    latex = s._repr_latex_()
    assert latex.startswith("$\\begin{array}") and "q_{2}" in latex
    with pytest.raises(dipc_plus.UserError) as err:
        s.at(input={"q": [0, 2]})
    assert "outside the box" in err.value.message
    with pytest.raises(dipc_plus.UserError) as err:
        program.symbolic(box={"q": (1, 0)})
    assert "box['q']" in err.value.message


def test_docs_json_md_documents_every_key():
    import re
    from conftest import ROOT
    section = (ROOT / "docs/json.md").read_text().split("## `dipc prob --json`", 1)[1].split("\n## ", 1)[0]
    keys = set(re.findall(r"`([a-z_]+)`", section)) | set(re.findall(r'"([a-z_]+)"', section))
    code, out, _ = run_main(["prob", "--symbolic", NOISY_MAX, "--set", "m=2", "--box", "q=[-1,1]", "--json"])
    data = json.loads(out)
    assert code == 0 and set(data) <= keys
    assert set(data["outcomes"][0]) <= keys and set(data["outcomes"][0]["cells"][0]) <= keys
