"""The one thing every part of olm-check passes around: a finding."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1, "never": 99}
_CTL = re.compile("[\x00-\x1f\x7f]")


# a value a message quotes is kept whole up to this many characters (an image reference, an
# environment variable name, a label: four findings must not read alike because their values
# were cut; the text report wraps long lines): only pathological text is cut (issue 26)
CLIP_KEEP = 256


def clip(s, limit: int = 60, escape: bool = False) -> str:
    """A user's text as a one-sentence message quotes it: on one line, whole up to
    ``CLIP_KEEP`` characters (``limit``, when larger), longer text cut there with "…" (the
    detail or the position carries the rest); with ``escape``, its control characters
    written as \\xNN."""
    limit = max(limit, CLIP_KEEP)
    s = str(s).replace("\n", " ")
    if escape and _CTL.search(s):
        s = "".join(c if not (ord(c) < 0x20 or ord(c) == 0x7F) else f"\\x{ord(c):02x}" for c in s)
    return s if len(s) <= limit else s[: limit - 1] + "…"


@dataclass
class Fix:
    """A machine-applicable fix: replace the whole of ``line`` with ``replacement``.

    ``replacement`` may hold several lines (joined by newlines) or be empty to delete the
    line. GitHub suggestion blocks are made from it.
    """

    line: int
    replacement: str
    description: str = ""

    def to_json(self) -> dict:
        return {"line": self.line, "replacement": self.replacement, "description": self.description}


@dataclass
class Finding:
    rule: str
    message: str
    path: str  # display path (repository-relative where possible)
    line: int = 1
    column: int = 1
    severity: Optional[str] = None  # None: the rule's effective severity decides
    ocp_versions: list = field(default_factory=list)
    bundle: Optional[str] = None
    fix: Optional[Fix] = None
    # ``message`` is one sentence (about 120 characters at most): what is wrong, with the
    # values that matter. ``detail`` is the why and the fix (shown by ``--explain``, in the
    # JSON report, in pull-request comments); empty when the message says it all.
    detail: str = ""
    # which observation of its rule this is (a slug, e.g. "maintainers-missing"); "" is the
    # rule's default kind. The gates' data (checker/data/verdicts.yaml) gives each kind its
    # severity per target: an error exactly where a gate on the bundle's route refuses it.
    kind: str = ""
    # the gate that refuses it (an error) or warns about it, for the run's target:
    # {"id", "name", "source", "since"} (``engine.settle`` from ``checker.gates``); None: no gate
    gate: Optional[dict] = None
    # against a baseline (a pull request's base, ``--changed-since``, ``--baseline``): "new",
    # "unchanged" or "updated" (``checker.baseline``); "" when the run had no baseline
    baseline_state: str = ""
    # sentences of the detail that hold only where a gate is on the target's route:
    # {gate id: sentence}; ``engine.settle`` adds those of the run's target to ``detail``
    gate_notes: Optional[dict] = None

    def sort_key(self):
        return (self.path, self.line, self.column, -SEVERITY_RANK.get(self.severity or "info", 0), self.rule, self.message)

    def fingerprint(self) -> str:
        """Stable identity of a finding across runs (line numbers excluded on purpose:
        an edit above a finding must not make it look new — also the ones a message quotes,
        such as "first at line 12")."""
        import hashlib

        message = re.sub(r"\b(lines?) \d+(?:\s*(?:-|–|to|and)\s*\d+)?", r"\1 #", self.message)
        h = hashlib.sha256()
        for part in (self.rule, self.path, message):
            h.update(part.encode("utf-8", "replace"))
            h.update(b"\0")
        return h.hexdigest()[:16]

    @classmethod
    def from_json(cls, d: dict) -> "Finding":
        """The finding of a JSON report's entry (``report.run.finding_json`` writes them)."""
        fx = d.get("fix")
        return cls(
            rule=d["rule"], message=d["message"], path=d["path"], line=d.get("line", 1),
            column=d.get("column", 1), severity=d.get("severity"),
            ocp_versions=list(d.get("ocp_versions") or []), bundle=d.get("bundle"),
            fix=Fix(fx["line"], fx["replacement"], fx.get("description", "")) if fx else None,
            detail=d.get("detail") or "", kind=d.get("kind") or "",
            gate=d.get("gate") if isinstance(d.get("gate"), dict) else None,
            baseline_state=d.get("baseline_state") or "",
        )
