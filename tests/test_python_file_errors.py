"""A .py program that is not UTF-8 text is refused like a .dip file: exit 2 at the bad byte's
line and column (the one decoder, execution.files.utf8_text), never a traceback."""
from conftest import run_main


def test_python_file_not_utf8_is_refused_at_line_and_column(tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"def f(prng, queries, epsilon):\n    # caf\xe9\n    return 1\n")
    code, out, err = run_main(["show", path, "--function", "f", "--set", "m=2"])
    assert code == 2 and out == ""
    assert f"{path}:2:10: error: the Python file is not UTF-8 text: byte 0xe9" in err, err
    assert "hint: save the Python file as UTF-8 text" in err and "Traceback" not in err
