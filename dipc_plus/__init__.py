"""dipc-plus: decide accuracy and privacy of DiPWhile+ programs exactly, for all epsilon.

Notebook use::

    import dipc_plus
    nm = dipc_plus.load("programs/noisy_max.dip", m=3)
    d = nm.distribution(q=[-1, 0, 0])      # exact, for every eps
    print(d); d[1].at(Fraction(27, 82))      # certified ball
    nm.within({"out": 1}, 0, q=[-1, 0, 0])   # accuracy events
    nm.simulate(Fraction(1, 2), 10**5, q=[-1, 0, 0])
"""

__version__ = "0.1.0"


def load(path, **params):
    """Parse and check a .dip file with parameters (``m=3``); returns a `LoadedProgram`."""
    from dipc_plus.api import LoadedProgram
    return LoadedProgram.from_file(path, **params)
