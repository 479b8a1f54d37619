"""Terminal output: ``path:line:col: severity rule-id message [OCP releases]``, then one line
per bundle and the summary.

``Style`` says how: colour (on a terminal, never when ``NO_COLOR`` is set or stdout is not a
terminal, unless ``--color always``), ``--explain`` (each finding's detail -- the why and the
fix -- and its rule's page, indented beneath it) and where paths are relative to (the
current directory: ``Paths``)."""
from __future__ import annotations

import os
import re
import textwrap
from typing import Callable, Optional

from ..versions import release_ranges as _ranges

RESET, BOLD, DIM = "\033[0m", "\033[1m", "\033[2m"
SEVERITY_COLOUR = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
ANSI = re.compile(r"\033\[[0-9;]*m")


def use_colour(mode: str, stream) -> bool:
    """``--color auto|always|never``: auto is colour on a terminal, unless ``NO_COLOR`` is set
    to anything but the empty string (https://no-color.org) or ``TERM`` is ``dumb``; the
    command-line option wins over ``NO_COLOR``."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def strip_colour(text: str) -> str:
    return ANSI.sub("", text)


class Paths:
    """Report paths (relative to the root of the git work tree around the checked paths:
    ``roots.display_base``) made relative to the current directory, as a linter prints
    them, so that they open from where the command ran. A path the user typed outside that
    root is printed as typed already (``Reader.rel``), and an absolute path stays absolute."""

    def __init__(self, base: str, typed: list = (), cwd: Optional[str] = None):
        self.base = os.path.abspath(base)
        self.cwd = os.path.abspath(cwd or os.getcwd())
        # what the user typed for paths outside ``base`` (Reader.rel prints those as typed)
        self.typed = []
        for p in typed:
            r = os.path.relpath(os.path.abspath(p), self.base)
            if r == os.pardir or r.startswith(os.pardir + os.sep):
                self.typed.append(p.replace(os.sep, "/").rstrip("/"))
        self._memo: dict = {}

    def __call__(self, path: str) -> str:
        if self.base == self.cwd or not path or os.path.isabs(path):
            return path
        got = self._memo.get(path)
        if got is None:
            if any(t and (path == t or path.startswith(t + "/")) for t in self.typed):
                got = path
            else:
                got = os.path.relpath(os.path.join(self.base, path), self.cwd).replace(os.sep, "/")
            if len(self._memo) < 65536:
                self._memo[path] = got
        return got


class Style:
    def __init__(self, colour: bool = False, explain: bool = False, path: Optional[Callable] = None):
        self.colour, self.explain = colour, explain
        self.path = path or (lambda p: p)

    def paint(self, text: str, code: str) -> str:
        return f"{code}{text}{RESET}" if self.colour and text else text


PLAIN = Style()


def render(report, findings, rules, style: Optional[Style] = None) -> str:
    style = style or PLAIN
    preview = report.get("ocp_not_ga") or ()
    lines = []
    for f in findings:
        lines.append(finding_line(f, style, preview))
        if style.explain:
            lines += explain_lines(f, style)
    for b in report["bundles"]:
        lines.append(bundle_line(b, style, preview))
    s = report["summary"]
    lines.append(f"{s['bundles']} bundle(s) checked: {s['errors']} error(s), {s['warnings']} warning(s), {s['info']} info")
    bl = report.get("baseline")
    if bl:  # --baseline / --changed-since / a pull request: against what, and how many each
        lines.append(f"against {bl['ref'][:12]}: {bl['new']} new, {bl['updated']} updated, {bl['unchanged']} unchanged "
                     f"(only new and updated findings fail the run), {bl['absent']} fixed")
    return "\n".join(lines) + "\n"


def bundle_line(b: dict, style: Style = PLAIN, preview=()) -> str:
    label = b["ocp_label"] if b["ocp_label"] is not None else "(no com.redhat.openshift.versions)"
    pub = _ranges(b["ocp_versions"], preview) or "none"
    inst = _ranges(b["ocp_installable"], preview) or "none"
    who = b["csv"] or b["package"] or "?"
    return f"bundle {style.path(b['path'])}: {who}; label {label}; published to OCP {pub}; installable on {inst}"


def finding_line(f, style: Style = PLAIN, preview=()) -> str:
    """One finding: ``path:line:col: severity rule-id message [OCP releases]``; the releases
    are left out of the line when the message names them already (``--explain`` prints them)."""
    ocp = f" [OCP {_ranges(f.ocp_versions, preview)}]" if f.ocp_versions and not _named(f) else ""
    where = f"{style.path(f.path)}:{f.line}:{f.column}:"
    state = f" ({getattr(f, 'baseline_state', '')})" if getattr(f, "baseline_state", "") else ""  # a baseline's state
    if not style.colour:
        return f"{where} {f.severity} {f.rule} {f.message}{ocp}{state}"
    sev = style.paint(f.severity, SEVERITY_COLOUR.get(f.severity, BOLD))
    return f"{style.paint(where, BOLD)} {sev} {style.paint(f.rule, DIM)} {f.message}{style.paint(ocp + state, DIM)}"


def explain_lines(f, style: Style = PLAIN) -> list:
    """``--explain``: the finding's detail (why, and the fix), its one-line fix when it has one,
    and its rule's page, indented beneath the finding."""
    from .links import help_uri

    out = []
    if f.ocp_versions and _named(f):
        out.append(f"    OCP releases: {_ranges(f.ocp_versions)}")
    if f.detail:
        out += textwrap.wrap(f.detail, width=100, initial_indent="    ", subsequent_indent="    ",
                             break_long_words=False, break_on_hyphens=False)
    if f.fix is not None and f.fix.description:
        out.append(f"    fix (line {f.fix.line}): {f.fix.description}")
    uri = help_uri(f.rule)
    if uri:
        out.append("    " + style.paint(f"see {uri}", DIM))
    return out


def _named(f) -> bool:
    """True when the finding's message names exactly its releases already ('... on OpenShift
    4.14-4.22')."""
    return _ranges(f.ocp_versions) in f.message
