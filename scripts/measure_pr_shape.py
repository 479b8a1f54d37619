#!/usr/bin/env python3
"""Measure pr-shape on a catalog repository's real history (read-only).

For each of the last N first-parent commits of a catalog checkout (community-operators
style repositories squash-merge one pull request per commit), rebuild the touched operators'
tree at that commit with ``git archive`` into a scratch directory, take the commit's change
list (``git diff --name-status -M parent...commit``) and run olm-check with it, as the
action would on that pull request. Prints per-kind counts and examples.

    scripts/measure_pr_shape.py /work/corpus --last 400
"""
from __future__ import annotations

import argparse
import collections
import io
import os
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from checker.api import check  # noqa: E402
from checker.changes import parse_name_status  # noqa: E402


def git(repo, *args) -> bytes:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout


def extract(repo: str, commit: str, paths: list, dest: str) -> None:
    present = [p for p in paths if subprocess.run(["git", "-C", repo, "cat-file", "-e", f"{commit}:{p}"],
                                                   capture_output=True).returncode == 0]
    if not present:
        return
    for p in present:  # one subtree at a time (a pathspec makes git read the whole tree)
        kind = subprocess.run(["git", "-C", repo, "cat-file", "-t", f"{commit}:{p}"], capture_output=True, text=True).stdout.strip()
        if kind == "blob":
            os.makedirs(os.path.join(dest, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(dest, p), "wb") as fh:
                fh.write(git(repo, "show", f"{commit}:{p}"))
            continue
        try:
            data = git(repo, "archive", "--format=tar", f"--prefix={p}/", f"{commit}:{p}")
        except subprocess.CalledProcessError:  # blobs missing from this clone's history
            continue
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            tf.extractall(dest, filter="data")


def kind(message: str) -> str:
    for key, name in (("outside operators/", "files outside operators/catalogs"), ("operators (", "several operators"),
                      ("modifies the existing bundle", "modifies a bundle"), ("renames the bundle", "renames a bundle"),
                      ("bundles (", "adds several bundles"), ("and deletes", "adds and deletes"),
                      ("still list", "deletes a bundle a catalog lists"), ("file-based catalogs", "deletes a non-FBC bundle"),
                      ("and the catalogs at once", "bundle and catalog together"), ("is not a bundle directory", "half-formed dir")):
        if key in message:
            return name
    return "other"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--last", type=int, default=200)
    args = ap.parse_args()
    commits = git(args.repo, "log", "--first-parent", "--format=%H", f"-{args.last}").decode().split()
    per_kind = collections.Counter()
    examples = collections.defaultdict(list)
    flagged = 0
    for c in commits:
        parents = git(args.repo, "log", "-1", "--format=%P", c).decode().split()
        if not parents:
            continue
        changes = parse_name_status(git(args.repo, "diff", "--name-status", "-z", "-M", f"{parents[0]}...{c}"))
        touched = [p for ch in changes for p in (ch.path, ch.previous_path) if p]
        ops = sorted({p.split("/")[1] for p in touched if p.startswith("operators/") and p.count("/") >= 2}
                     | {p.split("/")[2] for p in touched if p.startswith("catalogs/") and p.count("/") >= 3})
        subs = sorted({"/".join(p.split("/")[:3]) for p in touched if p.startswith("operators/") and p.count("/") >= 3})
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["git", "init", "-q", tmp], check=True)
            # only what pr-shape looks at: the touched version dirs, ci.yaml, the catalogs
            cats = [f"catalogs/{d}/{o}" for o in ops
                    for d in git(args.repo, "ls-tree", "--name-only", f"{c}:catalogs").decode().split()] if ops else []
            extract(args.repo, c, subs + [f"operators/{o}/ci.yaml" for o in ops] + cats, tmp)
            for o in ops:
                if subprocess.run(["git", "-C", args.repo, "cat-file", "-e", f"{c}:operators/{o}"],
                                  capture_output=True).returncode == 0:
                    os.makedirs(os.path.join(tmp, "operators", o), exist_ok=True)
            os.makedirs(os.path.join(tmp, "operators"), exist_ok=True)
            paths = [os.path.join(tmp, s) for s in subs if os.path.isdir(os.path.join(tmp, s))]
            res = check(paths, changes=changes, root=tmp)
            mine = [f for f in res.findings if f.rule == "pr-shape"]
        subject = git(args.repo, "log", "-1", "--format=%s", c).decode().strip()
        if mine:
            flagged += 1
        print(f"{c[:9]} {len(changes):4} files {len(mine)} pr-shape  {subject[:60]}", flush=True)
        for f in mine:
            k = kind(f.message)
            per_kind[k] += 1
            if len(examples[k]) < 3:
                examples[k].append(f"{c[:9]} {subject[:70]!r}: {f.path}:{f.line}: {f.message[:160]}")
    print(f"{len(commits)} merged pull requests; {flagged} with pr-shape findings")
    for k, n in per_kind.most_common():
        print(f"  {n:5}  {k}")
        for e in examples[k]:
            print(f"         {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
