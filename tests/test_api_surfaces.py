"""What `dir(dipc_plus)` shows (issue 42 item 4): the API, not this file's typing helpers."""
import dipc_plus


def test_dir_shows_the_api_and_no_typing_helpers():
    names = dir(dipc_plus)
    assert not {"Any", "TYPE_CHECKING", "annotations"} & set(names)
    assert set(dipc_plus.__all__) <= set(names) and "__version__" in names
