"""A claim string nested too deeply for Python's parser gets one message whatever field it is in
(an accuracy formula, a budget, a weight): the string, clipped, "is nested too deeply to read",
with the `depth` limit's hint and the string's location."""
import pytest

from dipc_plus.claims.expression import Where, read
from dipc_plus.claims.formula import parse, parse_polynomial
from dipc_plus.errors import UserError
from dipc_plus.execution import limits

DEEP = "-" * 3000 + "1"     # past Python's own parser recursion, under the formula's text limit


@pytest.mark.parametrize("reader", [
    lambda where: parse(DEEP, [], where),
    lambda where: read(DEEP, where, what="epsilon"),
    lambda where: parse_polynomial(DEEP, ["p"], where),
])
def test_one_message_for_a_string_too_deep_to_parse(reader):
    with pytest.raises(UserError) as caught:
        reader(Where("claim.toml", 7, 9, "privacy.epsilon"))
    error = caught.value
    assert str(error).startswith("claim.toml:7:9: error: privacy.epsilon: '-----")
    assert "(3001 characters)' is nested too deeply to read" in str(error)
    assert error.hint == limits.hint("depth")
