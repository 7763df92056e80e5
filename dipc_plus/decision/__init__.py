"""The certified decision procedure for one-variable sentences over exp-polynomials."""
