"""The online-program generator's issue-40 constructs: counted outputs and discrete Laplace draws.

Why: tests/test_every_length_generator.py judges whatever tests/online_programs.py draws, so
the generator itself must (a) keep every program it drew before these constructs existed
(the new draws come last in each program's stream: a failure found on program i stays
reproducible), (b) draw the new constructs in the suite's first 100 programs, and (c) write
them so that the plain forms land in the every-length class with the verdict the shipped
twins get (programs/svt_count.dip, programs/discrete_svt.dip), not in a refusal.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
from collections import Counter
from dataclasses import replace

from dipc_plus import cli
from online_programs import Spec, claim_text, random_spec, render

SEED = 2025   # the generator test's seed
# sha256 of the texts of programs 0..3099 of that stream as drawn at commit efef37c (before the
# counted outputs and DLap draws were added).
STREAM_BEFORE_ISSUE_40 = "57e080ee3477dfb47e73b252dae531334c8e034f4c1fc855cd42b269742e255a"


def drawn(i: int, counted_and_dlap: bool = True) -> Spec:
    return random_spec(random.Random(f"{SEED}:{i}"), counted_and_dlap)


def test_earlier_draws_keep_their_programs():
    texts = "".join(render(drawn(i, counted_and_dlap=False)) for i in range(3100))
    assert hashlib.sha256(texts.encode()).hexdigest() == STREAM_BEFORE_ISSUE_40


def test_new_draws_only_add_the_new_constructs():
    """A program that draws neither construct is the program drawn before them."""
    for i in range(300):
        spec = drawn(i)
        if not (spec.counted or spec.dlap):
            assert spec == drawn(i, counted_and_dlap=False), i


def test_suite_programs_draw_each_construct():
    specs = [drawn(i) for i in range(100)]
    kinds = Counter(s.counted for s in specs if s.counted)
    assert {"bots", "tops", "score", "last"} <= set(kinds), kinds
    assert sum(s.dlap for s in specs) >= 5 and sum(s.stop_flag for s in specs) >= 5


def every_length(spec: Spec, tmp_path) -> dict:
    """`dipc privacy --json` of the spec's every-length claim, with its exit code."""
    (tmp_path / "p.dip").write_text(render(spec))
    (tmp_path / "p.toml").write_text(claim_text(spec, "p.dip", every=True))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = cli.main(["privacy", str(tmp_path / "p.toml"), "--json", "--timeout", "60"])
    return {**json.loads(buf.getvalue()), "exit": code}


def test_counted_with_stop_flag_is_in_the_class(tmp_path):
    """Algorithm 1 releasing only its number of bots, the exit turned into a flag: the shape of
    programs/svt_count.dip, verified through the answers with their d = 1."""
    spec = replace(Spec(), counted="bots", counted_only=True, stop_flag=True)
    text = render(spec)
    assert "var out: Ans[m]" in text and "output nbots: 0..m" in text and "exit" not in text
    o = every_length(spec, tmp_path)
    assert (o["exit"], o["verdict"], o["d"]) == (0, "verified", "1"), o


def test_counted_after_an_exit_is_refused_at_its_line(tmp_path):
    spec = replace(Spec(), counted="tops", counted_only=False, stop_flag=False)
    o = every_length(spec, tmp_path)
    assert o["exit"] == 2 and o["error"]["line"] >= 1, o


def test_dlap_draws_are_in_the_class(tmp_path):
    """Algorithm 1 with DLap draws on integer inputs: programs/discrete_svt.dip, d = 1."""
    spec = replace(Spec(), dlap=True)
    text = render(spec)
    assert "input q: int[m]" in text and "DLap(eps/2, T)" in text and "DLap(eps/4, q[i])" in text
    o = every_length(spec, tmp_path)
    assert (o["exit"], o["verdict"], o["d"]) == (0, "verified", "1"), o
