"""Pufferfish privacy: secrets, discriminative pairs and priors (scenarios) over inputs.

`check` decides a Pufferfish claim exactly (polynomial inequalities in eps and the
scenario parameters), `loss` prints its tight conditional likelihood ratios, and
`attack` reads each scenario as an adversary's prior: the exact Bayes-optimal
success and advantage.
"""
