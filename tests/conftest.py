import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")
sys.path.insert(0, ROOT)


@pytest.fixture
def copy_fixture(tmp_path, monkeypatch):
    """Copy fixtures/<rel> into a fresh directory (not a git work tree) and chdir there, so
    display paths are relative to it, as for a user running olm-check in that directory."""

    def _copy(rel: str, name: str = "case") -> str:
        dest = tmp_path / name
        shutil.copytree(os.path.join(FIXTURES, rel), dest, symlinks=True)
        monkeypatch.chdir(dest)
        return str(dest)

    return _copy
