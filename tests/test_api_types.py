"""Issue 30, point 4: the API ships its types (py.typed) and they check (mypy over dipc_plus/api, with
the configuration in pyproject.toml).  Its own file: a cold mypy run takes most of a minute."""
from __future__ import annotations

import tomllib

import pytest
from conftest import ROOT


def test_point4_typed_package_and_type_check():
    assert (ROOT / "dipc_plus" / "py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["dipc_plus"]
    mypy = pytest.importorskip("mypy.api")
    out, err, status = mypy.run(["--config-file", str(ROOT / "pyproject.toml"),
                                 str(ROOT / "dipc_plus" / "api"), str(ROOT / "dipc_plus" / "__init__.py")])
    assert status == 0, out + err
