"""Issue 37 item 4: `dipc merge` checks each part against one schema (`commands.parts.schema`) - a
field of the wrong type, nested one level too deep or a negative count is exit 2 naming the part
and the field - and privacy parts of eps = ln(r) grid claims, which the point filter checks a unit
at a time, merge into the unsharded run (they were refused: "checked 27 pairs of the 1 it covers")."""
from __future__ import annotations

import json

import pytest

from conftest import PROGRAMS, THEORIES, run_main
from dipc_plus.commands.merge import without_timing

UNGUARDED = ["--json", "--no-progress", "--timeout", "0", "--max-memory", "0"]
NAIVE_MAX = THEORIES / "discrete_noisy_max_naive_privacy.toml"     # eps = ln(2): refuted
SPARSE = ["accuracy", THEORIES / "sparse.toml", "--set", "m=3", "--set", "c=1"]


def _parts(folder, argv, n=2):
    paths = []
    for i in range(1, n + 1):
        code, text, err = run_main([*argv, *UNGUARDED, "--shard", f"{i}/{n}"])
        assert code in (0, 1), err
        paths.append(folder / f"part{i}.json")
        paths[-1].write_text(text)
    return paths


def _edited(tmp_path, path, change):
    data = json.loads(path.read_text())
    change(data)
    new = tmp_path / f"edited-{path.name}"
    new.write_text(json.dumps(data))
    return new


def _refused(paths, bad, field, says):
    code, out, err = run_main(["merge", *paths])
    assert code == 2, (out, err)
    assert "Traceback" not in err and str(bad) in err and f"\"{field}\"" in err and says in err, err


@pytest.fixture(scope="module")
def sparse_parts(tmp_path_factory):
    return _parts(tmp_path_factory.mktemp("sparse"), SPARSE)


@pytest.mark.parametrize("change, field, says", [
    (lambda o: o.update(obligations="9"), "obligations", "not a count"),                 # wrong type
    (lambda o: o.update(obligations=-1), "obligations", "not a count"),                  # negative count
    (lambda o: o["part"].update(index=[1]), "part.index", "not a count"),                # one level too deep
    (lambda o: o["reports"][0].update(dd=[0]), "reports[0].dd", "not a distance"),
    (lambda o: o["vacuity_basis"].update(boundary={"x": False}), "vacuity_basis.boundary", "not true or false"),
    (lambda o: o["vacuity_basis"].update(extra=1), "vacuity_basis.extra", "not a field"),
    (lambda o: o["part"]["options"]["args"].__setitem__(4, -5), "part.options.args[4]", "not a positive integer"),
    (lambda o: o["part"]["options"]["args"][1].append(["c", "x"]), "part.options.args[1][2][1]", "not a number"),
    (lambda o: o.pop("reports"), "", "has no \"reports\""),
])
def test_a_field_that_does_not_fit_the_schema_is_named(sparse_parts, tmp_path, change, field, says):
    bad = _edited(tmp_path, sparse_parts[0], change)
    if field:
        _refused([bad, sparse_parts[1]], bad, field, says)
    else:
        code, _, err = run_main(["merge", bad, sparse_parts[1]])
        assert code == 2 and str(bad) in err and says in err, err


def test_privacy_counts_of_the_wrong_type_are_named(tmp_path):
    paths = _parts(tmp_path, ["privacy", NAIVE_MAX])
    bad = _edited(tmp_path, paths[0], lambda o: o.update(decisions=0.5))
    _refused([bad, paths[1]], bad, "decisions", "not a count")
    bad = _edited(tmp_path, paths[0], lambda o: o["part"]["options"]["args"].__setitem__(2, "yes"))
    _refused([bad, paths[1]], bad, "part.options.args[2]", "not true or false")


def test_point_filter_parts_of_an_ln_r_claim_merge_into_the_unsharded_run(tmp_path):
    """eps = ln(2) on a grid: one item is the whole grid (27 pairs), so part 1/2 holds 27 pairs in
    1 item and part 2/2 none; the merge is the unsharded run, refuted with its counterexample."""
    code, whole, err = run_main(["privacy", NAIVE_MAX, *UNGUARDED])
    assert code == 1, err
    paths = _parts(tmp_path, ["privacy", NAIVE_MAX])
    assert json.loads(paths[0].read_text())["part"]["items"] == [0, 1]
    code, merged, err = run_main(["merge", *paths])
    assert code == 1, err
    assert without_timing(json.loads(merged)) == without_timing(json.loads(whole))


def test_a_verified_point_filter_part_with_an_edited_pair_count_is_refused(tmp_path):
    """The naive noisy max's tight loss at eps = ln(2) is ln(8) = 3 eps: a budget of 3*eps is verified.
    The pairs its one item holds (27 grid points) come from the claim, so a part that says it checked
    26 is refused."""
    claim = tmp_path / "naive_max_3eps.toml"
    text = NAIVE_MAX.read_text().replace('"../programs/', json.dumps(str(PROGRAMS))[:-1] + "/")
    claim.write_text(text.replace('budget = "eps"', 'budget = "3*eps"'))
    paths = _parts(tmp_path, ["privacy", claim])
    code, merged, err = run_main(["merge", *paths])
    assert code == 0 and json.loads(merged)["pairs_checked"] == 27, err
    bad = _edited(tmp_path, paths[0], lambda o: o.update(pairs_checked=26))
    code, out, err = run_main(["merge", bad, paths[1]])
    assert code == 2 and str(bad) in err and "checked 26 pairs of the 27" in err, err
