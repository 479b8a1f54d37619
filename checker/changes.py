"""Changed files -> the bundles, operators, catalogs and loose manifests they affect.

Used by the GitHub Action (a pull request's files, from the PR files API or ``git diff
base...head``) and by ``olm-check check --changed-since REF``. Like ``load``/``discover``
this module reads the tree (and runs git, read-only); rules only see the result on the
model: ``Repository.changes`` (``FileChange`` list) and ``Repository.change_dirs``
(what each touched ``operators/<name>[/<sub>]`` directory is in the checked tree).

What is loaded sees a rename as a removal of the old path plus an addition of the new one
(the baseline compares a renamed bundle with its old directory); pr-shape judges a rename by
its new name only, as the pipeline's detect-changes does.
"""
from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from typing import Iterable, Optional

from . import git
from .load import YAML_SUFFIXES, looks_like_bundle
from .model import FileChange, split_renames  # noqa: F401 - split_renames: part of this module's interface

# GitHub's pulls/{n}/files statuses -> ours
_GITHUB_STATUS: dict = {"added": "added", "removed": "removed", "modified": "modified", "renamed": "renamed",
                  "copied": "added", "changed": "modified"}
# git --name-status letters -> ours (T: type change, U: unmerged)
_GIT_STATUS = {"A": "added", "D": "removed", "M": "modified", "T": "modified", "U": "modified",
               "R": "renamed", "C": "added"}
BUNDLE_PARTS = ("manifests", "metadata")


class ChangeError(Exception):
    """The change list cannot be made (git missing, unknown commit, shallow history)."""


def from_github_files(files: Iterable[dict]) -> list:
    """``FileChange`` list from the PR files API's items (``unchanged`` entries dropped)."""
    out = []
    for f in files:
        if not isinstance(f, dict) or not isinstance(f.get("filename"), str):
            continue
        status = _GITHUB_STATUS.get(f.get("status"))
        if status is None:
            continue
        prev = f.get("previous_filename") if status == "renamed" else None
        if status == "renamed" and not isinstance(prev, str):
            status = "added"
        out.append(FileChange(status, f["filename"], prev))
    return out


def _git(root: str, *args: str, timeout: int = 120):
    try:
        return git.run(root, *args, timeout=timeout)
    except git.GitError as e:
        raise ChangeError(str(e)) from None


def has_commits(root: str, *shas: str) -> bool:
    """True when every commit is present in the local repository."""
    for sha in shas:
        if not sha or _git(root, "cat-file", "-e", f"{sha}^{{commit}}").returncode != 0:
            return False
    return True


def parse_name_status(data: bytes) -> list:
    """``git diff --name-status -z`` output -> ``FileChange`` list."""
    parts = data.decode("utf-8", "surrogateescape").split("\0")
    out, i = [], 0
    while i < len(parts) and parts[i]:
        letter = parts[i][:1]
        status = _GIT_STATUS.get(letter, "modified")
        if letter in ("R", "C"):
            if i + 2 >= len(parts):
                break
            old, new = parts[i + 1], parts[i + 2]
            out.append(FileChange("renamed", new, old) if letter == "R" else FileChange("added", new))
            i += 3
        else:
            if i + 1 >= len(parts):
                break
            out.append(FileChange(status, parts[i + 1]))
            i += 2
    return out


def git_changes(root: str, base: str, head: str = "HEAD", worktree: bool = False) -> list:
    """Files changed from the merge base of ``base`` and ``head`` to ``head`` (three dots:
    never ``base..head``, which would count what the base gained since the branch point).
    ``worktree``: add uncommitted changes of the work tree (for ``--changed-since``)."""
    res = _git(root, "diff", "--name-status", "-z", "-M", "--no-color", f"{base}...{head}")
    if res.returncode != 0:
        msg = res.stderr.decode("utf-8", "replace").strip() or "git diff failed"
        raise ChangeError(f"git diff {base}...{head}: {msg}")
    changes = parse_name_status(res.stdout)
    if worktree:
        res2 = _git(root, "diff", "--name-status", "-z", "-M", "--no-color", "HEAD")
        if res2.returncode == 0:
            changes += parse_name_status(res2.stdout)
        res3 = _git(root, "ls-files", "-z", "--others", "--exclude-standard")
        if res3.returncode == 0:
            changes += [FileChange("added", p) for p in res3.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    return merge(changes)


def git_patch(root: str, base: str, head: str = "HEAD") -> str:
    """The three-dot unified diff (3 lines of context, as GitHub shows a pull request)."""
    res = _git(root, "diff", "-U3", "-M", "--no-color", "--no-ext-diff", f"{base}...{head}")
    if res.returncode != 0:
        raise ChangeError(f"git diff {base}...{head}: {res.stderr.decode('utf-8', 'replace').strip()}")
    return res.stdout.decode("utf-8", "replace")


def merge(changes: list) -> list:
    """One entry per path (the last word wins), order kept."""
    seen: dict = {}
    for c in changes:
        seen[c.path] = c
    return list(seen.values())


def touched_paths(changes: Iterable[FileChange]) -> list:
    """Every path a change names (new and previous), for selecting the checked bundles."""
    out = []
    for c in changes:
        out.append(c.path)
        if c.previous_path:
            out.append(c.previous_path)
    return sorted(set(out))


def _under(path: str, scope: str) -> bool:
    return scope in ("", ".") or path == scope or path.startswith(scope.rstrip("/") + "/")


def bundle_dir_of(root: str, path: str) -> Optional[str]:
    """The bundle directory (repository-relative) a file belongs to, in the checked tree or,
    for a removed file, by its place (``.../manifests/...``, ``operators/<op>/<ver>/...``)."""
    parts = path.split("/")
    # on disk: the nearest ancestor (up to 3 levels) that is a bundle dir
    d = posixpath.dirname(path)
    for _ in range(3):
        if not d:
            break
        if looks_like_bundle(os.path.join(root, d)):
            return d
        d = posixpath.dirname(d)
    for i, p in enumerate(parts[:-1]):
        if p in BUNDLE_PARTS and i > 0:
            return "/".join(parts[:i])
    if len(parts) >= 4 and parts[0] == "operators":
        return "/".join(parts[:3])
    return None


@dataclass
class Affected:
    """What a change list touches, repository-relative."""

    bundles: list = field(default_factory=list)  # bundle dirs present in the tree
    deleted_bundles: list = field(default_factory=list)  # bundle dirs no longer there
    operators: list = field(default_factory=list)  # operators/<name> dirs touched
    catalogs: list = field(default_factory=list)  # catalogs/<v>/<op> dirs touched
    loose: list = field(default_factory=list)  # present files outside bundles (CatalogSource candidates)
    paths: list = field(default_factory=list)  # what to load: operator dirs, bundle dirs, loose files
    changed: list = field(default_factory=list)  # every changed path, for the checked selection
    outside: list = field(default_factory=list)  # changed paths outside the scope (not checked)


def affected(root: str, changes: list, scope: str = ".") -> Affected:
    """Map changes to what must be loaded and checked. ``scope``: repository-relative
    directory the user asked to check (the action's ``path``); changes outside it are
    listed in ``outside`` and not checked."""
    a = Affected()
    catalog_repo = os.path.isdir(os.path.join(root, "operators"))
    scope = (scope or ".").strip("/") or "."
    ops, bundles, deleted, cats, loose, outside = set(), set(), set(), set(), set(), set()
    for _status, path in split_renames(changes):
        if not _under(path, scope):
            outside.add(path)
            continue
        parts = path.split("/")
        present = os.path.lexists(os.path.join(root, path))
        if catalog_repo and parts[0] == "operators" and len(parts) >= 3:
            ops.add("/".join(parts[:2]))
        if catalog_repo and parts[0] == "catalogs" and len(parts) >= 4:
            cats.add("/".join(parts[:3]))
            ops.add("operators/" + parts[2])
            continue
        b = bundle_dir_of(root, path)
        if b is not None:
            if looks_like_bundle(os.path.join(root, b)):
                bundles.add(b)
            elif not os.path.exists(os.path.join(root, b)):
                deleted.add(b)
            continue
        if present and path.endswith(YAML_SUFFIXES[:2]) and not (catalog_repo and parts[0] == "operators"):
            loose.add(path)
    a.operators = sorted(o for o in ops if os.path.isdir(os.path.join(root, o)))
    a.bundles = sorted(bundles)
    a.deleted_bundles = sorted(deleted)
    a.catalogs = sorted(cats)
    a.loose = sorted(loose)
    a.outside = sorted(outside)
    # operators load whole (their other bundles are context) when something of theirs is
    # checked: a bundle present in the tree, a catalog, an operator-level file (ci.yaml). An
    # operator that only loses bundles needs none of them: pr-shape reads its ci.yaml and
    # catalogs (``attach``), and nothing else is checked.
    deleted_only = {o for o in a.operators
                    if all(d == o or not d.startswith(o + "/") for d in a.bundles)
                    and not any(c.split("/")[2] == o.split("/")[1] for c in a.catalogs)
                    and not any(p.startswith(o + "/") and p.count("/") == 2 for _, p in split_renames(changes))
                    and any(d.startswith(o + "/") for d in a.deleted_bundles)}
    load = set(a.operators) - deleted_only
    for b in a.bundles:
        if not any(b == o or b.startswith(o + "/") for o in load):
            load.add(b)
    a.paths = sorted(load) + a.loose
    a.changed = touched_paths(changes)
    return a


def _all_added(root: str, d: str, added: set) -> bool:
    """True when every file below ``d`` is one the change list adds (a new directory)."""
    for dirpath, dirnames, files in os.walk(os.path.join(root, d)):
        dirnames[:] = [x for x in dirnames if not x.startswith(".")]
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
            if rel not in added:
                return False
    return True


def dir_facts(root: str, changes: list) -> dict:
    """For each ``operators/<name>`` and ``operators/<name>/<sub>`` a change touches: "new"
    (a bundle dir — manifests/ or metadata/ — whose every file the change adds), "bundle"
    (a bundle dir that was there before), "dir" (present, not a bundle) or "absent"."""
    out: dict = {}
    if not os.path.isdir(os.path.join(root, "operators")):
        return out
    pairs = split_renames(changes)
    added = {p for s, p in pairs if s == "added"}
    for _status, path in pairs:
        parts = path.split("/")
        if parts[0] != "operators" or len(parts) < 3:
            continue
        for d in ("/".join(parts[:2]), "/".join(parts[:3]) if len(parts) >= 4 else None):
            if d is None or d in out:
                continue
            full = os.path.join(root, d)
            if looks_like_bundle(full):
                out[d] = "new" if d.count("/") == 2 and _all_added(root, d, added) else "bundle"
            else:
                out[d] = "dir" if os.path.isdir(full) else "absent"
    return out


def attach(repo, changes: list) -> None:
    """Put the change list on the model, with what pr-shape needs beside it: the state of
    each touched operator directory, the ci.yaml of touched operators, and the catalogs
    (``catalogs/v4.X/<op>/catalog.{yaml,json}``) of operators whose bundles are removed."""
    from .model import Operator

    repo.changes = list(changes)
    root = repo.root
    if os.path.isdir(os.path.join(root, "operators")):
        repo.is_catalog_repo = True
    repo.change_dirs = dir_facts(root, changes)
    reader = repo.reader
    if reader is None:
        return
    touched_ops = sorted({d.split("/")[1] for d in repo.change_dirs if d.count("/") == 1})
    for name in touched_ops:
        odir = os.path.join(root, "operators", name)
        if odir not in repo.operators and os.path.isdir(odir):  # keyed by directory (``discover.plan``)
            op = Operator(name, odir, reader.rel(odir))
            ci = os.path.join(odir, "ci.yaml")
            if os.path.isfile(ci):
                op.ci_file = reader.yaml_file(ci, skip=False)
            repo.operators[odir] = op
    removing = sorted({d.split("/")[1] for d, state in repo.change_dirs.items()
                       if d.count("/") == 2 and state == "absent"})
    cat_root = os.path.join(root, "catalogs")
    if not removing or not os.path.isdir(cat_root):
        return
    for entry in sorted(os.listdir(cat_root)):
        if not entry.startswith("v"):
            continue
        release = entry[1:]
        for name in removing:
            if name in (repo.catalogs.get(release) or {}):
                continue
            for fname in ("catalog.yaml", "catalog.yml", "catalog.json"):
                fp = os.path.join(cat_root, entry, name, fname)
                if os.path.isfile(fp):
                    repo.catalogs.setdefault(release, {})[name] = reader.yaml_file(fp, skip=False)
                    break
