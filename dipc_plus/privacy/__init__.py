"""Deciding privacy claims, one subpackage per concept.

`dp` decides eps-DP and (eps, delta)-DP (and plans the pairs of neighbouring inputs),
`loss` computes the tight loss L(eps) of a DP claim, `pufferfish` decides Pufferfish
claims and reads their scenarios as attacks, `online` decides a claim for every number
of queries.  Two modules stay here because several subpackages use them: `output_tables`
(the exact output tables every decider compares) and `display` (how reports print
inputs, outputs and certified numbers).  Claims are read in `claims/`, not here.
"""
