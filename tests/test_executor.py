"""run_tasks: the one seam between a check's tasks and where they run (this process, forked
local workers, a Dask cluster).  Results come back in task order whatever the executor."""
from __future__ import annotations

import itertools
import os
import pickle
import signal
from fractions import Fraction as F

import pytest

from dipc_plus.api import LoadedProgram
from dipc_plus.claims import noise_free
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.execution.executor import (Executor, Source, available_cores, chunks, in_worker, run_dealt,
                                         run_tasks, shrinking_ranges)
from dipc_plus.execution.options import RunOptions
from dipc_plus.semantics.distribution import bind, distribution_of_chain
from conftest import PROGRAMS

LOCAL2 = Executor.local(2) if available_cores() >= 2 else Executor("local", 2)


def _square_plus(source, x):
    return (x, x * x + source.get()["offset"], os.getpid(), in_worker())


def _fails_at_3(source, x):
    if x == 3:
        raise ValueError("bad input 3")
    return x


def _dies_at_3(source, x):
    if x == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def _nested(source, x):
    return [y for y in run_tasks(_times, source, [(x, y) for y in range(3)], executor=LOCAL2)]


def _times(source, task):
    return task[0] * task[1], in_worker()


def _seeded(obj) -> Source:
    source = Source(None, (), (), key=f"test-{id(obj)}")
    source.seed(obj)
    return source


def test_chunks_cover_the_range_in_order():
    for n, parts in itertools.product(range(0, 30), range(1, 9)):
        ranges = chunks(n, parts)
        assert [i for a, b in ranges for i in range(a, b)] == list(range(n))
        assert all(b > a for a, b in ranges) and len(ranges) == min(n, parts)
        assert max((b - a for a, b in ranges), default=0) - min((b - a for a, b in ranges), default=0) <= 1


def _hand_squares(source, task):
    offset, hand = task
    return [x * x + offset for x in hand]


def test_shrinking_ranges_cover_the_range_in_order_long_ones_first():
    for n, workers in itertools.product(range(0, 200, 7), range(1, 5)):
        ranges = shrinking_ranges(n, workers)
        assert [i for a, b in ranges for i in range(a, b)] == list(range(n))
        sizes = [b - a for a, b in ranges]
        assert all(x >= y for x, y in zip(sizes, sizes[1:-1]))   # the last may be a remainder


def test_dealt_items_come_back_in_item_order():
    source = _seeded({})
    for n in (0, 1, 5, 40, 101):
        items = list(range(n))
        expected = [x * x + 3 for x in items]
        assert run_dealt(_hand_squares, source, items, context=3) == expected
        assert run_dealt(_hand_squares, source, items, executor=LOCAL2, context=3, per_worker=4) == expected


def test_order_and_the_same_results_everywhere():
    source = _seeded({"offset": 7})
    serial = list(run_tasks(_square_plus, source, list(range(23))))
    local = list(run_tasks(_square_plus, source, list(range(23)), executor=LOCAL2))
    assert [r[:2] for r in serial] == [r[:2] for r in local] == [(x, x * x + 7) for x in range(23)]
    assert not any(r[3] for r in serial) and all(r[3] for r in local)
    assert os.getpid() not in {r[2] for r in local}


def test_done_reports_every_task_once():
    seen = []
    list(run_tasks(_square_plus, _seeded({"offset": 0}), list(range(9)), executor=LOCAL2,
                   done=lambda i, r: seen.append((i, r[0]))))
    assert sorted(seen) == [(i, i) for i in range(9)]


def test_worker_exception_reaches_the_caller():
    with pytest.raises(ValueError, match="bad input 3"):
        list(run_tasks(_fails_at_3, _seeded({}), list(range(8)), executor=LOCAL2))


def test_a_killed_worker_is_a_user_error_not_a_missing_part():
    with pytest.raises(UserError, match="worker process died"):
        list(run_tasks(_dies_at_3, _seeded({}), list(range(8)), executor=LOCAL2))


def test_leaving_early_returns_promptly_and_keeps_the_order():
    parts = run_tasks(_square_plus, _seeded({"offset": 1}), list(range(50)), executor=LOCAL2)
    first = [next(parts)[0] for _ in range(3)]
    parts.close()
    assert first == [0, 1, 2]


def test_nested_runs_stay_serial_in_workers():
    out = list(run_tasks(_nested, _seeded({}), list(range(4)), executor=LOCAL2))
    assert [[v for v, _ in inner] for inner in out] == [[x * y for y in range(3)] for x in range(4)]
    assert all(w for inner in out for _, w in inner)


def test_a_source_rebuilt_from_files_refuses_changed_bytes(tmp_path):
    f = tmp_path / "claim.toml"
    f.write_text("a = 1\n")
    source = Source.of(_read_text, (str(f),), [str(f)])
    assert source.get() == "a = 1\n"
    f.write_text("a = 2\n")
    fresh = Source(source.build, source.args, source.files, key=source.key + "-fresh")
    with pytest.raises(UserError, match="different"):
        fresh.get()
    with pytest.raises(UserError, match="not loaded from files"):
        Source(None, (), (), key="nothing-seeded").get()


def _read_text(path):
    with open(path) as fh:
        return fh.read()


def test_executor_options_are_checked():
    with pytest.raises(UserError, match="--scheduler"):
        RunOptions(jobs=2, executor="dask").run_on()
    with pytest.raises(UserError, match="--executor dask"):
        RunOptions(jobs=2, scheduler="tcp://127.0.0.1:1").run_on()
    assert RunOptions(jobs=1).run_on().kind == "serial" and Executor.local(0).jobs >= 1


def test_exact_values_pickle():
    p = ExpFrac(ExpPoly.exp(F(-1, 3), F(2, 7)) + ExpPoly.eps(2), ExpPoly.exp(F(-1), 3) + 1)
    assert pickle.loads(pickle.dumps(p)) == p


def _within_det(source, q):
    prog = source.get()
    det = noise_free.run(prog.program, bind(prog.program, {"q": q}))
    return distribution_of_chain(prog.dtmc(q=q)).within(det, 0)


def test_grid_of_exact_probabilities_matches_serial():
    """P[output = det(q)] over a small Sparse grid: identical closed forms either way."""
    prog = LoadedProgram.from_file(PROGRAMS / "sparse.dip", m=2, c=1, T=0)
    grid = [[F(v) for v in point] for point in itertools.product(range(-1, 2), repeat=2)]
    source = _seeded(prog)
    serial = list(run_tasks(_within_det, source, grid))
    assert list(run_tasks(_within_det, source, grid, executor=LOCAL2)) == serial
    assert all(isinstance(v, ExpFrac) for v in serial)


def test_tasks_run_with_a_raised_gc_threshold_that_is_restored_after():
    """run_tasks collects less often while tasks run (a speed measure), and leaves the process as it was."""
    import gc
    from dipc_plus.execution.executor import Source, run_tasks
    before = gc.get_threshold()
    source = Source(None, (), (), key="gc-threshold-test")
    source.seed(None)
    seen = list(run_tasks(lambda s, t: gc.get_threshold()[0], source, [1, 2]))
    assert seen == [max(before[0], 50_000)] * 2
    assert gc.get_threshold() == before


def test_certified_balls_pickle_to_a_ball_that_contains_them():
    from flint import arb
    for x in (arb(0), arb(5) / 7, -(arb(3).exp()), arb(2) ** -80 / 3):
        y = pickle.loads(pickle.dumps(x))
        assert y.mid() == x.mid() and y.contains(x)


def test_shrinking_ranges_end_with_short_ranges():
    # the last ranges are what the other workers wait for: at most 1/(64 workers) of the inputs
    # each (Sparse m=7, 2187 inputs, 2 workers: 17), and there are few ranges in all
    for n, workers in itertools.product((2187, 10_000, 100_000), (1, 2, 4, 8)):
        sizes = [b - a for a, b in shrinking_ranges(n, workers)]
        assert max(sizes[-2:]) <= n // (64 * workers) + 1    # + 1: a half of what is left, rounded up
        assert len(sizes) <= 12 * workers


def test_bulk_gc_raises_the_first_threshold_and_restores_it():
    import gc
    from dipc_plus.execution.collector import BULK_THRESHOLD, bulk_gc
    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with bulk_gc():
            assert gc.get_threshold() == (BULK_THRESHOLD, 10, 10)
            with bulk_gc():   # nested: unchanged, and the outer value comes back
                assert gc.get_threshold()[0] == BULK_THRESHOLD
            assert gc.get_threshold()[0] == BULK_THRESHOLD
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(10 * BULK_THRESHOLD, 10, 10)
        with bulk_gc():       # never lowered
            assert gc.get_threshold()[0] == 10 * BULK_THRESHOLD
        assert gc.get_threshold()[0] == 10 * BULK_THRESHOLD
    finally:
        gc.set_threshold(*old)


def test_shrinking_ranges_never_exceed_the_largest():
    for n, workers, largest in itertools.product((0, 1, 50, 2187, 100_000), (1, 2, 4), (1, 7, 4096)):
        ranges = shrinking_ranges(n, workers, largest)
        assert [i for a, b in ranges for i in range(a, b)] == list(range(n))
        assert all(0 < b - a <= largest for a, b in ranges)
    assert max(b - a for a, b in shrinking_ranges(100_000, 2, 4096)) == 4096   # the cap binds early on


class _ReadTasks(list):
    """Tasks that remember which of them the client has read (so submitted)."""

    def __init__(self, items):
        super().__init__(items)
        self.read: set = set()

    def __getitem__(self, i):
        self.read.add(i)
        return super().__getitem__(i)


def test_a_local_run_submits_a_bounded_window_ahead_of_what_it_yielded():
    """The client holds the results of the tasks submitted and not yet yielded: a window of a few
    per worker, not every task (which held a whole grid's summaries)."""
    tasks = _ReadTasks(range(200))
    parts = run_tasks(_square_plus, _seeded({"offset": 0}), tasks, executor=LOCAL2)
    got = [next(parts)[0] for _ in range(5)]
    assert got == [0, 1, 2, 3, 4]
    assert 5 < len(tasks.read) <= 5 + 8 * LOCAL2.jobs and max(tasks.read) < 100
    assert [r[0] for r in parts] == list(range(5, 200)) and tasks.read == set(range(200))


def _dies_at_30(source, x):
    if x == 30:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def test_a_worker_killed_after_the_first_window_is_a_user_error():
    with pytest.raises(UserError, match="worker process died"):
        list(run_tasks(_dies_at_30, _seeded({}), list(range(60)), executor=LOCAL2))
