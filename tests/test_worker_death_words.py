"""A worker killed under a `--jobs` run is named alone: the SIGTERM the pool then sends the survivors
is its own shutdown (under load the survivor was often gone before the message was written, and
the message named it too: 'process 7 was killed by SIGKILL and process 8 was killed by SIGTERM')."""
import pytest

from dipc_plus.execution.executor import death_words


def test_the_pools_sigterm_of_a_survivor_is_not_named_beside_the_cause():
    assert death_words([(7, -9), (8, -15)]) == "process 7 was killed by SIGKILL"


def test_a_sigterm_alone_is_the_cause_and_is_named():
    assert death_words([(8, -15)]) == "process 8 was killed by SIGTERM"


def test_every_cause_is_named():
    assert death_words([(7, -9), (8, 1), (9, None)]) == (
        "process 7 was killed by SIGKILL and process 8 exited with status 1 and "
        "process 9 ended (its status was taken by another thread)")


def test_no_dead_worker_found():
    assert death_words([]) == "killed, or out of memory"


def test_a_survivor_that_exited_143_on_the_pools_sigterm_is_not_named():
    # a worker forked just before the shutdown ran the owner's handler and exited 143
    assert death_words([(7, -9), (8, 143)]) == "process 7 was killed by SIGKILL"


def test_a_forked_child_ignores_a_signal_meant_for_its_owner(tmp_path):
    """The inherited latch does nothing in a child: no stop message, no exit, the owner's pipe quiet."""
    import os
    import signal
    from dipc_plus.execution.lifetime import SignalLatch
    with SignalLatch() as latch:
        pid = os.fork()
        if pid == 0:
            latch._handle(signal.SIGTERM, None)
            os._exit(0 if latch.first is None and latch.count == 0 else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert latch.first is None
        with pytest.raises(BlockingIOError):    # nothing was written to the owner's pipe
            os.read(latch.fd, 10)
