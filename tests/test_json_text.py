"""The commands' JSON layout (commands.common.json_text): the same value as json.dumps, objects
indented, each element of a list of objects or lists on one line of its own."""
import json

from hypothesis import given, settings, strategies as st

from dipc_plus.commands.common import json_text

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                    st.floats(allow_nan=False, allow_infinity=False))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                      max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_json_text_reads_back_as_the_same_value(value):
    assert json.loads(json_text(value)) == value


def test_one_line_per_report_and_indented_objects():
    out = {"verdict": "verified", "scope": {"kind": "grid"},
           "reports": [{"input": {"q": [1, 2]}, "verdict": "verified"}, {"input": {"q": [0, 0]}, "verdict": "refuted"}],
           "empty": {}, "numbers": [1, 2, 3]}
    lines = json_text(out).splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert '  "scope": {' in lines and '    "kind": "grid"' in lines
    assert '    {"input": {"q": [1, 2]}, "verdict": "verified"},' in lines
    assert '  "numbers": [1, 2, 3]' in lines and '  "empty": {},' in lines
