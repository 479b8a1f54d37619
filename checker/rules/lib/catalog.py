"""What the catalog rules read of a catalog repository, below the rules: which operators a run
checks and what their ci.yaml says (``checker.catalogs``), the upgrade-graph model shared with
``olm-check graph`` (``checker.upgrade_graph``), blang/semver as OLM parses versions and ranges
(``checker.blangsemver``), and the small helpers several catalog rules share."""
from __future__ import annotations

from ...blangsemver import SemverError, check_range, npm_spec_contains, parse, parse_range, parse_tolerant
from ...catalogs import checked_operators, ci_data, fbc_enabled
from ...upgrade_graph import Channel, explicit_mode, label_of, opm_channels, opm_stranded, update_mode, version_of, walk_text

__all__ = ["SemverError", "check_range", "npm_spec_contains", "parse", "parse_range", "parse_tolerant",
           "checked_operators", "ci_data", "fbc_enabled",
           "Channel", "explicit_mode", "label_of", "opm_channels", "opm_stranded", "update_mode", "version_of", "walk_text",
           "operators", "fact_pos", "few", "fbc_operator", "semver_mode"]


def operators(repo) -> dict:
    """operator name -> (Operator or None, [facts]) of the repository slice's bundles in operators/<name>/, by name."""
    by = {}
    for f in repo.facts:
        if f.operator:
            by.setdefault(f.operator, []).append(f)
    return {name: (repo.operators.get(name), fs) for name, fs in sorted(by.items())}


def fbc_operator(op) -> bool:
    """True when the operator's ci.yaml enables file-based catalogs (its catalogs hold the graph)."""
    return op is not None and fbc_enabled(ci_data(op))


def semver_mode(op) -> bool:
    """True when the operator's ci.yaml sets ``updateGraph: semver-mode``."""
    return op is not None and update_mode(op) == "semver-mode"


def fact_pos(f, which: str = "replaces") -> tuple:
    """(path, line, column) of a bundle's spec.replaces (``which="replaces"``, when it has one), else of its CSV or annotations."""
    p = f.replaces_pos if which == "replaces" and f.replaces_pos is not None else (f.csv_pos or f.annotations_pos)
    if p is None:
        return f.rel, 1, 1
    return p.path, p.line, p.column


def few(names, n: int = 6) -> str:
    """The first ``n`` names, then how many more."""
    if not names:
        return "none"
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")
