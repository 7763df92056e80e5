"""Semantics of the core IR: the parametric Markov chain, reachability, program
structure, exports and the concrete sampler (the independent witness)."""
