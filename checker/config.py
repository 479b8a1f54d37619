"""The run's configuration as plain data: ``Config`` (what ``.olm-check.yaml`` says, or the
defaults) and ``Excludes`` (its ``exclude:`` patterns). Reading and validating the file is
``checker.config_file``'s; nothing here reads a file.
"""
from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from .yamlload import Limits


@dataclass
class Config:
    path: Optional[str] = None
    profile: Optional[str] = None
    fail_on: Optional[str] = None
    rules: dict[str, str] = field(default_factory=dict)  # rule id -> error | warning | info | off
    paths: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # [(glob, {rule: severity})]
    ocp_releases: list[dict[str, Any]] = field(default_factory=list)  # [{ocp, kube, ga}] (ocp.yaml's format)
    apis: dict[str, list[Any]] = field(default_factory=dict)  # removed / introduced entries (apis.yaml's format)
    limits: Limits = field(default_factory=Limits)
    categories: Optional[list[str]] = None
    catalogsource_schema: str = "legacy"
    options: dict[str, Any] = field(default_factory=dict)  # free-form per-rule options
    exclude: Excludes = field(default_factory=lambda: Excludes(()))  # paths never checked (``exclude:``)

    def severity_override(self, rule_id: str, path: str) -> Optional[str]:
        sev: Optional[str] = None
        for glob, rules in self.paths:
            if rule_id in rules and _match(path, glob):
                sev = rules[rule_id]
        if sev is not None:
            return sev
        return self.rules.get(rule_id)

    def signature(self) -> str:
        return json.dumps({
            "profile": self.profile, "rules": self.rules, "paths": self.paths, "ocp": self.ocp_releases,
            "apis": self.apis, "limits": vars(self.limits), "categories": self.categories,
            "cs": self.catalogsource_schema, "options": self.options, "exclude": self.exclude.patterns,
        }, sort_keys=True, default=str)


def _match(path: str, glob: str) -> bool:
    glob = glob.rstrip("/")
    if fnmatch.fnmatchcase(path, glob):
        return True
    if glob.endswith("/**"):
        base = glob[:-3]
        return fnmatch.fnmatchcase(path, base) or fnmatch.fnmatchcase(path, base + "/*")
    return fnmatch.fnmatchcase(path, glob + "/*")


class Excludes:
    """``exclude:``: gitignore-style patterns on paths relative to the configuration's
    directory (the repository root). As in ``.gitignore``: a pattern with a ``/`` before its
    end is anchored there, one without matches a name at any depth; a trailing ``/`` matches
    directories only; ``*`` and ``?`` stay within one name, ``**`` spans directories; ``!``
    re-includes; the last matching pattern wins, and below an excluded directory nothing is
    re-included. Blank lines and ``#`` comments are ignored."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = [p for p in patterns if p.strip() and not p.lstrip().startswith("#")]
        self._rules = [_gitignore_rule(p) for p in self.patterns]

    def __bool__(self) -> bool:
        return bool(self._rules)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Excludes) and other.patterns == self.patterns

    def __repr__(self) -> str:
        return f"Excludes({self.patterns!r})"

    def match(self, rel: str, is_dir: bool = False) -> bool:
        """True when ``rel`` (``/``-separated, relative to the root) or a directory above it
        is excluded."""
        parts = [p for p in rel.replace(os.sep, "/").split("/") if p and p != "."]
        if not self._rules or not parts or parts[0] == "..":
            return False
        for i in range(1, len(parts) + 1):
            sub, d = "/".join(parts[:i]), i < len(parts) or is_dir
            hit = False
            for neg, dir_only, rx in self._rules:
                if (d or not dir_only) and rx.fullmatch(sub):
                    hit = not neg
            if hit:
                return True
        return False


def _gitignore_rule(pattern: str) -> tuple[bool, bool, re.Pattern[str]]:
    """(negated, directories only, compiled regex on the whole relative path)."""
    p = pattern.strip()
    neg = p.startswith("!")
    if neg:
        p = p[1:]
    if p.startswith("\\"):
        p = p[1:]
    dir_only = p.endswith("/")
    p = p.rstrip("/")
    anchored = "/" in p
    p = p.lstrip("/")
    out, i = "", 0
    while i < len(p):
        if p.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif p.startswith("/**", i) and i + 3 == len(p):
            out += "/.*"
            i += 3
        elif p.startswith("**", i):
            out += ".*"
            i += 2
        elif p[i] == "*":
            out += "[^/]*"
            i += 1
        elif p[i] == "?":
            out += "[^/]"
            i += 1
        elif p[i] == "[":
            j = p.find("]", i + 2)
            if j < 0:
                out += re.escape(p[i])
                i += 1
            else:
                body = p[i + 1:j]
                if body[:1] == "!":
                    body = "^" + body[1:]
                out += "[" + body.replace("\\", "\\\\") + "]"
                i = j + 1
        else:
            out += re.escape(p[i])
            i += 1
    if not anchored:
        out = "(?:.*/)?" + out
    try:
        return neg, dir_only, re.compile(out)
    except re.error:
        return neg, dir_only, re.compile(re.escape(pattern))
