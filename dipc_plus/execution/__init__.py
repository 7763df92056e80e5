"""Running independent tasks over worker processes (knows nothing of the domain)."""
