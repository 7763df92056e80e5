"""No process of ours outlives the command, and a signal becomes an exit code, never a traceback.

Why a latch and not an exception raised by the handler: a handler that raises can land
anywhere, also in the `finally:` that reaps the child or kills the workers, and a second
signal close behind the first (GNU `timeout` signals the process, then its group) turned a
clean 143 into exit 1 with a traceback.  `SignalLatch` only records the first SIGINT or
SIGTERM and wakes a `select()` through a pipe; every later one is counted and otherwise
ignored, so cleanup runs with signals in effect masked.  Where no watchdog can look at the
latch (an unguarded in-process run), `SignalLatch.ending` names what the first signal does
instead: print the stop message and leave the process (`os._exit`).  Not an exception raised
into the work: raised into ProcessPoolExecutor's waiting and shutdown, one left an unguarded
run hanging (1 of 50 random signal runs).

Every process we start dies with its parent: `die_with_parent` sets Linux's parent-death
signal (SIGKILL), so a guarded child or a `--jobs` worker whose parent is killed (kill -9,
the OOM killer) goes with it.

Why a latch for the whole process (`latch_this_process`): between the interpreter's start and
`cli.main()` lie the imports, and a signal there met Python's defaults (SIGINT: a
KeyboardInterrupt traceback and exit 1; SIGTERM: killed without a word).  The `dipc` process
enters its latch when `dipc_plus` itself is imported (its `__init__`), before any other module
of ours, and `main()` takes that latch over (`take_process_latch`).
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading

EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}
_PR_SET_PDEATHSIG = 1


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def stop_message(signum: int) -> str:
    return ("interrupted" if signum == signal.SIGINT else "terminated") + ": stopped every worker"


class SignalLatch:
    """While entered: SIGINT and SIGTERM are recorded (the first one wins) and never raised;
    inside `ending(end)` the first one calls end(signum) instead.  `fd` becomes readable when
    one came."""

    def __init__(self):
        self.first: int | None = None
        self.count = 0
        self._end = None
        self._ended = False
        self._old: dict = {}
        self._owner = os.getpid()
        self.fd, self._wfd = os.pipe()
        os.set_blocking(self._wfd, False)
        os.set_blocking(self.fd, False)

    def _handle(self, signum, frame):
        if os.getpid() != self._owner:
            # a forked child (a --jobs worker, the guard's child) before it set its own handling: its
            # owner handles the signal; acting here printed a stray stop message from a worker the
            # pool was shutting down, and woke the owner's select through the shared pipe
            return
        self.count += 1
        if self.first is None:
            self.first = self._outer_signal(frame) or signum
        try:
            os.write(self._wfd, b"!")
        except OSError:   # the pipe is full: the reader is woken already
            pass
        self._end_if_due()

    def _outer_signal(self, frame) -> int | None:
        """The signal whose handler this one interrupted, if any (the outermost).  A second signal
        close behind the first runs its Python handler nested inside the first one's, possibly
        before that one recorded anything: without this, SIGINT then SIGTERM ended as 143."""
        outer = None
        while frame is not None:
            if frame.f_code is _HANDLE_CODE and frame.f_locals.get("self") is self:
                outer = frame.f_locals.get("signum")
            frame = frame.f_back
        return outer

    def _end_if_due(self):
        if self._end is not None and self.first is not None and not self._ended:
            self._ended = True
            self._end(self.first)

    def drain(self) -> None:
        try:
            while os.read(self.fd, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    @contextlib.contextmanager
    def ending(self, end):
        """A context in which the first signal (also one that came before) calls end(signum),
        which should not return (it leaves the process)."""
        self._end = end
        self._end_if_due()
        try:
            yield
        finally:
            self._end = None

    def __enter__(self) -> "SignalLatch":
        if threading.current_thread() is threading.main_thread():
            for sig in EXIT_SIGNAL:
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        self.release(restore=True)

    def release(self, *, restore: bool) -> None:
        """Put the old handlers back (restore) or ignore both signals from now on (the command is done)."""
        for sig, old in self._old.items():
            signal.signal(sig, old if restore else signal.SIG_IGN)
        self._old = {}
        self._close_pipe()
        self.fd = self._wfd = -1

    def close_in_child(self) -> None:
        """In a forked child: default signal actions, and this process's copy of the pipe closed."""
        for sig in EXIT_SIGNAL:
            signal.signal(sig, signal.SIG_DFL)
        self._close_pipe()

    def _close_pipe(self) -> None:
        for fd in (self.fd, self._wfd):
            try:
                os.close(fd)
            except OSError:
                pass


_HANDLE_CODE = SignalLatch._handle.__code__


def die_with_parent(parent: int) -> None:
    """This process gets SIGKILL when `parent` (the process that forked it) dies (Linux).

    Called right after fork; if the parent died before the call, exit at once."""
    import ctypes   # here, not at the top: the process latch is entered before any heavy import
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != parent:
        os._exit(1)


_process_latch: SignalLatch | None = None


def latch_this_process(*, interrupted: bool = False) -> None:
    """Enter a latch for the whole process, once (the `dipc` command, as early as it can);
    `interrupted`: a SIGINT came before (a KeyboardInterrupt caught by the caller)."""
    global _process_latch
    if _process_latch is None:
        latch = SignalLatch().__enter__()
        if interrupted and latch.first is None:
            latch.first, latch.count = signal.SIGINT, latch.count + 1
        _process_latch = latch


def take_process_latch() -> SignalLatch | None:
    """The latch `latch_this_process` entered (signals before now are recorded in it), handed
    over once; None when there is none."""
    global _process_latch
    latch, _process_latch = _process_latch, None
    return latch


def kill_group(pid: int) -> None:
    """SIGKILL to the process group led by `pid` and to `pid` itself; gone already is fine."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
