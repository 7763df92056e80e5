"""jobs=0 means one process per core in the API as on the command line (`--jobs 0`): the API's
RunOptions turned 0 into 1 and ran serially."""
from dipc_plus.api.checks import run_options
from dipc_plus.execution.executor import Executor, available_cores
from dipc_plus.execution.options import RunOptions


def test_zero_jobs_is_one_per_core():
    assert RunOptions(jobs=0).run_on() == Executor.local(available_cores())
    assert run_options(jobs=0).run_on() == Executor.local(available_cores())


def test_positive_jobs_kept():
    assert RunOptions(jobs=1).run_on() == Executor("serial")
    assert RunOptions(jobs=3).run_on() == Executor("local", 3)
