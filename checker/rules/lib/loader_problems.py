"""The problems the loader recorded while reading files (``SourceFile.problems``, the
bundle.Dockerfile's ``problems``), for the rules that report them: yaml-syntax,
yaml-duplicate-key, yaml-limits and bundle-layout."""
from __future__ import annotations

from typing import Any, Iterable, Iterator

from ...model import Repository, SourceFile

# The kind, in checker/data/verdicts.yaml, of what the loader records as a warning: where only
# olm-check stops reading (yaml-limits), a key repeated with the same value (yaml-duplicate-key).
WARNING_KINDS = {"yaml-limits": "unchecked", "yaml-duplicate-key": "same-value"}


def kind_of(p: Any) -> str:
    """The finding kind of a loader problem ``p`` ("" for its rule's default)."""
    return WARNING_KINDS.get(p.rule, "") if p.severity == "warning" else ""


def problems(files: Iterable[SourceFile], rule_id: str) -> Iterator[tuple[SourceFile, Any]]:
    """``(file, problem)`` for each problem of rule ``rule_id`` the loader recorded in ``files``."""
    for sf in files:
        for p in sf.problems:
            if p.rule == rule_id:
                yield sf, p


def repo_files(repo: Repository) -> list[SourceFile]:
    """The files of a repository slice that are in no bundle: loose files and each operator's ci.yaml."""
    files = list(repo.loose_files)
    for op in repo.operators.values():
        if op.ci_file is not None:
            files.append(op.ci_file)
    return files
