import atexit
import os
import shutil
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from scripts.fixtures_dedupe import materialise_tree  # noqa: E402

FIXTURES_SRC = os.path.join(ROOT, "fixtures")


def _materialise() -> str:
    """fixtures/ as the tests read it, written once per session: every overlay case of
    fixtures/rules/ made whole (its bases copied, the files it names, its own files over them),
    the files fixtures/files.yaml names written back, fixtures/bases/ and files.yaml left out
    (scripts/fixtures_dedupe.py). A test reads fixtures through FIXTURES, never
    ROOT/fixtures; the tree's parent stands for the repository root (``<tmp>/fixtures/...``)."""
    top = tempfile.mkdtemp(prefix="olm-check-fixtures-")
    atexit.register(shutil.rmtree, top, True)
    return materialise_tree(os.path.join(top, "fixtures"), FIXTURES_SRC)


FIXTURES = _materialise()


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


GOOD_CSV = "manifests/example-operator.clusterserviceversion.yaml"


@pytest.fixture
def edit_good_csv(copy_fixture):
    """The reference good bundle in a fresh directory (the current one); returns
    ``edit((old, new), ..., profile=None)``, which replaces each ``old`` (exactly once) in its
    CSV, checks the bundle as a user would (``checker.api.check``) and returns the result,
    after asserting that no check failed inside (no internal-error finding)."""
    copy_fixture("bundles/good")

    def edit(*pairs, profile=None):
        from checker.api import check

        with open(GOOD_CSV, encoding="utf-8") as fh:
            text = fh.read()
        for old, new in pairs:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        with open(GOOD_CSV, "w", encoding="utf-8") as fh:
            fh.write(text)
        res = check(["."], profile=profile)
        assert not [f for f in res.findings if f.rule == "internal-error"], [f.message for f in res.findings]
        return res

    return edit


@pytest.fixture
def catalog(tmp_path, monkeypatch):
    """A copy of fixtures/catalog-small (not a git work tree), the current directory."""
    dest = tmp_path / "catalog"
    shutil.copytree(os.path.join(FIXTURES, "catalog-small"), dest, symlinks=True)
    monkeypatch.chdir(dest)
    return str(dest)
