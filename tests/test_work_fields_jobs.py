"""`work` has the same fields with `--jobs` as without (issue 42, surfaces round 3): an accuracy
check's per-process counts are null under workers, not missing (docs/cluster.md says so)."""
from __future__ import annotations

import json

from conftest import ROOT, THEORIES, run_main


def _work(argv):
    code, out, err = run_main([*argv, "--json"])
    assert code in (0, 1), err
    return json.loads(out)["work"]


def test_accuracy_work_has_the_same_fields_with_jobs():
    alone = _work(["accuracy", THEORIES / "sparse.toml", "--jobs", "1"])
    workers = _work(["accuracy", THEORIES / "sparse.toml", "--jobs", "2"])
    assert set(alone) == set(workers) and {"distributions", "decisions"} <= set(workers)
    assert isinstance(alone["distributions"], int) and isinstance(alone["decisions"], int)
    assert workers["distributions"] is None and workers["decisions"] is None
    assert {k: v for k, v in alone.items() if k not in ("distributions", "decisions")} == \
        {k: v for k, v in workers.items() if k not in ("distributions", "decisions")}
    assert "work.distributions" in (ROOT / "docs/cluster.md").read_text()
