"""Terminal output: `path:line:col: severity rule message`, then one line per bundle."""
from __future__ import annotations

from ..versions import release_ranges as _ranges


def render(report, findings, rules) -> str:
    lines = [finding_line(f) for f in findings]
    for b in report["bundles"]:
        label = b["ocp_label"] if b["ocp_label"] is not None else "(no com.redhat.openshift.versions)"
        pub = _ranges(b["ocp_versions"]) or "none"
        inst = _ranges(b["ocp_installable"]) or "none"
        who = b["csv"] or b["package"] or "?"
        lines.append(f"bundle {b['path']}: {who}; label {label}; published to OCP {pub}; installable on {inst}")
    s = report["summary"]
    lines.append(f"{s['bundles']} bundle(s) checked: {s['errors']} error(s), {s['warnings']} warning(s), {s['info']} info")
    return "\n".join(lines) + "\n"


def finding_line(f) -> str:
    """One finding: ``path:line:col: severity rule message [OCP releases]``."""
    ocp = f" [OCP {_ranges(f.ocp_versions)}]" if f.ocp_versions else ""
    return f"{f.path}:{f.line}:{f.column}: {f.severity} {f.rule} {f.message}{ocp}"


