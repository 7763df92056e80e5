"""The tight privacy loss of a DP claim: L(eps), the budget the program really has.

`tight` computes L(eps) exactly, as a piecewise upper envelope with certified
breakpoints, over the same pairs as the DP decider (`privacy.dp.plan`); `plot` draws
it beside the claimed budget (drawing only, no verdict is read from it).
"""
