"""A run stopped by --timeout reports what it had decided (issue 8: "what was decided so far")."""
import json
import os
import subprocess
import sys

from conftest import count_ledger_writes, ledger_of

from dipc_plus.execution import ledger


def _run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "dipc_plus", *args], capture_output=True, text=True, timeout=120,
                          env=None if env is None else {**os.environ, **env})


def test_collector_joins_lines_split_across_reads():
    c = ledger.Collector()
    line = json.dumps({"scope": "input", "item": "q=[1]", "verdict": "verified"}) + "\n"
    data = (line * 3).encode()
    c.feed(data[:10])
    c.feed(data[10:50])
    c.feed(data[50:])
    assert [r["item"] for r in c.records] == ["q=[1]"] * 3
    c.feed(b"not json\n")
    assert len(c.records) == 3


def test_summary_groups_by_verdict_and_counts_dropped():
    recs = [{"scope": "input", "item": f"q=[{i}]", "verdict": "verified" if i % 2 else "refuted"} for i in range(8)]
    text = ledger.summary(recs, dropped=2)
    assert "10 items" in text
    assert "4 inputs verified" in text and "4 inputs refuted" in text
    assert "(2 more not kept)" in text
    assert ledger.summary([]) == "nothing was decided before the stop"


def test_record_without_guard_is_silent(capfd):
    """Detached, a record is written nowhere: the pipe that heard the first record (the
    control) hears nothing more, and nothing reaches stdout or stderr."""
    r, w = os.pipe()
    try:
        ledger.attach(w)
        ledger.record("input", [("q=[1]", "verified")])
        ledger.attach(None)
        assert not ledger.active()
        ledger.record("input", [("q=[0]", "verified")])
    finally:
        ledger.attach(None)
        os.close(w)
    with os.fdopen(r) as pipe:
        items = [json.loads(line)["item"] for line in pipe.read().splitlines()]
    assert items == ["q=[1]"]
    assert capfd.readouterr() == ("", "")


def test_timeout_json_lists_the_inputs_decided_before_the_stop():
    # Sparse c=1 over [-1,1]^8 (6561 inputs) on the per-point path (classes off) takes far longer than
    # 4 s; the first inputs take well under (with output supports the whole grid takes about 3 s)
    proc = _run("accuracy", "theories/sparse.toml", "--set", "m=8", "--set", "c=1", "--timeout", "4", "--json",
                env={"DIPC_CLASSES": "off"})
    assert proc.returncode == 2, proc.stderr
    out = json.loads(proc.stdout)
    assert out["exit"] == 2 and "time limit" in out["error"]["message"]
    decided = out["decided_so_far"]
    assert decided and all(r["scope"] == "input" for r in decided)
    assert {r["verdict"] for r in decided} <= {"verified", "not applicable"}  # Sparse's claim holds
    assert decided[0]["item"] == "q=[-1,-1,-1,-1,-1,-1,-1,-1]"      # grid order: the first input first
    assert "Traceback" not in proc.stderr


def test_timeout_text_prints_a_summary_after_the_message():
    # the per-point path (classes off): Sparse m = 8 takes about 100 s there, and its inputs are
    # decided one by one from the start (with output supports the whole grid takes about 3 s)
    proc = _run("accuracy", "theories/sparse.toml", "--set", "m=8", "--set", "c=1", "--timeout", "4",
                "--no-progress", env={"DIPC_CLASSES": "off"})
    assert proc.returncode == 2
    assert "stopped after the time limit of 4 s" in proc.stderr
    assert "decided before the stop" in proc.stderr and "inputs verified" in proc.stderr
    assert "Traceback" not in proc.stderr


def _svt_m2_privacy_with_its_ledger():
    """SVT Alg. 1 privacy at m = 2 checked in this process, and the ledger lines it wrote."""
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    from dipc_plus.privacy.dp.check import check_dp
    return ledger_of(lambda w: check_dp(load_privacy_claim("theories/svt_lyu_alg1_privacy.toml", {"m": 2})))


def test_privacy_check_records_each_pair_that_holds(monkeypatch):
    # Every neighbouring pair the privacy check finishes is one ledger line, as the user writes
    # the inputs; a stopped run lists them (SVT Alg. 1, m = 2, grid {-1, 0, 1}^2).  The per-pair
    # walk: the check by output support (DIPC_CLASSES on) records one line per output instead.
    monkeypatch.setenv("DIPC_CLASSES", "off")
    res, c = _svt_m2_privacy_with_its_ledger()
    assert res.verified and len(c.records) == res.pairs > 0
    assert all(rec["scope"] == "pair" and rec["verdict"] == "holds" for rec in c.records)
    assert c.records[0]["item"].startswith("q=[-1, -1] vs q=[")


def test_privacy_check_by_output_support_records_each_output_that_holds(monkeypatch):
    # The support path never lists the pairs: a stopped run lists the outputs whose every pair held.
    monkeypatch.delenv("DIPC_CLASSES", raising=False)
    res, c = _svt_m2_privacy_with_its_ledger()
    assert res.verified and res.work["path"] == "output orbits"   # per output, as by output support
    assert len(c.records) == 3   # outputs (bot, bot), (bot, top), (top, none)
    assert all(rec["scope"] == "pair" and rec["verdict"] == "holds" and "output" in rec["item"]
               for rec in c.records)


def test_a_parallel_accuracy_run_records_each_part_in_one_write(monkeypatch):
    # Each input the workers decide is one ledger line, in input order, and the lines of one
    # part (a worker's range of inputs) go to the guard in one write, not one write per input.
    from dipc_plus.accuracy.checker import AccuracyChecker
    from dipc_plus.claims.claim_file import load_claim
    from dipc_plus.execution.executor import Executor
    writes = []
    checker = AccuracyChecker(load_claim("theories/sparse.toml", {"m": 3, "c": 1}))

    def run(w):
        count_ledger_writes(monkeypatch, w, writes)
        try:
            return checker.run(executor=Executor.local(2), summarize="nothing")
        finally:
            monkeypatch.undo()

    res, c = ledger_of(run)
    assert [rec["item"] for rec in c.records] == [f"q=[{','.join(map(str, p))}]" for p in
                                                  ([p[f"q[{i}]"] for i in (1, 2, 3)] for p in checker.claim.points)]
    assert len(c.records) == res.tally.inputs == 27
    assert sum(writes) == 27 and len(writes) < 27      # whole parts at once
