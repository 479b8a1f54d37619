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

      base: ../good                     # a sibling case of the same rule (itself with no sibling base)

      files:                            # a file with the same bytes as one already stored:
        bundle.Dockerfile: ../bad/bundle.Dockerfile      # a sibling case's own file (or the case's)
        manifests/crd.yaml: good/manifests/crd.yaml      # a base's file

  The tree checked is: each base copied at its directory (a sibling case: its tree without its
  expect.yaml, at the root), the ``remove`` paths deleted, each ``files:`` entry copied from the
  stored file it names (never an expect.yaml), then every file of the case directory copied over
  it at the same relative path (``expect.yaml`` included, as before). A file of the case is thus the whole file, as the checker reads it, and
  the conversion keeps in the case every file expect.yaml asserts a finding in: the bad line is
  in the case's own file, at the line ``expect.yaml`` asserts.

Tests read the rule cases through ``conftest.FIXTURES``: ``materialise_tree`` writes the whole
fixture tree there, every overlay case made whole (``fixtures/bases/`` left out), once per test
session (``FIXTURES_SRC`` is the source tree). The files of ``bases/`` and of the trees
``action/``, ``catalog-small/``, ``graph/`` and ``repos/`` with the same bytes as a file before
them (``bundles/``, ``trees/``, ``bases/``, then those trees, in order) are not stored either:
``fixtures/files.yaml`` names each one's source, and ``materialise_tree`` (and a base, when a case
is made whole) writes them back. Tests read those trees through ``conftest.FIXTURES`` too; only
``bundles/``, ``trees/`` and ``upgradeable/`` are whole and may be read in place (CI and
tests/trees.py read ``bundles/good`` and ``trees/``).

Commands (from the repository root):

    python scripts/fixtures_dedupe.py            re-plan fixtures/files.yaml, then every rule case
                                                 from its whole tree: the bases (and, for a case,
                                                 a sibling planned before it, good ones first)
                                                 that save the most files, then ``files:`` for
                                                 each other file already stored (idempotent; each
                                                 new case is verified to materialise to the same
                                                 files and directories, expect.yaml's base,
                                                 remove and files lines aside)
    python scripts/fixtures_dedupe.py --check    fail (exit 1) if more than MAX_COPIES of the fixture
                                                 files are copies, or an overlay names a missing base
                                                 or file
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
INDEX = "files.yaml"  # fixtures/files.yaml: the files of bases/ and of INDEXED trees named, not stored
INDEXED = (BASES, "action", "catalog-small", "graph", "repos")  # bundles/ and trees/ stay whole: CI and
# tests/trees.py read them in place; a file there may be the source of an indexed one
SOURCE_ORDER = ("bundles", "trees", BASES)  # the first file of the same bytes is the one stored
# Issue 28 asks for at most 20% (before the overlays 67.9%: 2,436 files, 1,655 copies; bases
# alone 31.6%: 1,202 files, 380 copies). Reached: 17.5% (1,016 files, 178 copies): 81 of them are
# expect.yaml files holding the same base lines (`base: good` and the like) of cases that assert
# nothing, about 64 are files kept whole because a finding is asserted in them, about 30 are files
# of cases without expect.yaml or with symlinks (never re-planned). A ratchet: never raise it.
MAX_COPIES = 0.20
BUNDLE_PARTS = ("manifests", "metadata", "bundle.Dockerfile")  # what a base holds
MIN_SAVED = 2  # a base is used for a directory only if it saves at least this many files


class OverlayError(Exception):
    pass


def read_overlay(case: str):
    """``(mounts, remove, files)`` of an overlay case (``mounts``: {directory of the case: base
    name}; ``files``: {path in the case: the file it is a copy of}), or None for a whole-tree
    case."""
    p = os.path.join(case, MANIFEST)
    if not os.path.isfile(p):
        return None
    with open(p, encoding="utf-8") as fh:
        text = fh.read()
    if "base:" not in text and "files:" not in text:
        return None
    exp = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    if not isinstance(exp, dict) or (exp.get("base") is None and not isinstance(exp.get("files"), dict)):
        return None
    base = exp.get("base")
    mounts = {} if base is None else {".": base} if isinstance(base, str) else dict(base)
    remove = list(exp.get("remove") or [])
    files = dict(exp.get("files") or {}) if isinstance(exp.get("files"), dict) else {}
    return mounts, remove, files


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


def _base_dir(case: str, name: str, fixtures: str) -> str:
    """A base's directory: ``fixtures/bases/<name>``, or, for ``../<case>``, a sibling case of
    the same rule directory (itself materialised)."""
    if name.startswith("../"):
        return os.path.join(os.path.dirname(case), name[3:])
    return os.path.join(fixtures, BASES, name)


def materialise_case(case: str, dest: str, fixtures: str = FIXTURES) -> str:
    """Write the tree the case stands for into ``dest`` (which must not exist)."""
    if read_overlay(case) is None:
        shutil.copytree(case, dest, symlinks=True)
        return dest
    os.makedirs(dest)
    _materialise_into(case, dest, fixtures, read_overlay(case), sibling=False)
    return dest


def _materialise_into(case: str, dest: str, fixtures: str, spec, sibling: bool) -> None:
    if spec is None:  # a whole-tree sibling
        for rel in _files(case):
            _copy_file(os.path.join(case, rel), os.path.join(dest, rel))
        return
    mounts, remove, files = spec
    for where, name in sorted(mounts.items()):
        base = _base_dir(case, name, fixtures)
        what = f"{os.path.relpath(case, fixtures)}: base {name!r}"
        if not _is_dir(fixtures, base) or (name.startswith("../") and ("/" in name[3:] or where != ".")):
            raise OverlayError(f"{what}: no such base (fixtures/{BASES}/<name>, or ../<case> at the case's root)")
        if name.startswith("../"):  # a sibling case, whose expect.yaml the case's own replaces
            if sibling:
                raise OverlayError(f"{what}: a sibling base must not have a sibling base itself")
            _materialise_into(base, dest, fixtures, read_overlay(base), sibling=True)
            continue
        for rel, src in sorted(_stored(fixtures, os.path.join(BASES, name)).items()):
            _copy_file(src, os.path.normpath(os.path.join(dest, where, rel)))
    for rel in remove:
        p = os.path.join(dest, rel)
        if not os.path.isfile(p):
            raise OverlayError(f"{os.path.relpath(case, fixtures)}: remove {rel!r}: no such file in its bases")
        os.remove(p)
        d = os.path.dirname(p)
        while d != dest and not os.listdir(d):  # no directory left empty: git keeps none
            os.rmdir(d)
            d = os.path.dirname(d)
    for rel, src in sorted(files.items()):
        _copy_file(_file_source(case, rel, src, fixtures), os.path.join(dest, rel))
    for rel in _files(case):
        _copy_file(os.path.join(case, rel), os.path.join(dest, rel))


def read_index(fixtures: str) -> dict:
    """fixtures/files.yaml: {path of a file of bases/ or an INDEXED tree: path of the stored file
    with its bytes}, both relative to fixtures/."""
    p = os.path.join(fixtures, INDEX)
    if not os.path.isfile(p):
        return {}
    st = os.stat(p)
    key = (p, st.st_mtime_ns, st.st_size)
    if key not in _INDEXES:
        with open(p, encoding="utf-8") as fh:
            _INDEXES[key] = dict((yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}).get("files") or {})
    return dict(_INDEXES[key])


_INDEXES: dict = {}


def _is_dir(fixtures: str, path: str) -> bool:
    """A directory of the fixtures: on disk, or one whose files fixtures/files.yaml all names (a
    clone has no directory without a stored file)."""
    if os.path.isdir(path):
        return True
    rel = os.path.relpath(path, fixtures).replace(os.sep, "/") + "/"
    return not rel.startswith("../") and any(p.startswith(rel) for p in read_index(fixtures))


def _stored(fixtures: str, top: str, index: dict = None) -> dict:
    """{path under ``top`` (relative to fixtures/): the file holding its bytes}: its own files and
    those fixtures/files.yaml names."""
    index = read_index(fixtures) if index is None else index
    out = {rel: os.path.join(fixtures, top, rel) for rel in _files(os.path.join(fixtures, top))}
    for path, src in index.items():
        if path.startswith(top + "/"):
            out[path[len(top) + 1:]] = os.path.join(fixtures, src)
    return out


def _file_source(case: str, rel: str, src: str, fixtures: str) -> str:
    """The stored file a ``files:`` entry names: ``../<case>/<path>``, a file of a case of the same
    rule (the case itself included) as it is stored there, ``../../<rule-id>/<case>/<path>``, one
    of another rule's case, or ``<base>/<path>``, a file of a base."""
    parts = src.split("/")
    ups = 2 if parts[:2] == ["..", ".."] else 1 if parts[:1] == [".."] else 0
    top = os.path.join(fixtures, BASES) if not ups else os.path.dirname(case) if ups == 1 else os.path.dirname(os.path.dirname(case))
    norm = os.path.normpath(os.path.join(top, *parts[ups:]))
    if not ups and not os.path.isfile(norm):  # a base's file that fixtures/files.yaml names
        norm = os.path.normpath(_stored(fixtures, os.path.join(BASES, parts[0])).get("/".join(parts[1:]), norm))
    if (not os.path.isfile(norm) or os.path.islink(norm) or len(parts) - ups < (3 if ups == 2 else 2)
            or os.path.basename(norm) == MANIFEST or ".." in parts[ups:]):
        raise OverlayError(f"{os.path.relpath(case, fixtures)}: files {rel!r}: {src!r}: no such stored file "
                           f"(../<case>/<path>, ../../<rule-id>/<case>/<path> or <base>/<path>)")
    return norm


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
    index = read_index(fixtures)
    for top in sorted(set(os.listdir(fixtures)) | {p.split("/")[0] for p in index}):
        if top in (BASES, "rules", INDEX):
            continue
        src = os.path.join(fixtures, top)
        if _is_dir(fixtures, src) and not os.path.islink(src):
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(dest, top), symlinks=True)
            for path, source in sorted(index.items()):
                if path.startswith(top + "/"):
                    _copy_file(os.path.join(fixtures, source), os.path.join(dest, path))
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
    names = set(os.listdir(top)) if os.path.isdir(top) else set()
    names |= {p.split("/")[1] for p in read_index(fixtures) if p.startswith(BASES + "/")}
    for name in sorted(names):
        if not _is_dir(fixtures, os.path.join(top, name)):
            continue  # README.md
        out[name] = {rel: _digest(p) for rel, p in _stored(fixtures, os.path.join(BASES, name)).items()}
    return out


def _plan(tree: dict, bases: dict) -> tuple:
    """For a whole tree ({relative path: digest}), the mounts ({directory: base}) and removals
    that save the most files, chosen greedily: at each step the base and directory whose files
    match most of the tree's (matches minus the removals it needs), if that saves MIN_SAVED
    files. Mounts never provide the same path twice, one directory takes one base, and a
    sibling case (``../<case>``) is mounted only at the root."""
    dirs = {"."}
    for rel in tree:
        parts = rel.split("/")
        dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
    tree_dirs = dirs - {"."}
    mounts, remove, covered, provided = {}, [], set(), set()
    while True:
        best = None
        for d in sorted(dirs - set(mounts)):
            prefix = "" if d == "." else d + "/"
            for name, files in sorted(bases.items()):
                if name.startswith("../") and d != ".":
                    continue
                targets = {prefix + r: h for r, h in files.items()}
                if provided & targets.keys():
                    continue
                same = [t for t, h in targets.items() if tree.get(t) == h]
                missing = [t for t in targets if t not in tree]
                if any(t in tree_dirs or any("/".join(t.split("/")[:i]) in tree for i in range(1, t.count("/") + 1))
                       for t in missing):
                    continue  # a base file where the tree has a directory, or under one of its files
                gain = len(same) - len(missing)
                if gain >= MIN_SAVED and (best is None or gain > best[0]):
                    best = (gain, d, name, same, missing, targets)
        if best is None:
            break
        _, d, name, same, missing, targets = best
        mounts[d] = name
        remove += missing
        covered.update(same)
        provided.update(targets)
    return mounts, sorted(remove), covered


def _asserted(expect) -> set:
    """The paths expect.yaml asserts findings in (as written, and under its ``check``)."""
    exp = yaml.load(expect, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if expect else None
    if not isinstance(exp, dict):
        return set()
    out = set()
    for f in exp.get("findings") or []:
        if isinstance(f, dict) and isinstance(f.get("path"), str):
            out.add(os.path.normpath(f["path"]))
            out.add(os.path.normpath(os.path.join(str(exp.get("check", ".")), f["path"])))
    return out


def _header(mounts: dict, remove: list, files: dict = None) -> str:
    if not mounts:
        text = ""
    elif list(mounts) == ["."]:
        text = f"base: {mounts['.']}\n"
    else:
        text = "base:\n" + "".join(f"  {d}: {n}\n" for d, n in sorted(mounts.items()))
    if remove:
        text += "remove:\n" + "".join(f"  - {r}\n" for r in remove)
    if files:
        text += "files:\n" + "".join(f"  {r}: {s}\n" for r, s in sorted(files.items()))
    return text


def _whole(case: str, fixtures: str, dest: str):
    """The case as a whole tree at ``dest`` and its expect.yaml without the base/remove lines
    (None: it had none; "": it held the base lines only), or None if its header is not one this script wrote."""
    materialise_case(case, dest, fixtures)
    p = os.path.join(dest, MANIFEST)
    spec = read_overlay(case)
    if spec is None:
        if not os.path.exists(p):
            return dest, None
        with open(p, encoding="utf-8") as fh:
            text = fh.read()
        os.remove(p)
        return dest, text
    with open(p, encoding="utf-8") as fh:
        text = fh.read()
    header = _header(*spec)
    if not text.startswith(header):
        return None
    os.remove(p)
    return dest, text[len(header):]  # "" if it held the header only: it is there all the same


def _wholes(rule_dir: str, names: list, fixtures: str, tmp: str) -> dict:
    """{case: (whole tree, expect.yaml text)} of a rule directory's cases, written under ``tmp``."""
    wholes = {}
    for c in names:
        case = os.path.join(rule_dir, c)
        if any(os.path.islink(os.path.join(case, r)) for r in _files(case)):
            continue  # a symlink case (yaml-limits) stays as it is
        w = _whole(case, fixtures, os.path.join(tmp, os.path.basename(rule_dir), c))
        if w is not None:
            wholes[c] = w
    return wholes


def _sources(bases: dict) -> dict:
    """{digest: ``files:`` source} of the bases' files, the first in order for each digest."""
    sources = {}
    for name, files in sorted(bases.items()):
        if not name.startswith("../"):
            for r, h in sorted(files.items()):
                sources.setdefault(h, f"{name}/{r}")
    return sources


def _stage(c: str, top: str, tree: dict, covered: set, keep: set, sources: dict, staged: str) -> dict:
    """Copy into ``staged`` the files of case ``c``'s whole tree (at ``top``) that no base covers
    and that are not the same bytes as a file in ``sources`` ({digest: ``files:`` source}); returns
    those ``files:`` references. A file in ``keep`` (one a finding is asserted in) is always copied;
    every file copied becomes a source for the files after it."""
    os.makedirs(staged)
    refs = {}
    for r in sorted(tree):
        if r in covered:
            continue
        h = tree[r]
        if r not in keep and h in sources and not h.startswith("link:"):
            src = sources[h]
            if src.startswith("rules/"):  # a case's file: relative to this case's directory
                rid, name, rest = src[len("rules/"):].split("/", 2)
                src = f"../{name}/{rest}" if rid == c.split("/")[0] else f"../../{rid}/{name}/{rest}"
            refs[r] = src
            continue
        _copy_file(os.path.join(top, r), os.path.join(staged, r))
        if not h.startswith("link:"):
            sources.setdefault(h, f"rules/{c}/{r}")
    return refs


def convert_rule(rule_dir: str, bases: dict, fixtures: str = FIXTURES, sources: dict = None, wholes: dict = None) -> int:
    """Re-plan every case of one rule directory from its whole tree; returns how many changed.
    Good cases first: a case may take as base a sibling case planned before it that has no
    sibling base itself. Each new case is materialised and compared with the whole tree before
    it replaces the old one, so a case's tree never changes (expect.yaml's base lines aside)."""
    names = sorted((c for c in os.listdir(rule_dir) if os.path.isdir(os.path.join(rule_dir, c))
                    and not os.path.islink(os.path.join(rule_dir, c))), key=lambda c: (not c.startswith("good"), c))
    changed = 0
    with tempfile.TemporaryDirectory() as tmp:
        if wholes is None:
            wholes = _wholes(rule_dir, names, fixtures, tmp)
        anchors = {}
        if sources is None:
            sources = _sources(bases)
        for c in names:
            if c not in wholes:
                continue
            case = os.path.join(rule_dir, c)
            top, expect = wholes[c]
            tree = {r: _digest(os.path.join(top, r)) for r in _files(top)}
            keep = _asserted(expect)  # a file a finding is asserted in stays in the case, whole
            planned = {r: ("keep:" + r if r in keep else h) for r, h in tree.items()}
            mounts, remove, covered = _plan(planned, dict(bases, **{"../" + a: t for a, t in anchors.items()}))
            if not any(n.startswith("../") for n in mounts.values()):
                anchors[c] = tree
            staged = os.path.join(tmp, "staged", c)
            # a case without expect.yaml names no file, unless its bases already give it one
            refs = _stage(os.path.relpath(case, os.path.join(fixtures, "rules")), top, tree, covered,
                          keep if expect is not None or mounts else set(tree), sources, staged)
            if mounts or refs:
                with open(os.path.join(staged, MANIFEST), "w", encoding="utf-8") as fh:
                    fh.write(_header(mounts, remove, refs) + (expect or ""))
            elif expect:
                with open(os.path.join(staged, MANIFEST), "w", encoding="utf-8") as fh:
                    fh.write(expect)
            if _digests(staged) == _digests(case):
                continue
            # the new case, where the old one is, must make the same tree
            old = os.path.join(tmp, "old", c)
            shutil.move(case, old)
            shutil.copytree(staged, case, symlinks=True)
            out = materialise_case(case, os.path.join(tmp, "check", c), fixtures)
            got = _digests(out)
            got.pop(MANIFEST, None)
            if got != tree or _dirs(out) != _dirs(top):
                shutil.rmtree(case)
                shutil.move(old, case)
                raise OverlayError(f"{case}: the overlay would not make the same tree: {sorted(set(got.items()) ^ set(tree.items()))}")
            changed += 1
    return changed


def _dirs(top: str) -> list:
    return sorted(os.path.relpath(d, top) for d, _, _ in os.walk(top))


def _digests(top: str) -> dict:
    return {r: _digest(os.path.join(top, r)) for r in _files(top)}


def convert_index(fixtures: str = FIXTURES) -> bool:
    """Re-plan fixtures/files.yaml: every file of bases/ and the INDEXED trees with the same bytes
    as a file before it (bundles/, trees/, bases/, then the others in order) is named there, not
    stored. Returns whether anything changed (idempotent)."""
    old = read_index(fixtures)
    whole = {}  # path: bytes, every indexed file as it reads
    for path, src in old.items():
        with open(os.path.join(fixtures, src), "rb") as fh:
            whole[path] = fh.read()
    tops = [t for t in SOURCE_ORDER if _is_dir(fixtures, os.path.join(fixtures, t))]
    tops += sorted(t for t in INDEXED if t not in tops and _is_dir(fixtures, os.path.join(fixtures, t)))
    first, index = {}, {}
    for top in tops:
        paths = sorted(set(os.path.join(top, r) for r in _files(os.path.join(fixtures, top)))
                       | {p for p in whole if p.startswith(top + "/")})
        for path in paths:
            full = os.path.join(fixtures, path)
            if path not in whole and os.path.islink(full):
                continue
            h = hashlib.sha256(whole[path]).hexdigest() if path in whole else _digest(full)
            if top in INDEXED and h in first:
                index[path] = first[h]
            else:
                first.setdefault(h, path)
    if index == old:
        return False
    for path, data in whole.items():  # every file stored again, then the new index's removed
        os.makedirs(os.path.dirname(os.path.join(fixtures, path)), exist_ok=True)
        with open(os.path.join(fixtures, path), "wb") as fh:
            fh.write(data)
    for path in index:
        os.remove(os.path.join(fixtures, path))
        d = os.path.dirname(os.path.join(fixtures, path))
        while d != fixtures and not os.listdir(d):  # none left empty, as in a clone
            os.rmdir(d)
            d = os.path.dirname(d)
    text = ("# Files of fixtures/bases/ and of the trees beside it (action/, catalog-small/, graph/, repos/)\n"
            "# that have the same bytes as a fixture file before them: each is written from the file named\n"
            "# when the fixtures are materialised (scripts/fixtures_dedupe.py, which keeps this list).\n"
            "files:\n" + "".join(f"  {p}: {s}\n" for p, s in sorted(index.items())))
    with open(os.path.join(fixtures, INDEX), "w", encoding="utf-8") as fh:
        fh.write(text)
    return True


def convert(fixtures: str = FIXTURES) -> int:
    """Convert every rule case (idempotent: a second run changes nothing); returns how many
    cases changed."""
    convert_index(fixtures)
    bases = _bases(fixtures)
    rules = os.path.join(fixtures, "rules")
    sources = _sources(bases)  # shared by every rule: a case's file may name one of another rule's
    with tempfile.TemporaryDirectory() as tmp:
        wholes = {}  # every case made whole before any changes, as a case may name another's file
        for rid in sorted(os.listdir(rules)):
            d = os.path.join(rules, rid)
            names = [c for c in os.listdir(d) if os.path.isdir(os.path.join(d, c)) and not os.path.islink(os.path.join(d, c))]
            wholes[rid] = _wholes(d, names, fixtures, tmp)
        return sum(convert_rule(os.path.join(rules, rid), bases, fixtures, sources, wholes[rid])
                   for rid in sorted(os.listdir(rules)))


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
    with tempfile.TemporaryDirectory() as tmp:
        for i, rel in enumerate(_case_dirs(fixtures)):
            try:
                materialise_case(os.path.join(fixtures, rel), os.path.join(tmp, str(i)), fixtures)
            except OverlayError as e:
                bad.append(str(e))
    index = read_index(fixtures)
    for path, src in sorted(index.items()):
        if src in index or not os.path.isfile(os.path.join(fixtures, src)) or os.path.exists(os.path.join(fixtures, path)):
            bad.append(f"{INDEX}: {path}: {src!r} is not a stored file, or {path} is stored too")
    for b in bad:
        print(b)
    if c > MAX_COPIES * n:
        for g in groups[:10]:
            print(f"  {len(g)} identical: {', '.join(g[:3])}{', ...' if len(g) > 3 else ''}")
    return 1 if (c > MAX_COPIES * n or bad) else 0


if __name__ == "__main__":
    sys.exit(main())
