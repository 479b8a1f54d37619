"""Build the CLI fixture trees (fixtures/trees/<name>/) into a directory.

A tree directory holds a ``tree.yaml`` and literal files. ``tree.yaml`` lists ``bundles``:
each starts as a copy of fixtures/bundles/good (the clean reference bundle, so the trees
follow it as rules evolve), then ``edit`` replaces text in its files (each replacement must
match exactly once) and ``delete`` removes files. Then every other file of the tree directory
is copied over the result, at the same relative path.
"""
import os
import shutil

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")
GOOD = os.path.join(FIXTURES, "bundles", "good")


def build_tree(name: str, dest) -> str:
    src = os.path.join(FIXTURES, "trees", name)
    dest = str(dest)
    with open(os.path.join(src, "tree.yaml"), encoding="utf-8") as fh:
        spec = yaml.safe_load(fh) or {}
    os.makedirs(dest, exist_ok=True)
    for rel, how in (spec.get("bundles") or {}).items():
        bdir = os.path.join(dest, rel)
        shutil.copytree(GOOD, bdir)
        for frel, pairs in ((how or {}).get("edit") or {}).items():
            p = os.path.join(bdir, frel)
            with open(p, encoding="utf-8") as fh:
                text = fh.read()
            for old, new in pairs:
                assert text.count(old) == 1, f"fixtures/trees/{name}: {rel}/{frel}: {old!r} must occur exactly once"
                text = text.replace(old, new)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text)
        for frel in (how or {}).get("delete") or []:
            os.remove(os.path.join(bdir, frel))
    for dirpath, _dirs, files in os.walk(src):
        for f in files:
            if dirpath == src and f == "tree.yaml":
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copyfile(os.path.join(dirpath, f), os.path.join(dest, rel))
    return dest


def line_of(path, needle: str, nth: int = 1) -> int:
    """1-based line of the ``nth`` occurrence of ``needle`` in the file at ``path``."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    i = -1
    for _ in range(nth):
        i = text.index(needle, i + 1)
    return text[:i].count("\n") + 1
