"""The registry of noise distributions: what every stage asks about a noise by its name.

A noise is a real or integer sample `mean + N` with N drawn from a distribution whose only
parameter is a rate a of a*eps.  The front end (its name, its value type), the chain
builder (the `linear.Noise` kind it records), the sampler (how to draw N) and the exact
engines (how P[constraints on N] is computed) all read the one `NoiseSpec` registered
under that name, so a new noise is one module in this package plus its tests
(CONTRIBUTING.md, "Add a noise").
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from dipc_plus.exact.linear import Noise


@dataclass(frozen=True)
class EngineReading:
    """How the exact engines integrate a noise: as the engine noise `noise` (kind 'lap' for
    the Laplace engine, 'dlap' for the discrete Laplace engine), and, when `positive_only`,
    with the density twice that noise's on N > 0 and zero elsewhere (a one-sided
    exponential is that reading of a Laplace noise).  The argmax shortcut applies to every
    noise read by the Laplace engine."""
    noise: Noise
    positive_only: bool = False


@dataclass(frozen=True)
class NoiseSpec:
    """One noise distribution of the language."""
    kind: str          # the `linear.Noise` kind, unique: 'lap'
    surface: str       # its name in .dip programs, a reserved word: 'Lap'
    title: str         # in words, for messages: 'Laplace'
    value_type: str    # 'real' or 'int': the type of the sampled variable
    draw: Callable     # draw(rng, rate_eps, m): m draws of N (location 0) at the rate a*eps (a number)
    reading: Callable  # reading(a: Fraction) -> EngineReading
    # True when the noise of rate a*eps is Y/(a*eps) for one fixed law of Y with a density (no
    # atoms), stated and proved in the noise's module.  Then a sample mean + N is a location family
    # in the mean and a scale family in eps, and ties between independent samples have probability
    # 0: the argmax worst point (accuracy/argmax_box.py) needs exactly this of its noises.
    continuous_scale_family: bool = False
    # How shifting a draw by s changes its law, stated and proved in the noise's module; the
    # every-length coupling (privacy/online, docs/design/every_length.md) admits only "two-sided":
    # for every shift s of the noise's lattice (every real for a 'real' noise, every integer for an
    # 'int' one) the density or mass f has f(n) <= e^(a eps |s|) f(n + s) at every n, is positive on
    # the whole lattice and log-concave, and its tail P[N >= s] is C e^(-a eps s) for s >= 0 (the
    # lower tail its mirror image).  "one-sided": a shift one way leaves the support (cost infinite);
    # "" for a noise that states nothing.
    shift_cost: str = ""

    def described(self) -> str:
        """How the language writes it, for hints: 'Lap(a*eps, mean) (Laplace)'."""
        return f"{self.surface}(a*eps, mean) ({self.title})"


_BY_KIND: dict[str, NoiseSpec] = {}
_BY_SURFACE: dict[str, NoiseSpec] = {}


def register(spec: NoiseSpec) -> NoiseSpec:
    """Make `spec` known to every stage; a kind or a name can be registered only once
    (registering the identical spec again is a no-op)."""
    if spec.shift_cost not in ("", "one-sided", "two-sided"):
        raise ValueError(f"noise {spec.surface}: shift_cost must be '', 'one-sided' or 'two-sided'")
    if spec.value_type not in ("real", "int"):
        raise ValueError(f"noise {spec.surface}: value_type must be 'real' or 'int', not {spec.value_type!r}")
    for table, key in ((_BY_KIND, spec.kind), (_BY_SURFACE, spec.surface)):
        old = table.get(key)
        if old is not None and old != spec:
            raise ValueError(f"a noise {key!r} is already registered")
    _BY_KIND[spec.kind] = spec
    _BY_SURFACE[spec.surface] = spec
    return spec


def by_kind(kind: str) -> NoiseSpec:
    """The noise whose `linear.Noise` kind is `kind`."""
    return _BY_KIND[kind]


def by_surface(name: str) -> NoiseSpec | None:
    """The noise the language writes `name`, or None when `name` is no noise."""
    return _BY_SURFACE.get(name)


def all_noises() -> tuple[NoiseSpec, ...]:
    """Every registered noise, in registration order."""
    return tuple(_BY_KIND.values())


def surface_names() -> tuple[str, ...]:
    """The language's names of the noises, in registration order."""
    return tuple(spec.surface for spec in _BY_KIND.values())


def engine_reading(noise: Noise) -> EngineReading:
    """How the engines integrate the chain's noise `noise`."""
    return by_kind(noise.kind).reading(Fraction(noise.rate))
