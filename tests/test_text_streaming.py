"""Issue 36, item 11: the text report of a grid is kept in a temporary file and printed line by line,
as the JSON report is, instead of holding every line in memory (Sparse c = 1 m = 15: 4.9 GB).  The
streamed text is the text of the same check made from its reports in memory."""
from __future__ import annotations

import re

import pytest

from conftest import THEORIES, run_main
from dipc_plus.accuracy.checker import build_checker
from dipc_plus.accuracy.result import AccuracyResult
from dipc_plus.execution.json_spool import JsonSpool

CASES = [("sparse.toml", (("m", 4), ("c", 1)), None),     # verified
         ("sparse.toml", (("m", 3), ("c", 1)), "grid"),    # refuted
         ("noisy_max.toml", (("m", 3),), None),
         ("numeric_sparse.toml", (("m", 3), ("c", 1)), None)]


def _without_seconds(text: str) -> str:
    return re.sub(r"; [0-9.]+ s$", "", text, flags=re.M)


def _check(name, params, dd_over, **run):
    checker = build_checker(str(THEORIES / name), params, dd_over, False, 200_000)
    return checker.run(None, 1, **run)


@pytest.mark.parametrize("name, params, dd_over", CASES)
@pytest.mark.parametrize("verbose", [False, True])
def test_the_streamed_text_is_the_text_of_the_reports_in_memory(name, params, dd_over, verbose):
    streamed = _check(name, params, dd_over, summarize="text-verbose" if verbose else "text")
    in_memory = _check(name, params, dd_over)   # no summary: every report kept as an object
    assert in_memory.kept is None
    assert _without_seconds(AccuracyResult.report(streamed, verbose=verbose)) == \
        _without_seconds(AccuracyResult.report(in_memory, verbose=verbose))


def test_a_text_run_keeps_its_lines_on_disk_not_in_memory():
    result = _check("sparse.toml", (("m", 3), ("c", 1)), None, summarize="text")
    assert isinstance(result.kept, JsonSpool) and len(result.kept) == 27
    lines = list(result.kept.values())
    assert all(isinstance(line, str) for line in lines)


def test_a_verbose_line_with_newlines_comes_back_whole():
    """A verbose report holds newlines inside one kept value: each is one JSON string a line."""
    result = _check("sparse.toml", (("m", 3), ("c", 1)), "grid", summarize="text-verbose")
    assert any("\n" in line for line in result.kept.values())


def test_the_command_prints_the_streamed_report():
    code, out, err = run_main(["accuracy", THEORIES / "sparse.toml", "--set", "m=3", "--set", "c=1", "--no-progress"])
    assert code == 0, err
    expected = AccuracyResult.report(_check("sparse.toml", (("m", 3), ("c", 1)), None))
    assert _without_seconds(out).startswith(_without_seconds(expected))
