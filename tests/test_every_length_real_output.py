"""`--every-length` on a real output without events (issue 42, surfaces round 3): exit 2 with a
hint that applies - add events, or drop the flag (or `length = "every"`) - and never "run `dipc
privacy`", the command the user just ran."""
from __future__ import annotations

from conftest import PROGRAMS, THEORIES, run_main


def test_the_flag_on_a_real_output_names_events_and_the_flag_not_the_command():
    code, out, err = run_main(["privacy", PROGRAMS / "gap_above_threshold.dip",
                               THEORIES / "gap_above_threshold_m3_privacy_values.toml", "--every-length"])
    assert code == 2 and out == "" and "Traceback" not in err
    assert "real output(s) val[1], val[2], val[3] name no events" in err
    assert "`dipc privacy`" not in err
    assert 'events = { val = ["(-inf, 0]", "(0, inf)"] }' in err and "without --every-length" in err


def test_length_every_in_the_claim_is_named_as_the_key(tmp_path):
    text = (THEORIES / "gap_above_threshold_m3_privacy_values.toml").read_text()
    text = text.replace('path = "../programs/', f'path = "{PROGRAMS.as_posix()}/')
    claim = tmp_path / "gap_every.toml"
    claim.write_text(text.replace('budget = "eps"\n', 'budget = "eps"\nlength = "every"\n'))
    code, _, err = run_main(["privacy", claim])
    assert code == 2 and "`dipc privacy`" not in err
    assert 'without length = "every"' in err
