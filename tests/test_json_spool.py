"""The JSON spool (execution/json_spool.py): what a grid check keeps on disk reads back, travels
through pickle (the API's guarded child) and prints exactly as the same values held in a list."""
from __future__ import annotations

import io
import json
import pickle

from dipc_plus.execution.json_spool import JsonSpool, RawJSON, write_json

VALUES = [{"input": {"q": [1, -1]}, "verdict": "verified"}, [2, "x\ny"], "a line", 3]


def spool_of(values) -> JsonSpool:
    spool = JsonSpool()
    spool.append_lines("".join(json.dumps(v) + "\n" for v in values), len(values))
    return spool


def printed(value) -> str:
    out = io.StringIO()
    write_json(value, out)
    return out.getvalue()


def test_a_spool_reads_back_its_values_and_keeps_appending_at_its_end():
    spool = spool_of(VALUES[:2])
    assert list(spool.values()) == VALUES[:2]
    spool.append_lines("".join(json.dumps(v) + "\n" for v in VALUES[2:]), 2)   # after a read: at the end
    assert len(spool) == 4 and list(spool.values()) == VALUES
    assert all(isinstance(raw, RawJSON) for raw in spool)


def test_a_spool_travels_through_pickle_whole():
    copy = pickle.loads(pickle.dumps(spool_of(VALUES)))
    assert len(copy) == 4 and list(copy.values()) == VALUES


def test_a_spool_prints_as_the_list_of_its_values():
    spooled = printed({"reports": spool_of(VALUES), "none": JsonSpool()})
    listed = printed({"reports": [RawJSON(json.dumps(v)) for v in VALUES], "none": []})
    assert spooled == listed
    assert json.loads(spooled) == {"reports": VALUES, "none": []}
    assert spooled.splitlines()[2] == '    {"input": {"q": [1, -1]}, "verdict": "verified"},'
