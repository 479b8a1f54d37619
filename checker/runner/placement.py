"""Where a finding about a directory is shown: at a file in it an editor opens (the runner
looks at the tree; the core does not)."""
from __future__ import annotations

import os
from typing import Optional


def _openable(d: str, depth: int = 0) -> Optional[str]:
    """The file an editor should open for a finding about the directory ``d``, relative to it
    (None when the directory holds no file): an operator's ci.yaml; a bundle's
    ClusterServiceVersion, else its metadata/annotations.yaml, else the first file of
    manifests/ or metadata/; else the directory's first file (or its first subdirectory's)."""

    def files(sub: str) -> list:
        try:
            with os.scandir(os.path.join(d, sub) if sub else d) as it:
                return sorted(e.name for e in it if not e.name.startswith(".") and e.is_file())
        except OSError:
            return []

    if os.path.isfile(os.path.join(d, "ci.yaml")):
        return "ci.yaml"
    manifests = files("manifests")
    csv = [n for n in manifests if "clusterserviceversion" in n.lower()]
    if csv:
        return "manifests/" + csv[0]
    for name in ("annotations.yaml", "annotations.yml"):
        if os.path.isfile(os.path.join(d, "metadata", name)):
            return "metadata/" + name
    if manifests:
        return "manifests/" + manifests[0]
    meta = files("metadata")
    if meta:
        return "metadata/" + meta[0]
    here = files("")
    if here:
        yamls = [n for n in here if n.endswith((".yaml", ".yml"))]
        return (yamls or here)[0]
    if depth < 3:
        try:
            with os.scandir(d) as it:
                subs = sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            subs = []
        for sub in subs:
            got = _openable(os.path.join(d, sub), depth + 1)
            if got is not None:
                return sub + "/" + got
    return None


def at_files(findings: list, ctx) -> None:
    """A finding about a directory (a bundle or operator directory, manifests/, a repository
    root) is put at a file an editor opens, on line 1 (``_openable``): ``dir:1:1`` opens
    nowhere. Directories are recognised on disk, from the display path (``Reader.rel``: relative
    to the display base, or as the user typed it)."""
    repo = ctx.repo
    reader = repo.reader if repo is not None else None
    base = getattr(reader, "display_base", None) or os.getcwd()
    memo: dict = {}
    for f in findings:
        p = f.path
        if not p:
            continue
        got = memo.get(p, False)
        if got is False:
            got = None
            for cand in ((p,) if os.path.isabs(p) else (os.path.join(base, p), os.path.abspath(p))):
                if os.path.isdir(cand) and not os.path.islink(cand):
                    sub = _openable(cand)
                    if sub is not None:
                        got = sub if p in (".", "./") else p.rstrip("/") + "/" + sub
                    break
            memo[p] = got
        if got is not None:
            f.path, f.line, f.column = got, 1, 1
