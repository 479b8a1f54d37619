"""Terminal output: `path:line:col: severity rule message`, then one line per bundle."""
from __future__ import annotations


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


def _ranges(versions: list) -> str:
    """['4.12','4.13','4.14','4.16'] -> '4.12-4.14, 4.16' (releases in table order)."""
    if not versions:
        return ""
    def key(v):
        a, b = v.split(".")
        return int(a), int(b)
    vs = sorted(set(versions), key=key)
    out, start, prev = [], vs[0], vs[0]
    for v in vs[1:]:
        if key(v) == (key(prev)[0], key(prev)[1] + 1):
            prev = v
            continue
        out.append(start if start == prev else f"{start}-{prev}")
        start = prev = v
    out.append(start if start == prev else f"{start}-{prev}")
    return ", ".join(out)
