"""The noise distributions of the language, one module each, registered on import.

`registry` holds the `NoiseSpec` protocol and the lookups; the modules below register
Lap, ExpNoise and DLap, in the order the language lists them.  A new noise is a module
here that calls `register`, and a line below (CONTRIBUTING.md, "Add a noise").
"""
from dipc_plus.exact.noises import laplace, exponential, dlap  # noqa: F401  (each registers its noise)
from dipc_plus.exact.noises.registry import (  # noqa: F401  (the package's interface)
    EngineReading, NoiseSpec, all_noises, by_kind, by_surface, engine_reading, register, surface_names)
