"""Issue 36, items 7 and 12: a Dask address whose protocol this installation cannot use (ucx without
a UCX backend, tls without a TLS configuration) and a DIPC_DASK_WORKER_WAIT that is not a positive
finite number are exit 2 with a clear message - never Dask's TypeError as exit 3, never a silent 60 s."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

pytest.importorskip("distributed")

import dipc_plus   # noqa: E402
from conftest import THEORIES, run_main   # noqa: E402
from dipc_plus.errors import UserError   # noqa: E402
from dipc_plus.execution.executor import DASK_SCHEDULERS, Executor, Source, run_tasks   # noqa: E402

SPARSE = THEORIES / "sparse.toml"


def _offset(x):
    return x


def _add(source, x):
    return source.get() + x


@pytest.mark.parametrize("address, says", [
    ("ucx://h:1", "the ucx protocol is not available"),
    ("tls://h:1", "tls:// needs a TLS configuration"),
])
def test_an_unusable_protocol_is_exit_2_naming_the_usable_ones(address, says):
    code, out, err = run_main(["accuracy", SPARSE, "--set", "m=2", "--executor", "dask", "--scheduler", address])
    assert code == 2, err
    assert says in err and "usable protocols: tcp" in err
    assert "internal error" not in err and "Traceback" not in err


def test_an_unusable_protocol_from_the_environment_is_a_json_error(monkeypatch):
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tls://h:1")
    code, out, err = run_main(["accuracy", SPARSE, "--set", "m=2", "--executor", "dask", "--json"])
    assert code == 2
    error = json.loads(out)["error"]
    assert "DASK_SCHEDULER_ADDRESS" in error["message"] and "TLS configuration" in error["message"]


def test_an_unusable_protocol_through_the_api_is_the_library_error():
    with pytest.raises(UserError, match="ucx protocol is not available"):
        dipc_plus.check_accuracy(SPARSE, params={"m": 2}, executor="dask", scheduler="ucx://h:1")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_tls_with_a_configuration_is_accepted(tmp_path):
    """The refusal is about the missing configuration, not about tls itself."""
    import dask

    from dipc_plus.execution.dask_protocols import check_protocol
    key, cert = tmp_path / "k.pem", tmp_path / "c.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=dipc"], check=True, capture_output=True, timeout=60)
    with pytest.raises(UserError, match="TLS configuration"):
        check_protocol("tls://h:1", "--scheduler", DASK_SCHEDULERS)
    with dask.config.set({"distributed.comm.tls.ca-file": str(cert), "distributed.comm.tls.client.cert": str(cert),
                          "distributed.comm.tls.client.key": str(key)}):
        check_protocol("tls://h:1", "--scheduler", DASK_SCHEDULERS)


@pytest.mark.parametrize("wait", ["0", "-1", "nan", "inf", "1e7"])
def test_a_worker_wait_that_is_not_positive_and_finite_is_refused(monkeypatch, wait):
    """Refused before any connection (the address names no scheduler: a try would be a different error)."""
    monkeypatch.setenv("DIPC_DASK_WORKER_WAIT", wait)
    with pytest.raises(UserError, match=f"DIPC_DASK_WORKER_WAIT='{wait}' is not a number of seconds"):
        list(run_tasks(_add, Source.of(_offset, (0,), []), [1, 2], executor=Executor("dask", 2, "tcp://127.0.0.1:1")))
