"""Where a check runs must not change what it says: the same JSON (apart from "seconds") from
`--jobs 1`, `--jobs 2`, `--executor dask` on a real dask.distributed LocalCluster with two
worker processes, and from `--shard I/N` parts joined by `dipc merge`.  And every way a
distributed run can go wrong ends with exit 2 and a message, never a traceback."""
from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess

import pytest

from dipc_plus.cli import main
from dipc_plus.commands.merge import without_timing

from dipc_plus.errors import UserError
from dipc_plus.execution.executor import Executor, Source, run_tasks
from conftest import ROOT

distributed = pytest.importorskip("distributed")



@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as c:
        yield c.scheduler_address


def dipc(*argv):
    """The command run in this process (as a user runs it, minus the interpreter start-up)."""
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as stop:   # argparse's own errors
                code = stop.code
    finally:
        os.chdir(cwd)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def checked(proc, codes=(0, 1)):
    assert proc.returncode in codes, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


CHECKS = [
    ("privacy", "theories/sparse_privacy.toml", ()),                       # Sparse, verified
    ("privacy", "theories/noisy_max_loop_privacy.toml", ("--set", "m=4")),  # NoisyMax, verified
    ("privacy", "theories/svt_lyu_alg1_privacy.toml", ()),                 # SVT (Lyu Alg. 1), verified
    ("privacy", "theories/svt_lyu_alg4_privacy.toml", ()),                 # SVT (Lyu Alg. 4), refuted
    ("accuracy", "theories/sparse.toml", ("--set", "m=3", "--set", "c=1")),
    ("accuracy", "theories/noisy_max.toml", ()),
    ("privacy-loss", "theories/noisy_min_privacy.toml", ()),              # the exact loss envelope
    ("accuracy", "theories/sparse.toml", ("--set", "m=3", "--set", "c=1", "--dd-over", "grid")),  # refuted
    ("sweep", "theories/sparse.toml", ("--set", "m=3", "--set", "c=1", "--dd-over", "grid")),     # refuted
    ("privacy", "theories/truncated_geometric_pufferfish.toml", ()),          # Pufferfish, verified
    ("privacy", "theories/truncated_geometric_count_pufferfish.toml", ()),    # Pufferfish, refuted
    ("privacy-loss", "theories/truncated_geometric_pufferfish.toml", ()),     # Pufferfish likelihood ratios
    ("privacy", "theories/above_threshold_gap_privacy.toml", ()),            # every m: exact losses, no constant
    ("privacy", "theories/svt_lyu_alg4_privacy.toml", ("--every-length",)),  # every m: refuted at a concrete m
]


def _argv(check):
    command, claim, extra = check
    return [command, claim, *extra, "--json"]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: f"{c[0]}-{os.path.basename(c[1])}{'-grid' * ('grid' in c[2])}")
def test_every_executor_gives_the_same_json(check, cluster):
    argv = _argv(check)
    serial = checked(dipc(*argv, "--jobs", "1"))
    local = checked(dipc(*argv, "--jobs", "2"))
    on_dask = checked(dipc(*argv, "--executor", "dask", "--scheduler", cluster, "--jobs", "2"))
    assert without_timing(serial) == without_timing(local) == without_timing(on_dask)
    assert list(serial) == list(on_dask)
    if check[0] == "privacy-loss" and "pufferfish" in check[1]:
        assert len(serial["rows"]) == 6 and serial["worst"]["loss"].startswith("ln(2)")
    elif check[0] == "privacy-loss":
        assert serial["loss"] and serial["pairs"] > 0
    elif "every-length" in check[2] or "gap" in check[1]:
        assert "class_check_ms" in serial    # the one timing field besides "seconds"
        if "gap" in check[1]:                # the exact losses at m = 1, 2, 3 were computed on the workers
            assert serial["verdict"] == "not private for any constant"
            assert [row["m"] for row in serial["losses"]] == [1, 2, 3]
        else:                                # the exact eps-DP check that refutes, on the workers
            assert serial["verdict"] == "refuted" and serial["counterexample"]["verdict"] == "refuted"
            assert serial["counterexample_m"] == 2 and "counterexample" in serial["counterexample"]
    elif "grid" in check[2]:                 # counterexamples made in workers travel back
        assert serial["verdict"] == "refuted"
    elif "svt_lyu_alg4" in check[1] or "count_pufferfish" in check[1]:
        assert serial["verdict"] == "refuted" and "counterexample" in serial
    else:
        assert serial["verdict"] == "verified"


GRID_DD = CHECKS[7]


@pytest.mark.parametrize("check,n", [(CHECKS[0], 3), (CHECKS[3], 4), (CHECKS[4], 3), (CHECKS[5], 2), (GRID_DD, 3)],
                         ids=["sparse-privacy", "svt4-refuted", "sparse-accuracy", "noisy-max-accuracy",
                              "dd-over-the-whole-grid"])
def test_shards_merge_into_the_unsharded_run(check, n, tmp_path):
    argv = _argv(check)
    whole = dipc(*argv)
    parts = []
    for i in range(1, n + 1):
        proc = dipc(*argv, "--shard", f"{i}/{n}")
        part = checked(proc)
        assert part["part"]["index"] == i and part["part"]["of"] == n
        path = tmp_path / f"part{i}.json"
        path.write_text(proc.stdout)
        parts.append(str(path))
    merged = dipc("merge", *reversed(parts))          # any order
    assert merged.returncode == whole.returncode, merged.stderr
    assert without_timing(json.loads(merged.stdout)) == without_timing(json.loads(whole.stdout))
    assert list(json.loads(merged.stdout)) == list(json.loads(whole.stdout))


def test_more_shards_than_pairs_still_merge(tmp_path):
    argv = ["privacy", "theories/svt_lyu_alg1_privacy.toml", "--json", "--set", "m=1"]
    whole = checked(dipc(*argv))
    paths = []
    n = whole["pairs_checked"] + 2
    for i in range(1, n + 1):
        path = tmp_path / f"p{i}.json"
        path.write_text(dipc(*argv, "--shard", f"{i}/{n}").stdout)
        paths.append(str(path))
    merged = checked(dipc("merge", *paths))
    assert without_timing(merged) == without_timing(whole)


def _parts(tmp_path, argv, n, stem="p"):
    paths = []
    for i in range(1, n + 1):
        path = tmp_path / f"{stem}{i}.json"
        path.write_text(dipc(*argv, "--shard", f"{i}/{n}").stdout)
        paths.append(str(path))
    return paths


def test_merge_refuses_parts_that_do_not_make_one_run(tmp_path):
    argv = ["privacy", "theories/svt_lyu_alg1_privacy.toml", "--json"]
    a = _parts(tmp_path, argv, 3, "a")
    other = _parts(tmp_path, ["privacy", "theories/svt_lyu_alg1_privacy.toml", "--json", "--set", "m=2"], 3, "b")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{ not json")
    plain = tmp_path / "plain.json"
    plain.write_text(dipc(*argv).stdout)
    for files, says in [
        (a[:2], "missing: 3/3"),
        (a + a[:1], "given twice"),
        (a[:2] + other[2:], "another run"),
        (a[:2] + [str(garbage)], "not JSON"),
        (a[:2] + [str(plain)], "not a part"),
        (a[:2] + [str(tmp_path / "nowhere.json")], "no such file"),
    ]:
        proc = dipc("merge", *files)
        assert proc.returncode == 2, (files, proc.stdout)
        assert says in proc.stderr and "Traceback" not in proc.stderr
        assert "hint:" in proc.stderr


@pytest.mark.parametrize("argv,says", [
    (["privacy", "theories/svt_lyu_alg1_privacy.toml", "--shard", "1/2"], "JSON"),
    (["privacy", "theories/svt_lyu_alg1_privacy.toml", "--json", "--shard", "0/2"], "between 1 and N"),
    (["privacy", "theories/svt_lyu_alg1_privacy.toml", "--json", "--shard", "1of2"], "I/N"),
    (["privacy", "theories/sparse_resample_once_privacy.toml", "--json", "--shard", "1/2"], "cannot be cut"),
    (["accuracy", "theories/noisy_max.toml", "--json", "--first", "--shard", "1/2"], "--first"),
    (["sweep", "theories/noisy_max.toml", "--json", "--shard", "1/2"], "unrecognized"),
    (["privacy", "theories/svt_lyu_alg1_privacy.toml", "--executor", "dask"], "--scheduler"),
    (["privacy", "theories/svt_lyu_alg1_privacy.toml", "--scheduler", "tcp://127.0.0.1:9"], "--executor dask"),
])
def test_bad_execution_options_are_clear_errors(argv, says):
    proc = dipc(*argv)
    said = proc.stdout + proc.stderr    # with --json the error is JSON on stdout
    assert proc.returncode == 2 and says in said and "Traceback" not in said


def test_an_unreachable_scheduler_is_a_clear_error():
    proc = dipc("privacy", "theories/svt_lyu_alg1_privacy.toml", "--executor", "dask", "--scheduler",
                "tcp://127.0.0.1:9")
    assert proc.returncode == 2 and "cannot reach the Dask scheduler" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------------- the seam itself on the cluster

def make_offset(offset):
    return {"offset": offset}


def add_offset(source, x):
    return x + source.get()["offset"]


def die_at_3(source, x):
    if x == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def read_text(path):
    with open(path) as fh:
        return fh.read()


def first_line(source, _):
    return source.get().splitlines()[0]


def test_dask_tasks_come_back_in_order(cluster):
    source = Source.of(make_offset, (5,), [])
    out = list(run_tasks(add_offset, source, list(range(30)), executor=Executor("dask", 2, cluster)))
    assert out == [x + 5 for x in range(30)]


def test_a_dask_worker_that_dies_is_a_user_error(cluster):
    with pytest.raises(UserError, match="Dask worker died"):
        list(run_tasks(die_at_3, Source.of(make_offset, (0,), []), list(range(6)),
                       executor=Executor("dask", 2, cluster)))


def test_a_scheduler_without_workers_ends_the_run(monkeypatch):
    """Dask keeps parts waiting for a worker forever; a run ends after DIPC_DASK_WORKER_WAIT s
    (the hang was seen when a loaded machine did not bring a killed worker back)."""
    monkeypatch.setenv("DIPC_DASK_WORKER_WAIT", "2")
    with distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0", silence_logs=50) as empty:
        with pytest.raises(UserError, match="no Dask worker has been connected"):
            list(run_tasks(add_offset, Source.of(make_offset, (0,), []), [1, 2],
                           executor=Executor("dask", 2, empty.scheduler_address)))


def test_a_worker_wait_that_is_not_a_number_is_a_user_error(monkeypatch):
    monkeypatch.setenv("DIPC_DASK_WORKER_WAIT", "soon")
    with distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0", silence_logs=50) as empty:
        with pytest.raises(UserError, match="DIPC_DASK_WORKER_WAIT"):
            list(run_tasks(add_offset, Source.of(make_offset, (0,), []), [1, 2],
                           executor=Executor("dask", 2, empty.scheduler_address)))


def test_a_dask_worker_refuses_other_file_contents(cluster, tmp_path):
    claim = tmp_path / "c.toml"
    claim.write_text("seen by the client\n")
    source = Source.of(read_text, (str(claim),), [str(claim)])
    claim.write_text("changed before the workers read it\n")
    with pytest.raises(UserError, match="different"):
        list(run_tasks(first_line, source, [0, 1], executor=Executor("dask", 2, cluster)))


def test_a_check_not_loaded_from_files_cannot_go_to_dask(cluster):
    source = Source(None, (), (), key="only-in-this-process")
    source.seed({"offset": 1})
    with pytest.raises(UserError, match="not loaded from files"):
        list(run_tasks(add_offset, source, [1, 2], executor=Executor("dask", 2, cluster)))
