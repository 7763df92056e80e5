"""An incorrect Report Noisy Max of StatDP's list: one-sided exponential noise of scale
2/epsilon, and the largest noisy VALUE is returned instead of its index.

StatDP (Ding et al., CCS 2018) finds it is not eps-DP.
"""


def noisy_max_exp_value(prng, queries, epsilon):
    noisy = [q + prng.exponential(scale=2.0 / epsilon) for q in queries]
    return max(noisy)
