"""Every interval a claim writes (an eps range, an output event, a Pufferfish parameter's range)
is split by one reader (`decision.certified.interval_parts`) and spells infinity one way
(`infinity_sign`), so a word one reader takes as infinity is not refused by another."""
import pytest

from dipc_plus.claims.claim_file import ClaimReader
from dipc_plus.claims.privacy_fields import read_eps
from dipc_plus.claims.privacy_types import parse_event
from dipc_plus.decision.certified import infinity_sign, interval_parts
from dipc_plus.decision.decide import Interval
from dipc_plus.errors import UserError


@pytest.mark.parametrize("word", ["inf", "+inf", "Infinity", "oo", "+oo", "\u221e", "+\u221e"])
def test_every_reader_takes_the_same_words_for_infinity(word):
    r = ClaimReader("c.toml", 'eps = "x"\n')
    assert Interval.parse(f"(0, {word})") == Interval()
    assert read_eps(r, f"(1/2, {word})", "eps").interval == Interval.parse("(1/2, inf)")
    minus = "-" + word.lstrip("+")
    assert str(parse_event(f"({minus}, {word})")) == "(-inf, inf)"
    assert infinity_sign(minus) == -1


@pytest.mark.parametrize("text", ["(1, 2", "1, 2)", "(1, 2, 3)", "(1)", "[]"])
def test_a_text_not_shaped_as_an_interval_is_refused_by_each_reader(text):
    assert interval_parts(text) is None
    with pytest.raises(UserError, match="cannot read"):
        Interval.parse(text)
    with pytest.raises(UserError, match="cannot read the output event"):
        parse_event(text)


@pytest.mark.parametrize("word", ["++inf", "--inf", "1e9", "infinite", ""])
def test_other_words_are_not_infinity(word):
    assert infinity_sign(word) == 0
