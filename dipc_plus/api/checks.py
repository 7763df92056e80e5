"""The four checks of the Python API, each the twin of one `dipc` command.

Why it exists: a library user calls functions with keyword arguments and gets objects
back.  Every option of a command is a keyword argument here with the same meaning
(``--every-length`` is ``every_length=True``, ``--jobs 4`` is ``jobs=4``, ``--set c=2``
is ``params={'c': 2}``), the work runs through exactly the machinery the command runs
(the same executors, so ``jobs`` and ``executor='dask'`` spread it the same way), and
the report's ``.to_json()`` is the command's ``--json``.  Errors are the same
`UserError` (file, line, column, hint) in Python words.
"""

import inspect
import os
from typing import Any, Callable, Literal, Mapping, Sequence, TypeVar

from dipc_plus.accuracy.decide import decide_accuracy, decide_sweep
from dipc_plus.accuracy.sweep import DEFAULT_DIGITS, DEFAULT_KAPPA_MAX
from dipc_plus.api.box_results import BoxReport, BoxSweepReport
from dipc_plus.api.claim import Claim, claim_path, program_file
from dipc_plus.api.errors import StrictVerdictError, in_python_words
from dipc_plus.api.guarded import guarded
from dipc_plus.api.keywords import Number, mapping, parameter_values
from dipc_plus.api.results import AccuracyReport, LossReport, PrivacyReport, Report, SweepReport
from dipc_plus.commands.common import accuracy_checker, certified_or_exit_2, check_kappa, read_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.execution.guard import checked_limits
from dipc_plus.execution.limits import clip
from dipc_plus.execution.options import RunOptions
from dipc_plus.privacy.decide import decide_loss, decide_privacy
from dipc_plus.semantics.distribution import bind
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES
from dipc_plus.semantics.values import distinct

ClaimLike = Claim | str | os.PathLike[str]
Executor = Literal["local", "dask"]


def run_options(*, max_states: int = DEFAULT_MAX_STATES, limits: Mapping[str, int] | None = None, jobs: int = 1,
                executor: str = "local", scheduler: str | None = None, progress: bool = False, strict: bool = False,
                reference: bool = False, timeout: float | None = None,
                max_memory: int | str | None = None) -> RunOptions:
    """The one RunOptions of an API call's keywords, each checked as the command checks its flag.

    >>> run_options(jobs=2, reference=True).reference
    True
    >>> run_options(jobs=-1)
    Traceback (most recent call last):
    ...
    dipc_plus.errors.UserError: error: jobs=-1: a number of processes >= 0 (0: one per core)
      hint: e.g. jobs=4
    """
    if executor not in ("local", "dask"):
        raise UserError(f"executor={executor!r}: choose 'local' or 'dask'", hint="e.g. executor='dask', "
                        "scheduler='tcp://127.0.0.1:8786' (docs/cluster.md)")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0:
        raise UserError(f"jobs={jobs!r}: a number of processes >= 0 (0: one per core)", hint="e.g. jobs=4")
    if not isinstance(max_states, int) or isinstance(max_states, bool) or max_states <= 0:
        raise UserError(f"max_states={clip(max_states)}: a positive integer", hint="use e.g. max_states=200000")
    if limits is not None and not isinstance(limits, Mapping):
        raise UserError(f"limits must be a mapping of limit names to integers, not {type(limits).__name__}",
                        hint="e.g. limits={'power': 1000}")
    for name, value in (limits or {}).items():
        if not isinstance(value, int) or isinstance(value, bool) or value >= 10 ** 18:
            raise UserError(f"limits['{clip(name)}'] must be an integer below 10**18 (as --limit NAME=N), "
                            f"not {clip(value)}")
    seconds, size = checked_limits(timeout, max_memory)
    return RunOptions(max_states=max_states, limits=tuple((str(k), v) for k, v in (limits or {}).items()),
                      timeout=seconds or None, max_memory=size or None,
                      jobs=jobs, executor=executor, scheduler=scheduler, progress=bool(progress),
                      strict=bool(strict), reference=bool(reference))


R = TypeVar("R", bound=Report)


RUN_KEYWORDS = frozenset(inspect.signature(run_options).parameters)   # the keywords every check passes on


def checked(body: Callable[[RunOptions], R], call: Mapping[str, Any]) -> R:
    """Every check's frame, written once: the run keywords among `call` (the check's arguments, its
    ``locals()``) read into one RunOptions (in Python words), `body(options)` run under the options'
    limits (in a child process when they ask for one), the report holding the options; with ``strict=True``
    a report verified vacuously (or only on named events) is raised in a `StrictVerdictError`.

    >>> checked(lambda options: LossReport(None), {"reference": True, "claim": "unused"}).mode
    'reference'
    """
    with in_python_words():
        options = run_options(**{key: value for key, value in call.items() if key in RUN_KEYWORDS})

    def run() -> R:
        with in_python_words(), options.limits_applied():
            report = body(options)
            report.options = options
            if options.strict and report.strict_applies and report.strict_reason:
                raise StrictVerdictError(report.strict_reason, report)
            return report
    return guarded(options, run)


# --------------------------------------------------------------------------- accuracy


def _accuracy_inputs(claim: ClaimLike, program: Any, params: Mapping[str, Number] | None, dd_over: str | None,
                     paper: bool, options: RunOptions, input: Mapping[str, Any] | None,
                     inputs: Sequence[Mapping[str, Any]] | None) -> tuple[Any, list | None]:
    """The accuracy claim's checker and the inputs asked for (None: the claim's own), as check_accuracy and
    sweep read them."""
    if dd_over not in (None, "reals", "grid"):
        raise UserError(f"dd_over={dd_over!r}: choose 'reals' or 'grid' (or None: the claim's)")
    path, values = claim_path(claim), parameter_values(params)
    checker = accuracy_checker(path, values, None if program is None else program_file(program), dd_over, paper,
                               options)
    if input is not None and inputs is not None:
        raise UserError("give input={...} (one input) or inputs=[...] (several), not both")
    chosen = [input] if input is not None else inputs
    if chosen is None:
        return checker, None
    if not isinstance(chosen, (list, tuple)) or not chosen:
        raise UserError("inputs is a non-empty list of inputs, e.g. inputs=[{'q': [0, 1]}, {'q': [1, 1]}]")
    # an input given twice is one input, as in a claim's list
    return checker, distinct([bind(checker.program, mapping(u, "input", "input={'q': [0, 1]}")) for u in chosen])


def check_accuracy(claim: ClaimLike, *, params: Mapping[str, Number] | None = None,
                   input: Mapping[str, Any] | None = None, inputs: Sequence[Mapping[str, Any]] | None = None,
                   kappa: int = 1, first: bool = False, paper: bool = False,
                   dd_over: Literal["reals", "grid"] | None = None, max_states: int = DEFAULT_MAX_STATES,
                   jobs: int = 1, executor: Executor = "local", scheduler: str | None = None,
                   strict: bool = False, progress: bool = False, limits: Mapping[str, int] | None = None,
                   program: Any = None, reference: bool = False, timeout: float | None = None,
                   max_memory: int | str | None = None) -> AccuracyReport:
    """Decide an (alpha, beta, gamma)-accuracy claim for every eps of its interval (``dipc accuracy``).

    Parameters
    ----------
    claim : Claim, str or os.PathLike
        A claim file with an ``[accuracy]`` table (theories/*.toml), or a `Claim`.
    params : mapping, optional
        Parameter values of the program and claim, e.g. ``{'c': 2}`` (``--set c=2``).
    input : mapping, optional
        Check only this input, e.g. ``{'q': [-1, -1, 1]}`` (``--input``); default every input of the claim.
    inputs : sequence of mappings, optional
        Check only these inputs.
    kappa : int
        Check the claim with beta/kappa instead of beta (``--kappa``).
    first : bool
        Stop at the first input that refutes the claim (``--first``).
    paper : bool
        The paper's convention: also check inputs with dd(u) = alpha (``--paper``).
    dd_over : {'reals', 'grid'}, optional
        Distance to disagreement over the real input space or the claim's grid (default: the claim's).
    max_states : int
        Refuse Markov chains with more states (``--max-states``).
    jobs : int
        Processes to run the inputs on (0: one per core; ``--jobs``).
    executor : {'local', 'dask'}
        Where the tasks run: this machine's processes, or a Dask cluster (``--executor``).
    scheduler : str, optional
        The Dask scheduler's address with ``executor='dask'`` (``--scheduler``).
    strict : bool
        Raise `StrictVerdictError` when the verdict is verified vacuously (``--strict``, exit 4).
    progress : bool
        Show a progress bar on stderr.
    limits : mapping, optional
        Size limits for this call, e.g. ``{'power': 1000}`` (``--limit power=1000``; the names are
        ``dipc_plus.execution.limits.LIMITS``).
    program : Program or path, optional
        The claim's program, checked to be the one the claim names (as the command's PROGRAM).
    reference : bool
        The general provers only, no accelerator (``--reference``; docs/claims.md): a box claim only
        an accelerator decides is ``'undecided'``; the JSON says ``"mode": "reference"``.

    timeout : float, optional
        Stop after this many seconds of wall-clock time (``--timeout``) and raise `ResourceLimit`.
    max_memory : int or str, optional
        Address space of the run, in bytes or as ``'4G'`` (``--max-memory``); past it `ResourceLimit`.
        With `timeout` or `max_memory` the call runs in a child process (the caller's own process gets
        no limit) and its report is sent back; default: neither, in this process.

    Returns
    -------
    AccuracyReport
        ``.verdict``, ``.verified``, ``.counterexample`` (input, eps, certified P[error] > beta/kappa),
        ``.to_json()`` (the command's ``--json``), ``.plot()``; ``print(report)`` prints the command's report.
        On a box claim (``box = {...}``) without `input`/`inputs`: a `BoxReport`, decided over every real
        input of the box as ``dipc accuracy`` does (``.regions``: one verdict per det region; the verdict
        may also be ``'undecided'``).

    Examples
    --------
    >>> import dipc_plus
    >>> sparse = dipc_plus.example("theories/sparse.toml")
    >>> r = dipc_plus.check_accuracy(sparse, params={"c": 1}, input={"q": [-1, -1, 1]}, kappa=7)
    >>> r.verified, r.counterexample.input, r.counterexample.eps
    (False, {'q': [-1, -1, 1]}, Fraction(1, 1))
    """
    def run(options: RunOptions) -> AccuracyReport | BoxReport:
        check_kappa(kappa, "kappa", "kappa=7")
        checker, points = _accuracy_inputs(claim, program, params, dd_over, paper, options, input, inputs)
        with certified_or_exit_2():
            result = decide_accuracy(checker, points, kappa, options, paper=paper, first=first,
                                     executor=options.run_on())
        return BoxReport(result, checker, None) if result.on_a_box else AccuracyReport(result, checker, points)
    return checked(run, locals())


def sweep(claim: ClaimLike, *, params: Mapping[str, Number] | None = None, input: Mapping[str, Any] | None = None,
          inputs: Sequence[Mapping[str, Any]] | None = None, kappa_max: int | None = None, digits: int | None = None,
          paper: bool = False, dd_over: Literal["reals", "grid"] | None = None,
          max_states: int = DEFAULT_MAX_STATES, jobs: int = 1, executor: Executor = "local",
          scheduler: str | None = None, reports: bool = False, strict: bool = False, progress: bool = False,
          limits: Mapping[str, int] | None = None, program: Any = None, reference: bool = False,
          timeout: float | None = None, max_memory: int | str | None = None) -> SweepReport | BoxSweepReport:
    """The largest kappa with beta/kappa still valid, kappa* and the counterexample for kappa + 1 (``dipc sweep``).

    Parameters
    ----------
    claim : Claim, str or os.PathLike
        A claim file with an ``[accuracy]`` table, or a `Claim`.
    params : mapping, optional
        Parameter values of the program and claim, e.g. ``{'c': 1}`` (``--set``).
    input : mapping, optional
        Sweep only this input, e.g. ``{'q': [-1, -1, 1]}`` (``--input``); default every input of the claim.
    inputs : sequence of mappings, optional
        Sweep only these inputs.
    kappa_max : int, optional
        Report at most this as the best kappa (``--kappa-max``; default 1000).
    digits : int, optional
        Significant digits of kappa* (certified, truncated; ``--digits``).
    paper : bool
        The paper's convention: also inputs with dd(u) = alpha (``--paper``).
    dd_over : {'reals', 'grid'}, optional
        Distance to disagreement over the real input space or the claim's grid (default: the claim's).
    max_states : int
        Refuse Markov chains with more states (``--max-states``).
    jobs : int
        Processes to run the inputs on (0: one per core; ``--jobs``).
    executor : {'local', 'dask'}
        This machine's processes, or a Dask cluster (``--executor``).
    scheduler : str, optional
        The Dask scheduler's address with ``executor='dask'`` (``--scheduler``).
    reports : bool
        Include every input's report in ``.to_json()`` (``--reports``).
    strict : bool
        Raise `StrictVerdictError` when the claim itself is verified vacuously (``--strict``, exit 4).
    progress : bool
        Show a progress bar on stderr.
    limits : mapping, optional
        Size limits for this call, e.g. ``{'power': 1000}`` (``--limit``).
    program : Program or path, optional
        The claim's program, checked to be the one the claim names.
    reference : bool
        The general provers only (``--reference``): a box the reductions alone decide is undecided.

    timeout : float, optional
        Stop after this many seconds of wall-clock time (``--timeout``) and raise `ResourceLimit`.
    max_memory : int or str, optional
        Address space of the run, in bytes or as ``'4G'`` (``--max-memory``); past it `ResourceLimit`.
        With `timeout` or `max_memory` the call runs in a child process (the caller's own process gets
        no limit) and its report is sent back; default: neither, in this process.

    Returns
    -------
    SweepReport
        ``.best_kappa``, ``.kappa_star`` (a `KappaStar`), ``.counterexample`` for best kappa + 1,
        ``.verified`` (the claim itself, kappa = 1), ``.to_json()``, ``.plot()``.
    BoxSweepReport
        On a box claim without `input`/`inputs` (as ``dipc sweep``): the best kappa over every real input
        of the box, ``.kappa_star``, ``.region_kappa_stars`` (per det region), ``.counterexample``.

    Examples
    --------
    >>> import dipc_plus
    >>> s = dipc_plus.sweep(dipc_plus.example("theories/sparse.toml"), params={"c": 1})
    >>> s.best_kappa, s.kappa_star.text[:6], s.counterexample.kappa
    (6, '6.3758', 7)
    """
    def run(options: RunOptions) -> SweepReport | BoxSweepReport:
        checker, points = _accuracy_inputs(claim, program, params, dd_over, paper, options, input, inputs)
        with certified_or_exit_2():
            result = decide_sweep(checker, points, options, paper=paper, reports=reports, executor=options.run_on(),
                                  kappa_max=DEFAULT_KAPPA_MAX if kappa_max is None else kappa_max,
                                  digits=DEFAULT_DIGITS if digits is None else digits)
        return BoxSweepReport(result, None) if result.base.on_a_box else SweepReport(result, checker, reports=reports)
    return checked(run, locals())


# --------------------------------------------------------------------------- privacy


def _decided_privacy(decide: Callable[..., Any], claim: ClaimLike, program: Any, params: Mapping[str, Number] | None,
                     options: RunOptions, **how: Any) -> Any:
    """The PrivacyResult of `decide` (decide_privacy or decide_loss) on the claim, read once."""
    path, values = claim_path(claim), parameter_values(params)
    loaded = read_privacy_claim(path, values, None if program is None else program_file(program))
    with certified_or_exit_2():
        return decide(loaded, options, values, **how)


def check_privacy(claim: ClaimLike, *, params: Mapping[str, Number] | None = None, every_length: bool = False,
                  structure: bool | None = None, max_states: int = DEFAULT_MAX_STATES, jobs: int = 1,
                  executor: Executor = "local", scheduler: str | None = None, strict: bool = False,
                  progress: bool = False, limits: Mapping[str, int] | None = None,
                  program: Any = None, reference: bool = False, timeout: float | None = None,
                  max_memory: int | str | None = None) -> PrivacyReport:
    """Decide a differential-privacy (or Pufferfish) claim for every eps at once (``dipc privacy``).

    Parameters
    ----------
    claim : Claim, str or os.PathLike
        A claim file with a ``[privacy]`` table (theories/*_privacy.toml), or a `Claim`.
    params : mapping, optional
        Parameter values of the program and claim, e.g. ``{'m': 4}`` (``--set m=4``).
    every_length : bool
        Decide the claim for every number of queries m, not only the claim's m (online programs;
        ``--every-length``, docs/every_length.md).  A claim with ``length = "every"`` does so anyway.
    structure : bool, optional
        ``False``: one Markov chain per input, no components, kernels or symmetry (``--no-structure``);
        default: use them where they apply.
    max_states : int
        Refuse Markov chains with more states (``--max-states``).
    jobs : int
        Processes to run the pairs on (0: one per core; ``--jobs``).
    executor : {'local', 'dask'}
        This machine's processes, or a Dask cluster (``--executor``).
    scheduler : str, optional
        The Dask scheduler's address with ``executor='dask'`` (``--scheduler``).
    strict : bool
        Raise `StrictVerdictError` when the verdict is verified vacuously or only on named events of
        real outputs (``--strict``, exit 4).
    progress : bool
        Show a progress bar on stderr.
    limits : mapping, optional
        Size limits for this call, e.g. ``{'decide_steps': 10**6}`` (``--limit``).
    program : Program or path, optional
        The claim's program, checked to be the one the claim names.
    reference : bool
        The general provers only (``--reference``): no orbits, supports, structure or coupling bound.

    timeout : float, optional
        Stop after this many seconds of wall-clock time (``--timeout``) and raise `ResourceLimit`.
    max_memory : int or str, optional
        Address space of the run, in bytes or as ``'4G'`` (``--max-memory``); past it `ResourceLimit`.
        With `timeout` or `max_memory` the call runs in a child process (the caller's own process gets
        no limit) and its report is sent back; default: neither, in this process.

    Returns
    -------
    PrivacyReport
        ``.verdict``, ``.verified``, ``.counterexample`` (a re-checked `PrivacyCounterexample`: input,
        neighbour, output, eps; a `ValueCounterexample` with the released value w when the claim is
        decided on every value of a real output), ``.to_json()`` (the command's ``--json``),
        ``.plot()`` (the loss).

    Examples
    --------
    >>> import dipc_plus
    >>> p = dipc_plus.check_privacy(dipc_plus.example("theories/svt_lyu_alg4_privacy.toml"))
    >>> p.verified, p.counterexample.eps
    (False, Fraction(1, 1))
    >>> dipc_plus.check_privacy(dipc_plus.example("theories/randomized_response_coin_privacy.toml")).verified
    True
    """
    def run(options: RunOptions) -> PrivacyReport:
        return PrivacyReport(_decided_privacy(decide_privacy, claim, program, params, options,
                                              every_length=every_length, structure=structure))
    return checked(run, locals())


def privacy_loss(claim: ClaimLike, *, params: Mapping[str, Number] | None = None, structure: bool | None = None,
                 attack: bool = False, max_states: int = DEFAULT_MAX_STATES, jobs: int = 1,
                 executor: Executor = "local", scheduler: str | None = None, progress: bool = False,
                 limits: Mapping[str, int] | None = None, program: Any = None, reference: bool = False,
                 timeout: float | None = None, max_memory: int | str | None = None) -> LossReport:
    """The exact tight privacy loss L(eps) over the claim's neighbouring inputs (``dipc privacy-loss``).

    L(eps) = max over neighbouring inputs u, u' and outputs v of ln(P[P(u)=v] / P[P(u')=v]), as closed
    forms piece by piece, with sup L(eps)/eps and the pair and output attaining it.

    Parameters
    ----------
    claim : Claim, str or os.PathLike
        A claim file with a ``[privacy]`` table, or a `Claim`.
    params : mapping, optional
        Parameter values of the program and claim (``--set``).
    structure : bool, optional
        ``False``: one Markov chain per input (``--no-structure``).
    attack : bool
        Pufferfish claims: also the Bayes-optimal adversary's success per scenario (``--attack``).
    max_states : int
        Refuse Markov chains with more states (``--max-states``).
    jobs : int
        Processes to run the pairs on (0: one per core; ``--jobs``).
    executor : {'local', 'dask'}
        This machine's processes, or a Dask cluster (``--executor``).
    scheduler : str, optional
        The Dask scheduler's address with ``executor='dask'`` (``--scheduler``).
    progress : bool
        Show a progress bar on stderr.
    limits : mapping, optional
        Size limits for this call (``--limit``).
    program : Program or path, optional
        The claim's program, checked to be the one the claim names.
    reference : bool
        The general provers only (``--reference``): one Markov chain per input, no structure.

    timeout : float, optional
        Stop after this many seconds of wall-clock time (``--timeout``) and raise `ResourceLimit`.
    max_memory : int or str, optional
        Address space of the run, in bytes or as ``'4G'`` (``--max-memory``); past it `ResourceLimit`.
        With `timeout` or `max_memory` the call runs in a child process (the caller's own process gets
        no limit) and its report is sent back; default: neither, in this process.

    Returns
    -------
    LossReport
        ``.loss`` (the closed form), ``.verified`` (True when the claimed budget holds for every eps of
        the claim, decided exactly), ``.to_json()``, ``.plot()`` (L(eps) beside the budget).

    Examples
    --------
    >>> import dipc_plus
    >>> loss = dipc_plus.privacy_loss(dipc_plus.example("theories/randomized_response_coin_privacy.toml"))
    >>> loss.loss, loss.verified
    ('ln(3)', True)
    """
    def run(options: RunOptions) -> LossReport:
        return LossReport(_decided_privacy(decide_loss, claim, program, params, options, structure=structure,
                                           attack=attack))
    return checked(run, locals())
