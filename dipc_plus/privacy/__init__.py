"""Privacy claims: eps-DP and (eps, delta)-DP, tight loss, Pufferfish, attacks."""
