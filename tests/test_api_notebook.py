"""docs/tutorial.ipynb runs as Jupyter runs it: in a real kernel (nbclient), with the notebook's own
folder (docs/) as the working directory, top to bottom, and its plots are shown inline.

This replaces an older test that executed the cells in this process after changing directory to the
repository root, and so passed while `jupyter nbconvert --execute` failed on the first cell.
"""
from __future__ import annotations

import base64
import json
import os
import re

import pytest
from conftest import ROOT

NOTEBOOK = ROOT / "docs" / "tutorial.ipynb"


def _outputs(nb, kind: str) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if kind in o.get("data", {})]


def test_the_tutorial_notebook_runs_in_a_kernel_from_its_folder_and_shows_its_plots(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the kernel imports this checkout (not whichever dipc_plus is installed)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()   # raises CellExecutionError, with the cell and its traceback, if any cell fails
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    # plots are displayed, not printed as "<Figure size ...>": real PNG images in the output
    images = _outputs(nb, "image/png")
    assert len(images) >= 3
    for out in images:
        assert base64.b64decode(out["data"]["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
    texts = "\n".join(o["data"]["text/plain"] for o in _outputs(nb, "text/plain"))
    streams = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
                      if o.output_type == "stream")
    # the answers a reader is shown: the counterexample grouped by array, the paper's constant,
    # the coin's tight budget ln(3) holding
    assert "Counterexample(input={'q': [-1, -1, 1]}, eps=1" in texts
    assert "best kappa = 6" in streams and "KappaStar(6.3758" in texts
    assert "('ln(3)', True)" in texts
    assert "object at 0x" not in texts and "Outcome(" not in texts
    # the typo's error names the text, its line and column
    assert "typo 2 15" in streams


def test_the_notebook_names_its_files_through_example_only():
    """A path relative to the working directory would break in one of the folders Jupyter may use:
    every bundled file is named through dipc_plus.example(...)."""
    nb = json.loads(NOTEBOOK.read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    named = re.findall(r"""["']((?:\.\./)?(?:programs|theories)/[^"']+)["']""", code)
    assert named, "the notebook uses bundled examples"
    for path in named:
        assert f'example("{path}")' in code, path
        assert (ROOT / path).is_file(), path
    assert "chdir" not in code
