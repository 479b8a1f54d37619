"""Where a run stands, in one place: the git work tree, the checked tree's root, the base
display paths are relative to, where the configuration is looked for. Reads no file (only
whether ``.git`` and ``operators/`` exist); runs no git."""
from __future__ import annotations

import os
from typing import Optional

from .layout import locate


def git_toplevel(path: str) -> Optional[str]:
    """The git work tree around ``path`` (the nearest directory holding ``.git``), or None."""
    p = os.path.abspath(path)
    if os.path.isfile(p):
        p = os.path.dirname(p)
    while True:
        if os.path.exists(os.path.join(p, ".git")):
            return p
        parent = os.path.dirname(p)
        if parent == p:
            return None
        p = parent


def _below(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def enclosing_root(path: str) -> Optional[str]:
    """The tree ``path`` belongs to: the git work tree around it, else the catalog repository
    holding it (the parent of ``operators/``, ``layout.locate``), with or without git; None
    for neither. A git work tree inside a catalog repository does not narrow it."""
    top = git_toplevel(path)
    place = locate(path)
    catalog_root = place.root if place is not None else None
    if top is not None and catalog_root is not None and not _below(catalog_root, top):
        top = None
    return top or catalog_root


def repo_root(paths: list[str]) -> str:
    """The root of the checked tree for ``paths`` (the first decides): ``enclosing_root``,
    else the first path (its directory for a file)."""
    first = os.path.abspath(paths[0] if paths else ".")
    return enclosing_root(first) or (first if os.path.isdir(first) else os.path.dirname(first))


def _under_cwd(paths: list[str]) -> bool:
    cwd = os.getcwd()
    return all(_below(os.path.abspath(p), cwd) for p in paths)


def display_base(paths: list[str]) -> str:
    """Where display paths are relative to: the git work tree, else the current directory
    (paths outside it stay as the user gave them, ``load.Reader.rel``)."""
    first = os.path.abspath(paths[0]) if paths else os.getcwd()
    return git_toplevel(first) or os.getcwd()


def config_path(paths: list[str]) -> str:
    """Where ``.olm-check.yaml`` is looked for: the root of the git work tree; outside git,
    the current directory when every path is below it (display paths and the config's
    per-path globs are relative to it), else the first path's directory."""
    first = os.path.abspath(paths[0] if paths else ".")
    top = git_toplevel(first)
    if top is None:
        top = os.getcwd() if _under_cwd(paths) else (first if os.path.isdir(first) else os.path.dirname(first))
    return os.path.join(top, ".olm-check.yaml")
