"""timeout= and max_memory= of the API's checks: enforced in a guarded child, never on the caller
(issue 36 item 10).  The report comes back whole; errors come back as their own types."""
import resource

import pytest

import dipc_plus
from dipc_plus import StrictVerdictError, UserError, example
from dipc_plus.errors import ResourceLimit

SPARSE = example("theories/sparse.toml")


def untimed(value):
    """A report's JSON without its timings (they differ from run to run)."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if "seconds" not in k and k != "work"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def test_a_timeout_raises_resource_limit_in_python_words():
    with pytest.raises(ResourceLimit) as err:     # Sparse at m = 9 takes far longer than a second
        dipc_plus.check_accuracy(SPARSE, params={"m": 9, "c": 1}, timeout=1)
    assert "time limit of 1 s" in err.value.message and "timeout=SECONDS" in err.value.hint


def test_the_report_comes_back_from_the_child_and_the_caller_keeps_its_limits():
    before = resource.getrlimit(resource.RLIMIT_AS)
    plain = dipc_plus.check_accuracy(SPARSE, params={"c": 1}, input={"q": [-1, -1, 1]}, kappa=7)
    guarded = dipc_plus.check_accuracy(SPARSE, params={"c": 1}, input={"q": [-1, -1, 1]}, kappa=7,
                                       timeout=120, max_memory="4G")
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert guarded.verdict == plain.verdict == "refuted"
    assert guarded.counterexample.eps == plain.counterexample.eps
    assert untimed(guarded.to_json()) == untimed(plain.to_json())


def test_sweep_privacy_and_loss_come_back_too():
    s = dipc_plus.sweep(SPARSE, params={"c": 1}, timeout=120)      # its reports live in a spooled file
    assert s.best_kappa == 6 and s.kappa_star.text.startswith("6.3758")
    p = dipc_plus.check_privacy(example("theories/svt_lyu_alg4_privacy.toml"), max_memory=2 << 30)
    assert p.verdict == "refuted" and p.counterexample.eps == 1
    loss = dipc_plus.privacy_loss(example("theories/randomized_response_coin_privacy.toml"), timeout=120)
    assert loss.loss == "ln(3)"


def test_errors_raised_in_the_child_keep_their_type_and_words():
    with pytest.raises(UserError, match="params\\['c'\\]"):
        dipc_plus.check_accuracy(SPARSE, params={"c": "two"}, timeout=120)
    with pytest.raises(UserError, match="kappa"):
        dipc_plus.check_accuracy(SPARSE, params={"c": 1}, kappa=0, timeout=120)


def test_strict_verdict_error_travels_whole_from_the_child():
    import pickle
    report = dipc_plus.check_privacy(example("theories/randomized_response_coin_privacy.toml"), timeout=120)
    assert report.verified
    back = pickle.loads(pickle.dumps(StrictVerdictError("vacuous: nothing compared", report)))
    assert back.reason == "vacuous: nothing compared" and back.report.verified


@pytest.mark.parametrize("kw, words", [({"timeout": -1}, "timeout must be 0"),
                                       ({"timeout": float("nan")}, "timeout must be 0"),
                                       ({"timeout": "soon"}, "timeout must be 0"),
                                       ({"max_memory": "lots"}, "max_memory takes a size"),
                                       ({"max_memory": 1 << 20}, "max_memory must be at least 256M")])
def test_bad_limits_are_refused_as_the_command_refuses_them(kw, words):
    with pytest.raises(UserError, match=words):
        dipc_plus.check_accuracy(SPARSE, params={"c": 1}, **kw)
