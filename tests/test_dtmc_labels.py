"""`dipc dtmc --format prism` labels (issue 42, surfaces round 3): the output labels o0, o1, ...
are numbered in the order of the output values - the order `dipc prob` lists them - and the
message names the properties written, not the placeholder "oK"."""
from __future__ import annotations

import re

from conftest import PROGRAMS, run_main


def _labels(pm_text: str) -> list[str]:
    return [text.replace(" ", "") for _, text in re.findall(r"(?m)^// o(\d+): (.*)$", pm_text)]


def _prob_order(argv) -> list[str]:
    code, out, _ = run_main(["prob", *argv, "--eps", "1"])
    assert code == 0
    return [line[:-1].replace(" ", "").replace("out=[", "").replace("]", "")
            for line in out.splitlines() if line.startswith("out=")]


def test_labels_follow_the_output_values_and_the_message_names_them(tmp_path):
    argv = [PROGRAMS / "svt_lyu_alg1.dip", "--set", "m=3", "--input", "q=[0,1,0]"]
    code, _, err = run_main(["dtmc", *argv, "--format", "prism", "-o", tmp_path / "s.pm"])
    assert code == 0
    assert "oK" not in err and 'P=? [F "o0"], ..., P=? [F "o3"] (the 4 output labels)' in err
    labels = _labels((tmp_path / "s.pm").read_text())
    # out[1]=bot, out[2]=bot, out[3]=bot -> bot,bot,bot as `dipc prob` writes out=[bot, bot, bot]
    as_prob = [",".join(part.split("=")[1] for part in text.split(",")) for text in labels]
    assert as_prob == _prob_order(argv) and as_prob[0] == "bot,bot,bot"
    props = (tmp_path / "s.props").read_text()
    assert _labels(props) == labels and '"o3": P=? [ F "o3" ];' in props


def test_numbers_in_numeric_order(tmp_path):
    argv = [PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]"]
    code, _, err = run_main(["dtmc", *argv, "--format", "prism", "-o", tmp_path / "nm.pm"])
    assert code == 0 and 'P=? [F "o0"], P=? [F "o1"], P=? [F "o2"] (the 3 output labels)' in err
    assert _labels((tmp_path / "nm.pm").read_text()) == ["out=1", "out=2", "out=3"]
