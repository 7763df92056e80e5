"""A worker killed under a `--jobs` run is named alone: the SIGTERM the pool then sends the survivors
is its own shutdown (under load the survivor was often gone before the message was written, and
the message named it too: 'process 7 was killed by SIGKILL and process 8 was killed by SIGTERM')."""
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
