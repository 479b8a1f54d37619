"""Rule fixture cases as overlays of a few base bundles (issue 28, item 5).

Layout. A case directory ``fixtures/rules/<rule-id>/<case>/`` is either

* a whole tree (the old form, still valid): the directory is checked as it is; or
* an overlay: its ``expect.yaml`` names a base under ``fixtures/bases/``::

      base: good                        # fixtures/bases/good copied to the case's root
      # or, for a tree with several bundles, each directory of the case and its base:
      base:
        operators/example-operator/1.0.0: operator-1.0.0
        operators/example-operator/1.1.0: operator-1.1.0
      remove: [operators/example-operator/1.0.0/bundle.Dockerfile]   # base files the case lacks

  The tree checked is: each base copied at its directory, the ``remove`` paths deleted, then
  every file of the case directory copied over it at the same relative path (``expect.yaml``
  included, as before). A file of the case is thus the whole file, as the checker reads it:
  the bad line is in the case's own file, at the line ``expect.yaml`` asserts.

Tests never read ``fixtures/`` directly: ``materialise_tree`` writes the whole fixture tree,
every overlay case made whole (``fixtures/bases/`` left out), once per test session
(``tests/conftest.py``: ``FIXTURES`` is that tree, ``FIXTURES_SRC`` the sources).

Commands (from the repository root):

    python scripts/fixtures_dedupe.py            convert every whole-tree case that shares files
                                                 with a base into an overlay (idempotent; each
                                                 conversion is verified to materialise to the
                                                 same bytes, expect.yaml's new first lines aside)
    python scripts/fixtures_dedupe.py --check    fail (exit 1) if more than 20% of the fixture
                                                 files are copies, or an overlay names a missing base
    python scripts/fixtures_dedupe.py --reports OUT.json
                                                 every rule case's JSON report, checked as the
                                                 harness checks it (to compare before and after)

A copy is a file byte-identical to another fixture file: of n identical files, n - 1 are copies.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")
MANIFEST = "expect.yaml"
BASES = "bases"
MAX_COPIES = 0.20
BUNDLE_PARTS = ("manifests", "metadata", "bundle.Dockerfile")  # what a base holds
MIN_SAVED = 2  # a base is used for a directory only if it saves at least this many files


class OverlayError(Exception):
    pass


def read_overlay(case: str):
    """``(mounts, remove)`` of an overlay case (``mounts``: {directory of the case: base
    name}), or None for a whole-tree case."""
    p = os.path.join(case, MANIFEST)
    if not os.path.isfile(p):
        return None
    with open(p, encoding="utf-8") as fh:
        exp = yaml.safe_load(fh) or {}
    base = exp.get("base") if isinstance(exp, dict) else None
    if base is None:
        return None
    mounts = {".": base} if isinstance(base, str) else dict(base)
    remove = list(exp.get("remove") or [])
    return mounts, remove


def _copy_file(src: str, dst: str) -> None:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.islink(src):
        if os.path.lexists(dst):
            os.remove(dst)
        os.symlink(os.readlink(src), dst)
    else:
        shutil.copyfile(src, dst)


def _files(top: str) -> list:
    """Relative paths of the files (and symlinks) under ``top``, sorted."""
    out = []
    for dirpath, dirs, files in os.walk(top):
        for d in list(dirs):
            if os.path.islink(os.path.join(dirpath, d)):
                out.append(os.path.relpath(os.path.join(dirpath, d), top))
                dirs.remove(d)
        for f in files:
            out.append(os.path.relpath(os.path.join(dirpath, f), top))
    return sorted(out)


def materialise_case(case: str, dest: str, fixtures: str = FIXTURES) -> str:
    """Write the tree the case stands for into ``dest`` (which must not exist)."""
    spec = read_overlay(case)
    if spec is None:
        shutil.copytree(case, dest, symlinks=True)
        return dest
    mounts, remove = spec
    os.makedirs(dest)
    for where, name in sorted(mounts.items()):
        base = os.path.join(fixtures, BASES, name)
        if not os.path.isdir(base):
            raise OverlayError(f"{os.path.relpath(case, fixtures)}: no base {name!r} (fixtures/{BASES}/{name})")
        for rel in _files(base):
            _copy_file(os.path.join(base, rel), os.path.normpath(os.path.join(dest, where, rel)))
    for rel in remove:
        p = os.path.join(dest, rel)
        if not os.path.isfile(p):
            raise OverlayError(f"{os.path.relpath(case, fixtures)}: remove {rel!r}: no such file in its bases")
        os.remove(p)
    for rel in _files(case):
        _copy_file(os.path.join(case, rel), os.path.join(dest, rel))
    return dest


def _case_dirs(fixtures: str):
    rules = os.path.join(fixtures, "rules")
    for rid in sorted(os.listdir(rules)) if os.path.isdir(rules) else []:
        for case in sorted(os.listdir(os.path.join(rules, rid))):
            p = os.path.join(rules, rid, case)
            if os.path.isdir(p) and not os.path.islink(p):
                yield os.path.join("rules", rid, case)


def materialise_tree(dest: str, fixtures: str = FIXTURES) -> str:
    """The whole fixture tree at ``dest`` (which must not exist), every overlay case whole,
    without ``bases/``: what ``fixtures/`` held when every case was a whole tree."""
    os.makedirs(dest)
    for top in sorted(os.listdir(fixtures)):
        if top in (BASES, "rules"):
            continue
        src = os.path.join(fixtures, top)
        if os.path.isdir(src) and not os.path.islink(src):
            shutil.copytree(src, os.path.join(dest, top), symlinks=True)
        else:
            _copy_file(src, os.path.join(dest, top))
    rules = os.path.join(fixtures, "rules")
    if os.path.isdir(rules):
        for rid in sorted(os.listdir(rules)):
            for entry in sorted(os.listdir(os.path.join(rules, rid))):
                src = os.path.join(rules, rid, entry)
                out = os.path.join(dest, "rules", rid, entry)
                if os.path.isdir(src) and not os.path.islink(src):
                    materialise_case(src, out, fixtures)
                else:
                    _copy_file(src, out)
    return dest


def _digest(path: str) -> str:
    if os.path.islink(path):
        return "link:" + os.readlink(path)
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def copies(fixtures: str = FIXTURES) -> tuple:
    """(number of fixture files, number of copies, the groups of identical files)."""
    groups = {}
    for rel in _files(fixtures):
        p = os.path.join(fixtures, rel)
        if os.path.islink(p):
            continue
        groups.setdefault(_digest(p), []).append(rel)
    n = sum(len(g) for g in groups.values())
    dup = [g for g in groups.values() if len(g) > 1]
    return n, sum(len(g) - 1 for g in dup), sorted(dup, key=len, reverse=True)


# -- conversion -----------------------------------------------------------------------------

def _bases(fixtures: str) -> dict:
    """{base name: {relative path: digest}}."""
    out = {}
    top = os.path.join(fixtures, BASES)
    for name in sorted(os.listdir(top)) if os.path.isdir(top) else []:
        if not os.path.isdir(os.path.join(top, name)):
            continue  # README.md
        out[name] = {rel: _digest(os.path.join(top, name, rel)) for rel in _files(os.path.join(top, name))}
    return out


def _plan(tree: dict, bases: dict) -> tuple:
    """For a whole tree ({relative path: digest}), the mounts and removals that save the most
    files: each bundle directory (one holding manifests/ or metadata/) gets the base that
    matches most of its files (matches minus removals), if that saves MIN_SAVED files."""
    dirs = set()
    for rel in tree:
        parts = rel.split("/")
        for i, part in enumerate(parts[:-1]):
            if part in ("manifests", "metadata"):
                dirs.add("/".join(parts[:i]) or ".")
    mounts, remove, covered = {}, [], set()
    for d in sorted(dirs):
        prefix = "" if d == "." else d + "/"
        best = None
        for name, files in bases.items():
            same = [r for r, h in files.items() if tree.get(prefix + r) == h]
            missing = [r for r in files if prefix + r not in tree]
            saved = len(same) - len(missing)
            if saved >= MIN_SAVED and (best is None or saved > best[0]):
                best = (saved, name, same, missing)
        if best is None:
            continue
        _, name, same, missing = best
        mounts[d] = name
        remove += [prefix + r for r in missing]
        covered.update(prefix + r for r in same)
    return mounts, sorted(remove), covered


def _header(mounts: dict, remove: list) -> str:
    if list(mounts) == ["."]:
        text = f"base: {mounts['.']}\n"
    else:
        text = "base:\n" + "".join(f"  {d}: {n}\n" for d, n in sorted(mounts.items()))
    if remove:
        text += "remove:\n" + "".join(f"  - {r}\n" for r in remove)
    return text


def convert_case(case: str, bases: dict, fixtures: str = FIXTURES) -> bool:
    """Make a whole-tree case an overlay when a base saves files; True if it changed. The
    result is materialised and compared with the original before any file is removed."""
    if read_overlay(case) is not None:
        return False
    rels = _files(case)
    if any(os.path.islink(os.path.join(case, r)) for r in rels):
        return False  # a symlink case (yaml-limits) stays whole
    tree = {r: _digest(os.path.join(case, r)) for r in rels}
    mounts, remove, covered = _plan(tree, bases)
    if not mounts:
        return False
    exp_path = os.path.join(case, MANIFEST)
    old = ""
    if os.path.exists(exp_path):
        with open(exp_path, encoding="utf-8") as fh:
            old = fh.read()
        parsed = yaml.safe_load(old) or {}
        if "base" in parsed or "remove" in parsed:
            raise OverlayError(f"{case}: expect.yaml already has base/remove")
    new_exp = _header(mounts, remove) + old
    with tempfile.TemporaryDirectory() as tmp:
        staged = os.path.join(tmp, "case")
        os.makedirs(staged)
        for r in rels:
            if r not in covered and r != MANIFEST:
                _copy_file(os.path.join(case, r), os.path.join(staged, r))
        with open(os.path.join(staged, MANIFEST), "w", encoding="utf-8") as fh:
            fh.write(new_exp)
        out = materialise_case(staged, os.path.join(tmp, "out"), fixtures)
        got = _files(out)
        want = sorted(set(rels) | {MANIFEST})
        assert got == want, (case, sorted(set(got) ^ set(want)))
        for r in rels:
            if r != MANIFEST:
                assert _digest(os.path.join(out, r)) == tree[r], (case, r)
    for r in covered:
        os.remove(os.path.join(case, r))
    with open(exp_path, "w", encoding="utf-8") as fh:
        fh.write(new_exp)
    for dirpath, dirs, files in os.walk(case, topdown=False):  # directories left empty
        if dirpath != case and not os.listdir(dirpath):
            os.rmdir(dirpath)
    return True


def convert(fixtures: str = FIXTURES) -> int:
    bases = _bases(fixtures)
    n = 0
    for rel in _case_dirs(fixtures):
        if convert_case(os.path.join(fixtures, rel), bases, fixtures):
            n += 1
    return n


# -- reports --------------------------------------------------------------------------------

def case_report(case_tree: str) -> dict:
    """The JSON report of a whole case tree, checked as tests/test_rule_fixtures.py checks it:
    from inside the tree, with the expect.yaml's check, profile, ocp and changes."""
    from checker.api import check
    from checker.model import FileChange

    p = os.path.join(case_tree, MANIFEST)
    exp = {}
    if os.path.isfile(p):
        with open(p, encoding="utf-8") as fh:
            exp = yaml.safe_load(fh) or {}
    changes = None
    if exp.get("changes") is not None:
        changes = [FileChange(c["status"], c["path"], c.get("previous_path")) for c in exp["changes"]]
    target = exp.get("ocp")
    cwd = os.getcwd()
    os.chdir(case_tree)
    try:
        res = check([exp.get("check", ".")], profile=exp.get("profile"),
                    target=[str(t) for t in str(target).split(",")] if target else None, changes=changes)
    finally:
        os.chdir(cwd)
    return res.report


def reports(fixtures: str = FIXTURES) -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, rel in enumerate(_case_dirs(fixtures)):
            dest = materialise_case(os.path.join(fixtures, rel), os.path.join(tmp, str(i), "case"), fixtures)
            out[rel] = case_report(dest)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help=f"fail if more than {MAX_COPIES:.0%} of fixture files are copies")
    ap.add_argument("--reports", metavar="OUT", help="write every rule case's JSON report to OUT")
    ap.add_argument("--fixtures", default=FIXTURES)
    args = ap.parse_args(argv)
    fixtures = os.path.abspath(args.fixtures)
    if args.reports:
        sys.path.insert(0, ROOT)
        with open(args.reports, "w", encoding="utf-8") as fh:
            json.dump(reports(fixtures), fh, indent=1, sort_keys=True)
        return 0
    if not args.check:
        print(f"converted {convert(fixtures)} case(s)")
    n, c, groups = copies(fixtures)
    print(f"{n} fixture files, {c} copies ({c / n:.1%}; at most {MAX_COPIES:.0%})")
    bad = []
    for rel in _case_dirs(fixtures):
        try:
            with tempfile.TemporaryDirectory() as tmp:
                materialise_case(os.path.join(fixtures, rel), os.path.join(tmp, "c"), fixtures)
        except OverlayError as e:
            bad.append(str(e))
    for b in bad:
        print(b)
    if c > MAX_COPIES * n:
        for g in groups[:10]:
            print(f"  {len(g)} identical: {', '.join(g[:3])}{', ...' if len(g) > 3 else ''}")
    return 1 if (c > MAX_COPIES * n or bad) else 0


if __name__ == "__main__":
    sys.exit(main())
