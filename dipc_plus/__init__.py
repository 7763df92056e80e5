"""dipc-plus: decide accuracy and privacy of DiPWhile+ programs exactly, for all epsilon.

Notebook use::

    import dipc_plus
    nm = dipc_plus.load("programs/noisy_max.dip", m=3)
    d = nm.distribution(q=[-1, 0, 0])      # exact, for every eps
    print(d); d[1].at(Fraction(27, 82))      # certified ball
    nm.within({"out": 1}, 0, q=[-1, 0, 0])   # accuracy events
    nm.simulate(Fraction(1, 2), 10**5, q=[-1, 0, 0])

    r = dipc_plus.check_accuracy("theories/sparse.toml", c=1, input={"q": [-1, -1, 1]}, kappa=7)
    r.verdict, r.counterexample, r.to_json(), r.plot()   # the twin of `dipc accuracy ... --json`
    dipc_plus.sweep("theories/sparse.toml", c=1)
    dipc_plus.check_privacy("theories/svt_lyu_alg4_privacy.toml")
    dipc_plus.privacy_loss("theories/svt_lyu_alg4_privacy.toml").plot()
"""

__version__ = "0.1.0"


def load(path, **params):
    """Parse and check a .dip file with parameters (``m=3``); returns a `LoadedProgram`."""
    from dipc_plus.api import LoadedProgram
    return LoadedProgram.from_file(path, **params)


def check_accuracy(claim, **options):
    """`dipc accuracy CLAIM` as a function (see `dipc_plus.api.checks.check_accuracy`)."""
    from dipc_plus.api import check_accuracy as run
    return run(claim, **options)


def sweep(claim, **options):
    """`dipc sweep CLAIM` as a function (see `dipc_plus.api.checks.sweep`)."""
    from dipc_plus.api import sweep as run
    return run(claim, **options)


def check_privacy(claim, **options):
    """`dipc privacy CLAIM` as a function (see `dipc_plus.api.checks.check_privacy`)."""
    from dipc_plus.api import check_privacy as run
    return run(claim, **options)


def privacy_loss(claim, **options):
    """`dipc privacy-loss CLAIM` as a function (see `dipc_plus.api.checks.privacy_loss`)."""
    from dipc_plus.api import privacy_loss as run
    return run(claim, **options)
