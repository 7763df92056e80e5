"""Accuracy claims (Barthe et al., POPL 2021, Definition 2): checks, sweep, plots."""
