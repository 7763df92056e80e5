"""Privacy for every number of queries m, for online programs (`dipc privacy --every-length`).

Why a package: the decision has four separate concerns, one module each, lowest first:
`shape` (the lowered program is a prefix and m identical iterations, nothing depends on m),
`automaton` (the iteration graph), `recognise` (the whitelist that builds it from the
lowered, checked program), `bound` (the coupling table and its game value d), `patterns`
(the proofs of "private for no constant" with their preconditions) and `every_length`
(the verdict, cross-checked with the exact engine).  The proofs are in docs/design/every_length.md.
"""
