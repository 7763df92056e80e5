"""Issue 30, point 4: the API's executor='dask' and scheduler= are the command's --executor dask and
--scheduler, on a real dask.distributed LocalCluster (its own file: a cluster takes a while to start)."""
from __future__ import annotations

import pytest
from conftest import THEORIES

import dipc_plus

SVT4 = THEORIES / "svt_lyu_alg4_privacy.toml"


def _comparable(obj):
    """JSON without wall-clock times."""
    if isinstance(obj, dict):
        return {k: _comparable(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [_comparable(v) for v in obj]
    return obj


def test_point4_executor_dask_runs_api_checks_on_a_cluster_text_claims_included():
    """executor='dask', scheduler=... is the command's --executor dask: the same verdict and JSON as in
    this process, for a claim file and for a claim written as text (its file lives while the Claim does)."""
    distributed = pytest.importorskip("distributed")
    claim = dipc_plus.Claim.from_text(SVT4.read_text(), base_dir=SVT4.parent, name="svt4_cell")
    serial = _comparable(dipc_plus.check_privacy(SVT4).to_json())
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as cluster:
        on_file = dipc_plus.check_privacy(SVT4, executor="dask", scheduler=cluster.scheduler_address, jobs=2)
        on_text = dipc_plus.check_privacy(claim, executor="dask", scheduler=cluster.scheduler_address)
    assert _comparable(on_file.to_json()) == serial
    from_text = _comparable(on_text.to_json())
    assert from_text.pop("claim") == "svt4_cell" and serial.pop("claim") == str(SVT4)
    assert from_text == serial
