"""Where `step` goes (issue 42, surfaces round 3): beside `grid` in the inputs table, as
docs/claims.md shows; written inside `grid = {...}` it is refused at its line with a hint that
says where it belongs, not "did you mean ...? its inputs are: q"."""
from __future__ import annotations

import re

from conftest import ROOT, THEORIES, run_main


def _claim(tmp_path, source: str, old: str, new: str):
    text = (THEORIES / source).read_text().replace('path = "../programs/', f'path = "{(ROOT / "programs").as_posix()}/')
    assert old in text
    path = tmp_path / source
    path.write_text(text.replace(old, new))
    return path


def test_the_documented_example_is_a_valid_grid(tmp_path):
    doc = (ROOT / "docs/claims.md").read_text()
    block = re.search(r"```toml\n((?: *.+\n)+?) *```", doc[doc.index("### `[accuracy.inputs]`"):])
    assert block is not None and "step" in block.group(1)
    table = "".join(line.strip() + "\n" for line in block.group(1).splitlines())
    path = _claim(tmp_path, "noisy_max.toml", "[accuracy.inputs]\ngrid = { q = [-1, 1] }\n", table)
    code, out, err = run_main(["accuracy", path, "--set", "m=2"])
    assert code == 0 and "(step 1/2)" in out, err


def test_step_inside_the_grid_is_refused_with_where_it_goes(tmp_path):
    path = _claim(tmp_path, "noisy_max.toml", "grid = { q = [-1, 1] }", 'grid = { q = [-1, 1], step = "1/2" }')
    code, _, err = run_main(["accuracy", path])
    assert code == 2 and "Traceback" not in err
    assert ":8: error: accuracy.inputs.grid: 'step' is not an input" in err
    assert "step is a key of [accuracy.inputs] beside grid, not inside it" in err


def test_the_privacy_grid_says_the_same(tmp_path):
    path = _claim(tmp_path, "svt_lyu_alg5_privacy.toml", "grid = { q = [0, 1] }", 'grid = { q = [0, 1], step = "1/2" }')
    code, _, err = run_main(["privacy", path])
    assert code == 2 and "step is a key of [privacy.inputs] beside grid, not inside it" in err
