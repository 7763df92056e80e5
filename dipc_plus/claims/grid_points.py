"""The points of a product grid as a sequence whose points are made when read.

Why: a claim's grid was a list of one dict per point, built when the file was read (Sparse
m = 12: 531,441 dicts, 245 MB and 2 s before any check began).  `GridPoints` is read like that
list (length, index, slice, iteration in the same order: the last input varies fastest, as
`itertools.product`), holds only the value lists, and knows it is a grid (`grid`), so the scope
of a verdict need not recover the grid from its points.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence


class GridPoints(Sequence):
    """Points {name: value} of the product of `ranges` (name -> its values, in input order), from
    index `start` to `stop` of the product order."""
    __slots__ = ("ranges", "names", "start", "stop", "total")

    def __init__(self, ranges: dict, start: int = 0, stop: int | None = None, total: int | None = None):
        self.ranges = ranges
        self.names = list(ranges)
        self.total = math.prod(len(v) for v in ranges.values()) if total is None else total
        self.start = start
        self.stop = self.total if stop is None else stop

    @property
    def grid(self) -> dict | None:
        """{name: values} when these are every point of the grid, else None."""
        return self.ranges if self.start == 0 and self.stop == self.total else None

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, index):
        """A point; for a slice, its points (a GridPoints when the step is 1).  Negative indices, bounds
        and slices are read as a list's, by the range of this part's point numbers."""
        numbers = range(self.start, self.stop)[index]
        if not isinstance(index, slice):
            return self._point(numbers)
        if numbers.step != 1:
            return [self._point(k) for k in numbers]
        return GridPoints(self.ranges, numbers.start, max(numbers.start, numbers.stop), self.total)

    def _digits(self, k: int) -> list:
        """The index of each input's value at point k of the product order."""
        digits = []
        for name in reversed(self.names):
            k, digit = divmod(k, len(self.ranges[name]))
            digits.append(digit)
        digits.reverse()
        return digits

    def _point(self, k: int) -> dict:
        return {n: self.ranges[n][d] for n, d in zip(self.names, self._digits(k))}

    def __iter__(self):
        """The points in product order from `start`, made by itertools.product (no odometer by hand;
        skipping the points before a part's first made one-input tasks quadratic): the first point,
        then, for each input from the last to the first, the points that first differ from it there."""
        if self.start >= self.stop:
            return
        options = [self.ranges[n] for n in self.names]
        digits = self._digits(self.start)
        first = [options[i][d] for i, d in enumerate(digits)]
        later = (itertools.product(*([v] for v in first[:i]), options[i][digits[i] + 1:], *options[i + 1:])
                 for i in reversed(range(len(options))))
        for combo in itertools.islice(itertools.chain([first], *later), self.stop - self.start):
            yield dict(zip(self.names, combo))

    def __eq__(self, other) -> bool:
        if isinstance(other, (GridPoints, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None

    def __reduce__(self):
        return GridPoints, (self.ranges, self.start, self.stop)

    def __repr__(self) -> str:
        return f"<GridPoints {self.start}..{self.stop} of {self.total}>"
