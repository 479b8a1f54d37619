"""The run report: what one run of olm-check checked and found, as one typed value that every
renderer (text, JSON, SARIF, Markdown, workflow commands) and the Action's publishers take.

It is assembled where a run ends (``api.check``, ``olm-check merge``) and only ever replaced,
never edited: a shard, a baseline, a ``--select`` make a new one (``dataclasses.replace``).
Its JSON form (``to_json``) is the documented report (design.md, "JSON report"); the JSON of
a finding, with its rule's page, is made here (``finding_json``), on the report side: a
``Finding`` knows nothing of how it is presented.

The dependency goes one way: this module imports the core's ``Finding``; nothing of the core
imports this module.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Optional, Sequence

from .. import TOOL_NAME, __version__
from ..finding import Finding
from .links import help_uri

Json = dict[str, Any]


def finding_json(f: Finding) -> Json:
    """A finding as the JSON report holds it (the documented field order), with its rule's
    page (``help_uri``)."""
    d: Json = {
        "rule": f.rule,
        "severity": f.severity,
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "message": f.message,
        "ocp_versions": list(f.ocp_versions),
        "bundle": f.bundle,
        "fix": f.fix.to_json() if f.fix else None,
        "detail": f.detail,
        "help_uri": help_uri(f.rule),
        "kind": f.kind,
        "gate": dict(f.gate) if f.gate else None,
    }
    if f.baseline_state:
        d["baseline_state"] = f.baseline_state
    return d


@dataclass(frozen=True)
class BundleEntry:
    """A checked bundle: where it is, what it is, the OpenShift releases it reaches."""

    path: str
    package: Optional[str]
    csv: Optional[str]
    mediatype: Optional[str]
    ocp_label: Optional[str]
    ocp_versions: tuple[str, ...]
    ocp_installable: tuple[str, ...]

    @classmethod
    def of_facts(cls, f: Any) -> "BundleEntry":
        """The entry of a bundle from its ``model.BundleFacts`` (the bundle itself is gone by
        the time the report is assembled)."""
        return cls(f.rel, f.package, f.csv_name, f.mediatype, f.label, tuple(f.ocp_versions), tuple(f.ocp_installable))

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "BundleEntry":
        return cls(d.get("path") or "", d.get("package"), d.get("csv"), d.get("mediatype"), d.get("ocp_label"),
                   tuple(d.get("ocp_versions") or ()), tuple(d.get("ocp_installable") or ()))

    def to_json(self) -> Json:
        return {"path": self.path, "package": self.package, "csv": self.csv, "mediatype": self.mediatype,
                "ocp_label": self.ocp_label, "ocp_versions": list(self.ocp_versions),
                "ocp_installable": list(self.ocp_installable)}


@dataclass(frozen=True)
class Summary:
    """The counts: bundles checked, findings per severity."""

    bundles: int
    errors: int
    warnings: int
    info: int

    @classmethod
    def count(cls, bundles: int, findings: Iterable[Finding]) -> "Summary":
        counts = {"error": 0, "warning": 0, "info": 0}
        for f in findings:
            if f.severity in counts:
                counts[f.severity] += 1
        return cls(bundles, counts["error"], counts["warning"], counts["info"])

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Summary":
        return cls(int(d.get("bundles") or 0), int(d.get("errors") or 0), int(d.get("warnings") or 0),
                   int(d.get("info") or 0))

    def to_json(self) -> Json:
        return {"bundles": self.bundles, "errors": self.errors, "warnings": self.warnings, "info": self.info}


@dataclass(frozen=True)
class Shard:
    """``--shard I/N``: this report is shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def to_json(self) -> Json:
        return {"index": self.index, "count": self.count}


@dataclass(frozen=True)
class BaselineSummary:
    """The run against a baseline (``checker.baseline``): the commit, how many findings are
    new, updated and unchanged, how many of the base's are gone (``absent``), and each checked
    bundle's previous bundle at the base (None: none)."""

    ref: str
    new: int
    updated: int
    unchanged: int
    absent: int
    previous: tuple[tuple[str, Optional[str]], ...] = ()

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "BaselineSummary":
        prev = d.get("previous") or {}
        return cls(str(d.get("ref") or ""), int(d.get("new") or 0), int(d.get("updated") or 0),
                   int(d.get("unchanged") or 0), int(d.get("absent") or 0),
                   tuple((str(k), v) for k, v in prev.items()) if isinstance(prev, dict) else ())

    def to_json(self) -> Json:
        return {"ref": self.ref, "new": self.new, "updated": self.updated, "unchanged": self.unchanged,
                "absent": self.absent, "previous": dict(self.previous)}


@dataclass(frozen=True)
class RunReport:
    """One run's report.

    ``findings``: the reported findings, in the report's order (the same ``Finding`` objects
    the run settled; a baseline sets their ``baseline_state`` before the report is rendered).
    ``summary``: the counts of those findings. ``ocp_not_ga``: the releases of the run's
    release table that are not GA (printed "(not GA)"). ``fail_on`` (the effective threshold)
    and ``fail_on_unchanged`` say how the verdict reads; they are not part of the JSON report.
    """

    bundles: tuple[BundleEntry, ...]
    findings: tuple[Finding, ...]
    summary: Summary
    ocp_not_ga: tuple[str, ...] = ()
    tool_version: str = __version__
    shard: Optional[Shard] = None
    baseline: Optional[BaselineSummary] = None
    fail_on: str = "error"
    fail_on_unchanged: bool = False

    @classmethod
    def build(cls, bundles: Sequence[BundleEntry], findings: Sequence[Finding], ocp_not_ga: Sequence[str] = (),
              fail_on: str = "error") -> "RunReport":
        """The report of ``bundles`` and ``findings``, counted."""
        return cls(tuple(bundles), tuple(findings), Summary.count(len(bundles), findings), tuple(ocp_not_ga),
                   fail_on=fail_on)

    @classmethod
    def from_json(cls, d: Mapping[str, Any], findings: Sequence[Finding]) -> "RunReport":
        """The report of a JSON report (``to_json``'s form, as a dict; parts may be missing)
        with its ``findings`` as objects (the dict's own ``findings`` are not read)."""
        raw_tool = d.get("tool")
        tool: Mapping[str, Any] = raw_tool if isinstance(raw_tool, dict) else {}
        summary = d.get("summary")
        sh = d.get("shard")
        bl = d.get("baseline")
        bundles = tuple(BundleEntry.from_json(b) for b in d.get("bundles") or ())
        return cls(bundles, tuple(findings),
                   Summary.from_json(summary) if isinstance(summary, dict) else Summary.count(len(bundles), findings),
                   tuple(d.get("ocp_not_ga") or ()), str(tool.get("version") or __version__),
                   Shard(int(sh["index"]), int(sh["count"])) if isinstance(sh, dict) else None,
                   BaselineSummary.from_json(bl) if isinstance(bl, dict) else None)

    def selected(self, findings: Sequence[Finding]) -> "RunReport":
        """The report of only ``findings`` (``--select``/``--ignore``), recounted."""
        return replace(self, findings=tuple(findings), summary=Summary.count(self.summary.bundles, findings))

    def to_json(self) -> Json:
        """The JSON report (the documented contract), as a dict in its key order."""
        d: Json = {
            "tool": {"name": TOOL_NAME, "version": self.tool_version},
            "bundles": [b.to_json() for b in self.bundles],
            "ocp_not_ga": list(self.ocp_not_ga),
            "findings": [finding_json(f) for f in self.findings],
            "summary": self.summary.to_json(),
        }
        if self.shard is not None:
            d["shard"] = self.shard.to_json()
        if self.baseline is not None:
            d["baseline"] = self.baseline.to_json()
        return d
