"""The catalog-repository layout, in one place: bundles in ``operators/<name>/<version>/``,
the operator's ``operators/<name>/ci.yaml``, its file-based catalogs in
``catalogs/<release>/<name>/``; the repository root is the directory holding ``operators/``.

A bundle is always checked with its operator around it (the operator is the unit of
context): whatever path names it -- the bundle directory, a file in it, the operator
directory, the repository root, a changed file of a pull request -- the operator is found by
walking up the path to ``operators/<name>/``, with or without git.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Optional

OPERATORS = "operators"
CATALOGS = "catalogs"


@dataclass(frozen=True)
class Place:
    """Where a path sits in a catalog repository: the repository root (the parent of
    ``operators/``) and, for a path at or below ``operators/<name>/``, the operator."""

    root: str
    operator: Optional[str] = None

    @property
    def operator_dir(self) -> Optional[str]:
        return os.path.join(self.root, OPERATORS, self.operator) if self.operator else None


def locate(path: str) -> Optional[Place]:
    """The catalog-repository place of ``path`` (absolute or relative; need not exist), or
    None when it is not inside one. A directory holding ``operators/`` is a repository root;
    otherwise the innermost ``operators`` component of the path decides."""
    p = os.path.abspath(path)
    if os.path.isdir(os.path.join(p, OPERATORS)):
        return Place(p)
    parts = p.split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] != OPERATORS:
            continue
        root = os.sep.join(parts[:i]) or os.sep
        name = parts[i + 1] if i + 1 < len(parts) else None
        return Place(root, name or None)
    return None


def catalog_place(path: str) -> Optional[Place]:
    """The place of a file or directory of an operator's file-based catalog,
    ``<root>/catalogs/<release>/<name>[/...]`` (the innermost ``catalogs`` component), or None."""
    parts = os.path.abspath(path).split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == CATALOGS:
            if i + 2 < len(parts) and parts[i + 2]:
                return Place(os.sep.join(parts[:i]) or os.sep, parts[i + 2])
            return None
    return None


def operator_of_rel(rel: str) -> Optional[str]:
    """The operator a repository-relative path belongs to: ``operators/<name>/...`` or a
    file-based catalog ``catalogs/<release>/<name>/...``; None for anything else."""
    parts = rel.replace(os.sep, "/").strip("/").split("/")
    for i, part in enumerate(parts[:-1]):  # the catalog may be a directory of the work tree
        if part == OPERATORS and parts[i + 1]:
            return parts[i + 1]
        if part == CATALOGS and i + 3 < len(parts) and parts[i + 2]:
            return parts[i + 2]
    return None


def operators_touched(rels: Iterable[str]) -> set[str]:
    """The operators repository-relative paths (a change list) belong to."""
    return {n for n in (operator_of_rel(r) for r in rels) if n}


def operator_dir_of_rel(root: str, rel: str) -> Optional[str]:
    """The directory (absolute) of the operator a path relative to ``root`` belongs to, as
    ``operator_of_rel`` finds it: ``<prefix>/operators/<name>`` for ``operators/<name>/...``
    and for a file-based catalog ``<prefix>/catalogs/<release>/<name>/...``; else None."""
    parts = rel.replace(os.sep, "/").strip("/").split("/")
    for i, part in enumerate(parts[:-1]):
        if part == OPERATORS and parts[i + 1]:
            return os.path.join(root, *parts[:i + 2])
        if part == CATALOGS and i + 3 < len(parts) and parts[i + 2]:
            return os.path.join(root, *parts[:i], OPERATORS, parts[i + 2])
    return None


def operator_dirs_touched(root: str, rels: Iterable[str]) -> set[str]:
    """The directories of the operators paths relative to ``root`` (a change list) belong to:
    ``operators_touched``, told apart by tree."""
    return {d for d in (operator_dir_of_rel(root, r) for r in rels) if d}


def bundle_place(bundle_dir: str) -> tuple[Optional[str], Optional[str]]:
    """(operator, version directory) of a bundle directory at ``operators/<name>/<version>/``,
    else (None, None)."""
    parent = os.path.dirname(bundle_dir)
    if os.path.basename(os.path.dirname(parent)) == OPERATORS:
        return os.path.basename(parent), os.path.basename(bundle_dir)
    return None, None


# The operator-sdk / kubebuilder project layout: ``make bundle`` writes the bundle to
# ``bundle/`` and its Dockerfile to the project root (``bundle.Dockerfile``, with
# ``COPY bundle/manifests /manifests/``); ``config/`` holds the kustomize sources
# (``config/manifests/`` is the input of ``make bundle``, not a bundle). An operator named
# "config" in a catalog repository (``operators/config/``) is an operator all the same.
CONFIG = "config"
ROOT_DOCKERFILE = "bundle.Dockerfile"
BUNDLE_DOCKERFILES = ("bundle.Dockerfile", "Dockerfile")


def in_config_sources(path: str) -> bool:
    """True when ``path`` (absolute or relative; need not exist) is at or below a ``config``
    directory that is not an operator's (``operators/config``): operator-sdk's kustomize
    sources, never a bundle (the pre-commit hooks' ``exclude`` says the same)."""
    parts = [p for p in path.replace(os.sep, "/").split("/") if p]
    return any(p == CONFIG and (i == 0 or parts[i - 1] != OPERATORS) for i, p in enumerate(parts))


def _copy_sources(path: str) -> list[str]:
    """The source paths of the ``COPY``/``ADD`` lines of a Dockerfile (text, cheaply: no
    parser), or [] when it cannot be read."""
    import re

    try:
        if not os.path.isfile(path) or os.path.getsize(path) > 1 << 20:
            return []
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for line in re.sub(r"\\\r?\n", " ", text).splitlines():
        bits = line.split()
        if len(bits) >= 3 and bits[0].upper() in ("COPY", "ADD"):
            out += [b for b in bits[1:-1] if not b.startswith("--")]
    return out


def dockerfile_bundle(dockerfile: str) -> Optional[str]:
    """The bundle directory a project-root ``bundle.Dockerfile`` builds: the one directory
    beside it its ``COPY`` lines read from (``COPY bundle/manifests /manifests/`` ->
    ``<root>/bundle``) that holds ``manifests/`` or ``metadata/``; None otherwise."""
    if os.path.basename(dockerfile) != ROOT_DOCKERFILE:
        return None
    here = os.path.dirname(os.path.abspath(dockerfile))
    found = []
    for src in _copy_sources(dockerfile):
        parts = [p for p in src.replace("\\", "/").split("/") if p and p != "."]
        if len(parts) < 2 or parts[0] == ".." or parts[1] not in ("manifests", "metadata", "tests"):
            continue
        d = os.path.join(here, parts[0])
        if d not in found and (os.path.isdir(os.path.join(d, "manifests")) or os.path.isdir(os.path.join(d, "metadata"))):
            found.append(d)
    return found[0] if len(found) == 1 else None


def bundle_dockerfile(bundle_dir: str) -> Optional[str]:
    """The Dockerfile a bundle is built with: its own ``bundle.Dockerfile`` or ``Dockerfile``,
    else the parent directory's ``bundle.Dockerfile`` when that copies from this bundle
    (operator-sdk's project root); None when there is none."""
    for name in BUNDLE_DOCKERFILES:
        fp = os.path.join(bundle_dir, name)
        if os.path.lexists(fp):
            return fp
    fp = os.path.join(os.path.dirname(os.path.abspath(bundle_dir)), ROOT_DOCKERFILE)
    if os.path.isfile(fp) and not os.path.islink(fp) and dockerfile_bundle(fp) == os.path.abspath(bundle_dir):
        return fp
    return None
