"""Rule fixture cases as overlays of fixtures/bases/ (scripts/fixtures_dedupe.py): copies stay
within the bound, every overlay materialises, and the conversion keeps every case's bytes
(issue 28, item 5)."""
import os
import shutil

import pytest

from conftest import FIXTURES, FIXTURES_SRC
from scripts import fixtures_dedupe as fd


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _tree(top) -> dict:
    out = {}
    for rel in fd._files(str(top)):
        p = os.path.join(str(top), rel)
        if os.path.islink(p):
            out[rel] = ("link", os.readlink(p))
            continue
        with open(p, "rb") as fh:
            out[rel] = fh.read()
    return out


def test_copies_stay_within_the_bound(capsys):
    """scripts/fixtures_dedupe.py --check: issue 28 asks for at most 20% copies (MAX_COPIES, a
    ratchet: see there)."""
    assert fd.MAX_COPIES <= 0.20
    assert fd.main(["--check", "--fixtures", FIXTURES_SRC]) == 0, capsys.readouterr().out
    n, c, _ = fd.copies(FIXTURES_SRC)
    assert c <= 0.20 * n


def test_check_fails_when_copies_exceed_the_bound(tmp_path, capsys):
    fx = tmp_path / "fixtures"
    for i in range(5):
        _write(str(fx / "rules" / "r" / f"good{i}" / "a.yaml"), "same\n")
    assert fd.main(["--check", "--fixtures", str(fx)]) == 1
    assert "5 fixture files, 4 copies" in capsys.readouterr().out


def test_overlay_is_its_bases_then_removals_then_its_own_files(tmp_path):
    fx = tmp_path / "fixtures"
    _write(str(fx / "bases" / "b" / "manifests" / "csv.yaml"), "base csv\n")
    _write(str(fx / "bases" / "b" / "manifests" / "crd.yaml"), "base crd\n")
    _write(str(fx / "bases" / "b" / "bundle.Dockerfile"), "FROM scratch\n")
    case = fx / "rules" / "r" / "bad"
    _write(str(case / "expect.yaml"), "base:\n  .: b\n  operators/x/1.0.0: b\nremove: [operators/x/1.0.0/bundle.Dockerfile]\n")
    _write(str(case / "manifests" / "csv.yaml"), "bad csv\n")
    out = fd.materialise_case(str(case), str(tmp_path / "out"), str(fx))
    assert _tree(out) == {
        "bundle.Dockerfile": b"FROM scratch\n",
        "expect.yaml": (case / "expect.yaml").read_bytes(),
        "manifests/crd.yaml": b"base crd\n",
        "manifests/csv.yaml": b"bad csv\n",
        "operators/x/1.0.0/manifests/crd.yaml": b"base crd\n",
        "operators/x/1.0.0/manifests/csv.yaml": b"base csv\n",
    }
    whole = fx / "rules" / "r" / "good"  # no base: the directory as it is
    _write(str(whole / "manifests" / "csv.yaml"), "base csv\n")
    assert _tree(fd.materialise_case(str(whole), str(tmp_path / "out2"), str(fx))) == _tree(whole)
    sib = fx / "rules" / "r" / "bad-sibling"  # a sibling case: its tree without its expect.yaml
    _write(str(sib / "expect.yaml"), "base: ../bad\nfindings: []\n")
    _write(str(sib / "bundle.Dockerfile"), "FROM other\n")
    got = _tree(fd.materialise_case(str(sib), str(tmp_path / "out4"), str(fx)))
    assert got == dict(_tree(out), **{"expect.yaml": (sib / "expect.yaml").read_bytes(), "bundle.Dockerfile": b"FROM other\n"})
    _write(str(fx / "rules" / "r" / "bad-chain" / "expect.yaml"), "base: ../bad-sibling\n")
    with pytest.raises(fd.OverlayError, match="sibling base"):
        fd.materialise_case(str(fx / "rules" / "r" / "bad-chain"), str(tmp_path / "out5"), str(fx))
    ref = fx / "rules" / "r" / "bad-ref"  # files: the same bytes as a base's file or a sibling's own file
    _write(str(ref / "expect.yaml"), "files:\n  a/crd.yaml: b/manifests/crd.yaml\n  b.yaml: ../bad/manifests/csv.yaml\n")
    assert _tree(fd.materialise_case(str(ref), str(tmp_path / "out6"), str(fx))) == {
        "a/crd.yaml": b"base crd\n", "b.yaml": b"bad csv\n", "expect.yaml": (ref / "expect.yaml").read_bytes()}
    for i, src in enumerate(("../bad/bundle.Dockerfile", "../bad/expect.yaml", "../../../bases/b/bundle.Dockerfile", "b/nope", "../../r")):
        _write(str(ref / "expect.yaml"), f"files:\n  x: {src}\n")  # only a file stored in a sibling or a base
        with pytest.raises(fd.OverlayError, match="no such stored file"):
            fd.materialise_case(str(ref), str(tmp_path / f"out7-{i}"), str(fx))
    _write(str(case / "expect.yaml"), "base: nope\n")
    with pytest.raises(fd.OverlayError, match="base 'nope': no such base"):
        fd.materialise_case(str(case), str(tmp_path / "out3"), str(fx))


SAMPLE = ("alm-examples", "bundle-annotations", "ci-config", "dangling-bundle", "max-ocp-version-ambiguous",
          "plain-bundle-metadata", "release-config", "yaml-limits")


def test_conversion_keeps_every_case_and_is_idempotent(tmp_path):
    """A copy of some rule directories (bases at several directories, removals, sibling bases,
    files: references, a symlink case) with every case made whole again converts to cases that
    make the same trees, and a second run changes nothing. (Alone, they may store a file that in
    the whole tree another rule's case stores and they name: the next test runs on all of them.)"""
    fx = tmp_path / "fixtures"
    shutil.copytree(FIXTURES_SRC, fx, symlinks=True, ignore=lambda d, names: ["rules"] if d == FIXTURES_SRC else [])
    for rid in SAMPLE:
        shutil.copytree(os.path.join(FIXTURES, "rules", rid), fx / "rules" / rid, symlinks=True)
    for rel in fd._case_dirs(str(fx)):  # the whole trees, without the base/remove lines
        p = fx / rel / "expect.yaml"
        if p.exists() and fd.read_overlay(str(fx / rel)) is not None:
            text = p.read_text(encoding="utf-8")
            header = fd._header(*fd.read_overlay(os.path.join(FIXTURES_SRC, rel)))
            assert text.startswith(header), rel
            if text == header:
                p.unlink()
            else:
                p.write_text(text[len(header):], encoding="utf-8")
    wholes = {rel: _tree(fx / rel) for rel in fd._case_dirs(str(fx))}
    assert fd.convert(str(fx)) > 0
    for rel in fd._case_dirs(str(fx)):
        out = fd.materialise_case(str(fx / rel), str(tmp_path / "m" / rel), str(fx))
        got = _tree(out)
        got.pop("expect.yaml", None)
        wholes[rel].pop("expect.yaml", None)
        assert got == wholes[rel], rel
    after = _tree(fx)
    assert fd.convert(str(fx)) == 0
    assert _tree(fx) == after


def test_conversion_of_the_fixtures_changes_nothing(tmp_path):
    """`python scripts/fixtures_dedupe.py` on a clean checkout changes nothing: the fixtures are
    as the conversion plans them."""
    fx = tmp_path / "fixtures"
    shutil.copytree(FIXTURES_SRC, fx, symlinks=True)
    before = _tree(fx)
    assert fd.convert(str(fx)) == 0
    assert _tree(fx) == before


def test_index_names_the_files_of_bases_and_trees_that_repeat_an_earlier_one(tmp_path):
    """fixtures/files.yaml: a file of bases/ or of an indexed tree (graph/, ...) with the same bytes
    as one before it (bundles/ first) is named there, not stored; materialise_tree writes it back,
    a base made whole reads it, and a second conversion changes nothing."""
    fx = tmp_path / "fixtures"
    _write(str(fx / "bundles" / "good" / "a.yaml"), "a\n")
    _write(str(fx / "bases" / "b" / "a.yaml"), "a\n")
    _write(str(fx / "graph" / "x" / "a.yaml"), "a\n")
    _write(str(fx / "graph" / "y" / "c.yaml"), "c\n")
    _write(str(fx / "graph" / "z" / "c.yaml"), "c\n")
    _write(str(fx / "rules" / "r" / "good" / "expect.yaml"), "base: b\n")
    whole = _tree(fx)
    assert fd.convert_index(str(fx)) is True
    assert fd.read_index(str(fx)) == {"bases/b/a.yaml": "bundles/good/a.yaml", "graph/x/a.yaml": "bundles/good/a.yaml",
                                      "graph/z/c.yaml": "graph/y/c.yaml"}
    assert sorted(_tree(fx)) == ["bundles/good/a.yaml", "files.yaml", "graph/y/c.yaml", "rules/r/good/expect.yaml"]
    assert not (fx / "bases").exists()  # as in a clone: git keeps no directory without a file
    assert fd.convert_index(str(fx)) is False
    out = _tree(fd.materialise_tree(str(tmp_path / "out"), str(fx)))
    assert out == dict({k: v for k, v in whole.items() if not k.startswith("bases/")}, **{"rules/r/good/a.yaml": b"a\n"})
    assert _tree(fd.materialise_case(str(fx / "rules" / "r" / "good"), str(tmp_path / "case"), str(fx)))["a.yaml"] == b"a\n"
