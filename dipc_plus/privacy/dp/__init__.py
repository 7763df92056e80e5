"""Differential privacy decided exactly: eps-DP and (eps, delta)-DP, for every eps at once.

`check` is the decider (`dipc privacy` on a kind = "dp" claim), `hockey_stick` the
(eps, delta) case over sets of outputs; `plan` splits a claim into units of work and
the pairs of neighbouring inputs to compare (also used by the tight loss, `privacy.loss`),
and `point_filter` is the fast path at eps = ln r on a grid.  A claim on a real output
without named events is decided on densities for every output value: `real_output_loss`
(the sup over the value of the loss, per pair) and `real_output_check` (the verdict).
"""
