"""Which Dask protocols this installation can actually connect with.

Why it exists: an address may be well formed (`executor.scheduler_address` checks that) and still
name a protocol Dask cannot use here: `ucx://` needs a UCX backend that plain `distributed` only
stubs (its connector is abstract, so Dask raises a TypeError), and `tls://` needs a TLS client
configuration (without one Dask raises a TypeError about the missing ssl_context).  Both are the
user's setup, so they end as a `UserError` (exit 2) that names the protocols that do work, before
any connection is tried.
"""
from __future__ import annotations

from dipc_plus.errors import UserError

__all__ = ["usable_protocols", "check_protocol"]

_NEEDS_TLS_CONFIG = ("tls",)   # Dask's connector refuses to start without an ssl_context
_TLS_HINT = ("set Dask's TLS client configuration (distributed.comm.tls.ca-file, .client.cert and .client.key, "
             "docs/cluster.md), or use tcp://")


def _connector_works(scheme: str) -> bool:
    """True when Dask has a backend for `scheme` whose connector can be made (UCX's cannot without ucxx)."""
    from distributed.comm import registry
    try:
        registry.get_backend(scheme).get_connector()
    except Exception:   # no backend, or one Dask only stubs: either way not usable here
        return False
    return True


def _tls_configured() -> bool:
    """True when Dask's configuration gives a client an SSL context (what tls:// needs)."""
    from distributed.security import Security
    try:
        return Security().get_connection_args("client").get("ssl_context") is not None
    except Exception:   # a TLS configuration naming unreadable files is not a usable one
        return False


def usable_protocols(candidates: tuple[str, ...]) -> list[str]:
    """The protocols of `candidates` that this installation and Dask configuration can connect with."""
    tls = _tls_configured()
    return [s for s in candidates if _connector_works(s) and (tls or s not in _NEEDS_TLS_CONFIG)]


def check_protocol(address: str, shown: str, candidates: tuple[str, ...]) -> None:
    """Refuse `address` (already checked as PROTOCOL://HOST:PORT) when its protocol cannot be used here,
    naming the protocols that can."""
    scheme = address.partition("://")[0]
    usable = usable_protocols(candidates)
    if scheme in usable:
        return
    listed = ", ".join(usable) or "none"
    if scheme in _NEEDS_TLS_CONFIG and _connector_works(scheme):
        raise UserError(f"{shown}: {scheme}:// needs a TLS configuration, and Dask has none here "
                        f"(usable protocols: {listed})", hint=_TLS_HINT)
    raise UserError(f"{shown}: the {scheme} protocol is not available in this Dask installation "
                    f"(usable protocols: {listed})",
                    hint="use tcp://HOST:PORT" + (" (ucx needs the distributed-ucxx package)" if scheme == "ucx" else ""))
