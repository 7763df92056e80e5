"""samples.distinct_rows, shared by the sampler's grouping and SampleResult.distribution, against a
plain Python count, in its three regimes: a lookup table, a sort of packed keys, and rows sorted
whole when the packed key would overflow."""
from collections import Counter

import numpy as np
import pytest

from dipc_plus.semantics.samples import distinct_rows


@pytest.mark.parametrize("radices", [[3, 4], [2000, 1000], [2**31, 2**31, 3]],
                         ids=["lookup", "packed-sort", "row-sort"])
def test_distinct_rows_matches_a_plain_count(radices):
    rng = np.random.default_rng(1)
    n = 500
    codes = [rng.integers(0, min(r, 5), n).astype(np.int64) * (r // min(r, 5)) for r in radices]
    rows, inverse, counts = distinct_rows(codes, radices)
    plain = Counter(tuple(int(c[i]) for c in codes) for i in range(n))
    assert rows == sorted(plain)
    assert dict(zip(rows, counts.tolist())) == dict(plain)
    assert all(rows[inverse[i]] == tuple(int(c[i]) for c in codes) for i in range(n))


def test_one_row_gives_a_zero_inverse():
    rows, inverse, counts = distinct_rows([np.full(7, 2, dtype=np.int64)], [3])
    assert rows == [(2,)] and inverse.tolist() == [0] * 7 and counts.tolist() == [7]
