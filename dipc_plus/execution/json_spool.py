"""JSON written in pieces: values already encoded (`RawJSON`) and long lists kept on disk
(`JsonSpool`) until the object they belong to is printed.

Why: a grid check prints one report per input (531,441 at Sparse m = 12), and the JSON object
that holds them says its verdict first.  Kept as Python dicts until the end, the reports took
more memory than the check; encoded once when made and appended to a temporary file, they take
none, and `write_json` copies them into the output in order.  A text report's lines are kept the
same way (each a JSON string) and printed one by one (`values`).
"""
from __future__ import annotations

import json
import tempfile
from typing import Iterator


class RawJSON(str):
    """A value's JSON text, written as it is (never quoted again)."""
    __slots__ = ()


class JsonSpool:
    """A list of JSON values appended one by one to a temporary file (one encoded value a line),
    read back in order.  Iterating yields each value's `RawJSON` text."""

    def __init__(self):
        self._file = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self._count = 0

    def append_lines(self, text: str, count: int) -> None:
        """`count` encoded values at once: `text` is each one's JSON followed by a newline."""
        self._file.write(text)
        self._count += count

    def __len__(self) -> int:
        return self._count

    def _lines(self) -> Iterator[str]:
        """Each stored line without its newline; the file is left at its end for the next append."""
        self._file.flush()
        self._file.seek(0)
        try:
            for line in self._file:
                yield line[:-1]
        finally:
            self._file.seek(0, 2)

    def __getstate__(self) -> dict:
        """Its lines as one string: a report made in a guarded child (the API's timeout=) travels back
        to the caller whole."""
        return {"text": "".join(line + "\n" for line in self._lines()), "count": self._count}

    def __setstate__(self, state: dict) -> None:
        self.__init__()
        self.append_lines(state["text"], state["count"])

    def __iter__(self) -> Iterator[RawJSON]:
        return map(RawJSON, self._lines())

    def values(self) -> Iterator:
        """The values decoded, one at a time, in order (a text report's lines, kept as JSON strings)."""
        return map(json.loads, self._lines())

    def close(self) -> None:
        self._file.close()


def write_json(value, out, pad: str = "") -> None:
    """`value` to the text stream `out`: objects indented, each element of a list of objects (or
    of encoded values) on one line of its own, a `JsonSpool` copied from its file."""
    if isinstance(value, RawJSON):
        out.write(value)
    elif isinstance(value, dict) and value:
        inner = pad + "  "
        for n, (k, v) in enumerate(value.items()):
            out.write(("{\n" if n == 0 else ",\n") + f"{inner}{json.dumps(k)}: ")
            write_json(v, out, inner)
        out.write("\n" + pad + "}")
    elif isinstance(value, JsonSpool) or (isinstance(value, list) and
                                          any(isinstance(v, (dict, list, RawJSON)) for v in value)):
        _write_elements(value, out, pad)
    else:
        out.write(json.dumps(value))


def _write_elements(values, out, pad: str) -> None:
    """A list (or a spool, streamed from its file) with each element on one line of its own."""
    inner, first = pad + "  ", True
    for v in values:
        out.write(("[\n" if first else ",\n") + inner + (v if isinstance(v, RawJSON) else json.dumps(v)))
        first = False
    out.write("[]" if first else "\n" + pad + "]")
