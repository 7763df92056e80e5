"""The one run skeleton (`execution.run.TaskRun`): parts in task order, the bar moved by each
finished task's size, the ledger written under the run's unit, and every stream and the bar
closed however the block is left (the end, a `break`, an exception)."""
from __future__ import annotations

import inspect
import multiprocessing
import time

import pytest
from conftest import count_ledger_writes, ledger_of

from dipc_plus.execution import ledger
from dipc_plus.execution import run as run_module
from dipc_plus.execution.executor import Executor, Source, available_cores
from dipc_plus.execution.run import TaskRun

LOCAL2 = Executor.local(2) if available_cores() >= 2 else Executor("local", 2)


class FakeBar:
    """Stands in for the tqdm bar (which draws nothing off a terminal): keeps what it was told."""

    def __init__(self, total, description, unit):
        self.total, self.description, self.unit = total, description, unit
        self.updates: list = []
        self.closed = False

    def update(self, n):
        self.updates.append(n)

    def close(self):
        self.closed = True


@pytest.fixture
def bars(monkeypatch):
    made: list = []

    def fake(total, description, unit="input"):
        made.append(FakeBar(total, description, unit))
        return made[-1]

    monkeypatch.setattr(run_module, "progress_bar", fake)
    return made


def _seeded(obj) -> Source:
    source = Source(None, (), (), key=f"test-run-{id(obj)}")
    source.seed(obj)
    return source


def _sum_range(source, task):
    a, b = task
    return sum(range(a, b)) + source.get()["offset"]


def _slow_after_2(source, x):
    if x > 2:
        time.sleep(5)   # killed, not waited for, when the block is left early
    return x


@pytest.mark.parametrize("executor", [Executor(), LOCAL2], ids=["serial", "local"])
def test_parts_come_in_task_order_and_the_bar_moves_by_each_tasks_size(bars, executor):
    tasks = [(0, 5), (5, 6), (6, 13), (13, 20)]
    with TaskRun(20, "check", "pair", progress=True) as run:
        got = list(run.parts(_sum_range, _seeded({"offset": 100}), tasks, executor=executor,
                             sizes=[b - a for a, b in tasks]))
    assert got == [sum(range(a, b)) + 100 for a, b in tasks]
    (bar,) = bars
    assert (bar.total, bar.description, bar.unit) == (20, "check", "pair")
    assert sorted(bar.updates) == [1, 5, 7, 7] and bar.closed


def test_no_bar_without_progress_and_none_moved_without_sizes(bars):
    with TaskRun(3, "check") as run:
        assert run.bar is None
        run.advance(2)                  # nothing to move: no error
        assert list(run.parts(_sum_range, _seeded({"offset": 0}), [(0, 2)])) == [1]
    assert bars == []
    with TaskRun(3, "check", progress=True) as run:
        list(run.parts(_sum_range, _seeded({"offset": 0}), [(0, 2), (2, 3)]))
        run.advance(3)
    assert bars[0].updates == [3] and bars[0].closed


def test_leaving_early_closes_the_stream_and_stops_the_workers(bars):
    with TaskRun(50, "check", progress=True) as run:
        stream = run.parts(_slow_after_2, _seeded({}), list(range(50)), executor=LOCAL2, sizes=[1] * 50)
        first = []
        for x in stream:
            first.append(x)
            if x == 1:
                break
        assert inspect.getgeneratorstate(stream) != inspect.GEN_CLOSED
    assert first == [0, 1]
    assert inspect.getgeneratorstate(stream) == inspect.GEN_CLOSED
    assert multiprocessing.active_children() == []
    assert bars[0].closed


def test_an_exception_in_the_block_still_closes_everything(bars):
    with pytest.raises(KeyError):
        with TaskRun(4, "check", progress=True) as run:
            stream = run.parts(_sum_range, _seeded({"offset": 0}), [(0, 1), (1, 2)], sizes=[1, 1])
            next(stream)
            raise KeyError("stop")
    assert inspect.getgeneratorstate(stream) == inspect.GEN_CLOSED
    assert bars[0].closed


def test_records_go_to_the_ledger_under_the_runs_unit_in_one_write(monkeypatch):
    with TaskRun(2, "check", "pair") as run:
        assert not ledger.active()
        run.record([("x", "holds")])    # no guard listening: nothing happens
    writes = []

    def record_two(w):
        count_ledger_writes(monkeypatch, w, writes)
        try:
            with TaskRun(2, "check", "pair") as run:
                assert ledger.active()
                run.record([("u=1 vs u=2", "holds"), ("u=2 vs u=3", "fails")])
        finally:
            monkeypatch.undo()

    _, c = ledger_of(record_two)
    assert [(rec["scope"], rec["item"], rec["verdict"]) for rec in c.records] == [
        ("pair", "u=1 vs u=2", "holds"), ("pair", "u=2 vs u=3", "fails")]
    assert writes == [2]
