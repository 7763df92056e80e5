"""Issue 26 rows 7, 9, 10, 17, 20 and issue 30 points 6, 11, from the user's command: pseudo-files
are not inputs, special files are never written through, outputs honour the umask, and a bad
or unreachable Dask scheduler is one clean exit-2 line."""
from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import subprocess
import sys
import time

import pytest

from conftest import PROGRAMS, ROOT, THEORIES, run_main

QUICK = ["--timeout", "0", "--max-memory", "0"]   # in this process: no guarded child
COIN = THEORIES / "randomized_response_coin_privacy.toml"   # privacy-loss in milliseconds


run = run_main   # main(argv) in this process: (exit, stdout, stderr)


def refused(code, out, err, word=None, as_json=False):
    """Exit 2, no traceback, and under --json exactly one JSON object on stdout naming the error."""
    assert code == 2, (out, err)
    assert "Traceback" not in err + out
    if as_json:
        obj = json.loads(out)
        assert obj["exit"] == 2 and obj["error"]["message"]
        text = obj["error"]["message"]
    else:
        assert err.count("error:") == 1, err
        text = err
    if word:
        assert word in text, text
    return text


def claim_with_program(tmp_path, program: str):
    text = (THEORIES / "laplace_privacy.toml").read_text()
    text, n = re.subn(r'^path\s*=.*$', f'path = "{program}"', text, flags=re.M)
    assert n == 1
    path = tmp_path / "claim.toml"
    path.write_text(text)
    return path


# -- row 7: /proc and /sys files are not inputs ---------------------------------------------------

@pytest.mark.parametrize("pseudo", ["/proc/self/mem", "/proc/self/environ", "/proc/self/status",
                                    "/sys/kernel/mm/transparent_hugepage/enabled"])
def test_pseudo_file_as_program_is_refused(pseudo):
    if not os.path.exists(pseudo):
        pytest.skip(f"{pseudo} is not on this machine")
    code, out, err = run(["show", pseudo, *QUICK])
    refused(code, out, err, "a file of the kernel")
    assert "PATH=" not in err   # the environment is never echoed as tokens of a program


def test_pseudo_file_as_claim_program_path_is_refused(tmp_path):
    claim = claim_with_program(tmp_path, "/proc/self/mem")
    code, out, err = run(["privacy", claim, "--json", *QUICK])
    refused(code, out, err, "a file of the kernel", as_json=True)


def test_pseudo_file_as_merge_part_is_refused():
    code, out, err = run(["merge", "/proc/self/mem", "--json"])
    refused(code, out, err, "a file of the kernel", as_json=True)


# -- row 9: a figure name matplotlib cannot write is refused before any work ----------------------

@pytest.mark.parametrize("name", ["DIR", "noext", "x.txt"])
def test_privacy_loss_plot_names_refused_before_work(tmp_path, name):
    target = tmp_path / name
    if name == "DIR":
        target.mkdir()
    # the claim does not exist: the plot path is refused first, so before any loading or checking
    code, out, err = run(["privacy-loss", tmp_path / "no_such_claim.toml", "--plot", target, *QUICK])
    text = refused(code, out, err)
    assert "claim" not in text   # (a long path is clipped in messages: look for the words instead)
    assert ("is a folder" if name == "DIR" else "must end in .png") in text, text
    assert sorted(os.listdir(tmp_path)) == (["DIR"] if name == "DIR" else [])


def test_plot_and_privacy_loss_refuse_the_same_names(tmp_path):
    for name in ("noext", "x.txt"):
        a = run(["privacy-loss", COIN, "--plot", tmp_path / name, *QUICK])
        b = run(["plot", THEORIES / "laplace.toml", "--input", "q=[0,1]", "-o", tmp_path / name, *QUICK])
        assert a[0] == b[0] == 2 and "Traceback" not in a[2] + b[2]
        assert ".png" in a[2] and ".png" in b[2]


# -- row 10: never write through a special file ----------------------------------------------------

def _special(tmp_path, kind):
    path = tmp_path / f"out_{kind}.png"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink_stdout":
        os.symlink("/proc/self/fd/1", path)
    elif kind == "symlink_file":
        (tmp_path / "real.png").write_bytes(b"keep me")
        os.symlink(tmp_path / "real.png", path)
    elif kind == "device":
        try:
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))   # a second /dev/null
        except PermissionError:
            pytest.skip("os.mknod needs root")
    elif kind == "socket":
        import socket
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    return path


SPECIAL = ["fifo", "symlink_stdout", "symlink_file", "device", "socket"]


@pytest.mark.parametrize("kind", SPECIAL)
def test_output_never_replaces_a_special_file(tmp_path, kind):
    path = _special(tmp_path, kind)
    before = os.lstat(path)
    for argv in (["plot", THEORIES / "laplace.toml", "--input", "q=[0,1]", "-o", path],
                 ["privacy-loss", COIN, "--plot", path, "--json"],
                 ["dtmc", PROGRAMS / "laplace.dip", "--input", "q=[0,1]", "-o", path]):
        code, out, err = run([*argv, *QUICK])
        refused(code, out, err, "not a regular file", as_json="--json" in argv)
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)
    if kind == "symlink_file":
        assert (tmp_path / "real.png").read_bytes() == b"keep me"


def test_prism_props_path_is_checked_before_the_model_is_written(tmp_path):
    """`dtmc --format prism -o X.pm` also writes X.props: a FIFO there is refused before X.pm exists."""
    os.mkfifo(tmp_path / "model.props")
    code, out, err = run(["dtmc", PROGRAMS / "laplace.dip", "--input", "q=[0,1]", "--format", "prism",
                          "-o", tmp_path / "model.pm", *QUICK])
    refused(code, out, err, ".props")
    assert not (tmp_path / "model.pm").exists()
    assert stat.S_ISFIFO(os.lstat(tmp_path / "model.props").st_mode)


def test_output_into_a_missing_folder_or_proc_is_refused_first(tmp_path):
    code, out, err = run(["privacy-loss", tmp_path / "nothere.toml", "--plot", tmp_path / "no/such/dir/x.png",
                          *QUICK])
    assert "does not exist" in refused(code, out, err)
    code, out, err = run(["dtmc", PROGRAMS / "laplace.dip", "--input", "q=[0,1]", "-o", "/proc/self/comm", *QUICK])
    refused(code, out, err)


def test_output_is_still_written_atomically_over_a_regular_file(tmp_path):
    path = tmp_path / "loss.png"
    path.write_bytes(b"old")
    code, out, err = run(["privacy-loss", COIN, "--plot", path, *QUICK])
    assert code == 0, err
    assert path.read_bytes().startswith(b"\x89PNG")
    assert os.listdir(tmp_path) == ["loss.png"]   # no temporary file left


# -- issue 30 point 6: output files honour the umask -------------------------------------------------

@contextlib.contextmanager
def umask(mask):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_outputs_honour_the_umask(tmp_path, mask):
    with umask(mask):
        code, _, err = run(["privacy-loss", COIN, "--plot", tmp_path / "loss.png", *QUICK])
        assert code == 0, err
        code, _, err = run(["dtmc", PROGRAMS / "laplace.dip", "--input", "q=[0,1]", "--format", "prism",
                            "-o", tmp_path / "chain.pm", *QUICK])
        assert code == 0, err
    for name in ("loss.png", "chain.pm", "chain.props"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o666 & ~mask, name


def test_an_existing_output_keeps_its_mode(tmp_path):
    path = tmp_path / "chain.dot"
    path.write_text("old")
    os.chmod(path, 0o640)
    code, _, err = run(["dtmc", PROGRAMS / "laplace.dip", "--input", "q=[0,1]", "-o", path, *QUICK])
    assert code == 0, err
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert path.read_text() != "old"


def test_the_installed_command_writes_0644_under_umask_022(tmp_path):
    """The user's command in its own process (the guarded child included)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(["sh", "-c", f'umask 022 && exec "{sys.executable}" -m dipc_plus.cli dtmc '
                                       f'"{PROGRAMS / "laplace.dip"}" --input "q=[0,1]" -o "{tmp_path / "c.dot"}"'],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(os.stat(tmp_path / "c.dot").st_mode) == 0o644


# -- row 17, issue 30 point 11: the Dask scheduler's address ------------------------------------------

SVT1 = THEORIES / "svt_lyu_alg1_privacy.toml"   # verified, 316 pairs: several tasks


@pytest.mark.parametrize("address, says", [
    ("bogus://x", "unknown protocol"), ("tcp://", "no host"), ("x", "no port"), ("tcp://h:abc", "port"),
    ("inproc://foo", "in-process"), ("tcp://[::1", "closing ']'"), ("tcp://h:0", "port"),
    ("tcp://[nonsense]:8786", "IPv6"), ("tcp://a b:1", "host"),
])
def test_a_bad_scheduler_address_is_exit_2_with_a_hint(address, says, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    code, out, err = run(["privacy", SVT1, "--executor", "dask", "--scheduler", address, "--json", *QUICK])
    obj = json.loads(out)
    assert code == 2 and obj["exit"] == 2 and "Traceback" not in out + err
    assert says in obj["error"]["message"] and "tcp://" in obj["error"]["hint"]
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", address)     # the same address from the environment
    code, out, err = run(["privacy", SVT1, "--executor", "dask", *QUICK])
    assert code == 2 and "DASK_SCHEDULER_ADDRESS" in err and says in err and "Traceback" not in err


@pytest.fixture(scope="module")
def cluster():
    dist = pytest.importorskip("distributed")
    with dist.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=50) as c:
        yield c.scheduler_address


def _without_seconds(obj):
    from dipc_plus.commands.merge import without_timing
    return without_timing(obj)


def test_dask_scheduler_address_from_the_environment(cluster, monkeypatch):
    local = run(["privacy", SVT1, "--json", *QUICK])
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster)
    code, out, err = run(["privacy", SVT1, "--executor", "dask", "--jobs", "2", "--json", *QUICK])
    assert code == local[0] == 0, err
    assert _without_seconds(json.loads(out)) == _without_seconds(json.loads(local[1]))
    assert f"the scheduler {cluster} (from DASK_SCHEDULER_ADDRESS)" in err   # says which address it used
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://127.0.0.1:9")       # --scheduler wins over it
    code, out, err = run(["privacy", SVT1, "--executor", "dask", "--scheduler", cluster, "--json", *QUICK])
    assert code == 0 and "DASK_SCHEDULER_ADDRESS" not in err


def test_a_tasks_own_error_is_not_called_a_lost_worker():
    from dipc_plus.execution.executor import is_dask_failure
    assert not is_dask_failure(ValueError("a bug of ours"))
    assert is_dask_failure(type("KilledWorker", (Exception,), {})("w"))


# -- row 20: the scheduler killed mid-run is one line naming the scheduler ----------------------------

def _descendants(pid: int) -> list:
    psutil = pytest.importorskip("psutil")
    try:
        return [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _alive(proc) -> bool:
    import psutil
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("as_json", [True, False])
def test_the_scheduler_killed_mid_run_is_one_line_naming_it(tmp_path, as_json):
    dist = pytest.importorskip("distributed")
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--no-dashboard"], **quiet)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                               "--no-dashboard", "--no-nanny"], **quiet)
    check = None
    try:
        with dist.Client(address, timeout="60s") as watcher:
            watcher.wait_for_workers(1, timeout=60)
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            check = subprocess.Popen([sys.executable, "-m", "dipc_plus.cli", "accuracy", THEORIES / "sparse.toml",
                                      "--set", "m=7", "--set", "c=1", "--executor", "dask", "--scheduler", address,
                                      "--jobs", "2", "--no-progress", *(["--json"] if as_json else [])],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
            # kill the scheduler once it holds the check's tasks: mid-run, whatever the machine's speed
            for _ in range(1200):
                if watcher.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) > 0:
                    break
                if check.poll() is not None:
                    pytest.fail(f"the check ended before it reached the scheduler: {check.communicate()}")
                time.sleep(0.1)
            ours = _descendants(check.pid)
            scheduler.kill()
        out, err = check.communicate(timeout=150)
        time.sleep(0.5)
        assert not [p for p in ours if _alive(p)], "a process of the check outlived it"
    finally:
        for proc in (check, worker, scheduler):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    assert check.returncode == 2, (out, err)
    assert "Traceback" not in out + err
    if as_json:
        obj = json.loads(out)
        assert err == ""
        message = obj["error"]["message"]
    else:
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 2 and lines[1].lstrip().startswith("hint:"), err
        message = lines[0]
    assert "Dask scheduler" in message and "worker" not in message
