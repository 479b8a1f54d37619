"""Terminal output, in two forms (``--output-format``, ruff's option name):

* ``full`` (the default): findings grouped by file -- the path once, then per finding
  ``line:col  severity  message  rule-id [OCP releases]``, the message wrapped at the
  terminal's width under itself, nothing cut (eslint's "stylish", ruff's ``full``);
* ``concise``: one line per finding, ``path:line:col: severity rule-id message [OCP releases]``,
  for editors and grep.

Then one line per bundle and the summary. Files and bundles are in natural order: version
numbers as numbers (``7.87.0`` before ``7.100.0``).

``Style`` says how: colour (on a terminal, never when ``NO_COLOR`` is set or stdout is not a
terminal, unless ``--color always``), ``--explain`` (each finding's detail -- the why and the
fix -- and its rule's page, indented beneath it), where paths are relative to (the current
directory: ``Paths``), the form and the width."""
from __future__ import annotations

import os
import re
import textwrap
from typing import Any, Callable, Optional, Sequence

from ..finding import Finding
from ..versions import release_ranges
from .run import BundleEntry, RunReport, Summary

RESET, BOLD, DIM = "\033[0m", "\033[1m", "\033[2m"
SEVERITY_COLOUR = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
ANSI = re.compile(r"\033\[[0-9;]*m")


def _ranges(versions: Sequence[str], preview: Sequence[str] = ()) -> str:
    """``versions.release_ranges``: '4.12-4.14, 4.16 (not GA)'."""
    return release_ranges(list(versions), preview)


def use_colour(mode: str, stream: Any) -> bool:
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

    def __init__(self, base: str, typed: Sequence[str] = (), cwd: Optional[str] = None):
        self.base = os.path.abspath(base)
        self.cwd = os.path.abspath(cwd or os.getcwd())
        # what the user typed for paths outside ``base`` (Reader.rel prints those as typed)
        self.typed: list[str] = []
        for p in typed:
            r = os.path.relpath(os.path.abspath(p), self.base)
            if r == os.pardir or r.startswith(os.pardir + os.sep):
                self.typed.append(p.replace(os.sep, "/").rstrip("/"))
        self._memo: dict[str, str] = {}

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


def terminal_width(default: int = 100) -> int:
    """The width text is wrapped at: ``COLUMNS``, else the terminal's, else ``default``
    (never under 60)."""
    import shutil

    try:
        cols = shutil.get_terminal_size((default, 24)).columns
    except (OSError, ValueError):
        cols = default
    return max(60, cols or default)


class Style:
    def __init__(self, colour: bool = False, explain: bool = False, path: Optional[Callable[[str], str]] = None,
                 form: str = "full", width: Optional[int] = None):
        self.colour, self.explain = colour, explain
        self.path = path or (lambda p: p)
        self.form = form
        self.width = width or terminal_width()

    def paint(self, text: str, code: str) -> str:
        return f"{code}{text}{RESET}" if self.colour and text else text


PLAIN = Style()


_NUMBER = re.compile(r"(\d+)")


def natural_key(path: str) -> tuple[tuple[tuple[int, int, str], ...], ...]:
    """Order of paths with version numbers as numbers: ``.../7.87.0/...`` before
    ``.../7.100.0/...`` (each run of digits compared as a number, the rest as text)."""
    out = []
    for part in str(path).split("/"):
        out.append(tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in _NUMBER.split(part) if t))
    return tuple(out)


def render(run: RunReport, style: Optional[Style] = None) -> str:
    """The report: ``run``'s findings (all of them: the caller chooses what is shown), a line
    per bundle, the summary, and the baseline's counts."""
    style = style or PLAIN
    preview = run.ocp_not_ga
    lines = finding_lines(run.findings, style, preview)
    if lines and style.form == "full":
        lines.append("")
    for b in sorted(run.bundles, key=lambda b: natural_key(b.path)):
        lines += _wrap(bundle_line(b, style, preview), style.width, "    ") if style.form == "full" else [bundle_line(b, style, preview)]
    lines.append(summary_line(run.summary))
    bl = run.baseline
    if bl:  # --baseline / --changed-since / a pull request: against what, and how many each
        lines.append(f"against {bl.ref[:12]}: {bl.new} new, {bl.updated} updated, {bl.unchanged} unchanged "
                     f"(only new and updated findings fail the run), {bl.absent} fixed")
    return "\n".join(lines) + "\n"


def summary_line(s: Summary) -> str:
    """``N bundle(s) checked: E error(s), W warning(s), I info``."""
    return f"{s.bundles} bundle(s) checked: {s.errors} error(s), {s.warnings} warning(s), {s.info} info"


def finding_lines(findings: Sequence[Finding], style: Style = PLAIN, preview: Sequence[str] = ()) -> list[str]:
    """The findings' lines in ``style.form``: ``full`` groups them by file (in natural order,
    by line within a file), ``concise`` prints one line each (in the report's order)."""
    lines = []
    if style.form == "concise":
        for f in findings:
            lines.append(finding_line(f, style, preview))
            if style.explain:
                lines += explain_lines(f, style)
        return lines
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    for path in sorted(by_file, key=natural_key):
        group = sorted(by_file[path], key=lambda f: (f.line, f.column))
        if lines:
            lines.append("")
        lines.append(style.paint(style.path(path), BOLD) if path else "(no file)")
        where = [f"{f.line}:{f.column}" for f in group]
        w_where = max(len(w) for w in where)
        w_sev = max(len(f.severity) for f in group)
        for f, at in zip(group, where):
            lines += _full_lines(f, at, w_where, w_sev, style, preview)
            if style.explain:
                lines += explain_lines(f, style, indent=" " * (2 + w_where + 2 + w_sev + 2))
    return lines


def _full_lines(f: Finding, at: str, w_where: int, w_sev: int, style: Style, preview: Sequence[str]) -> list[str]:
    """``  line:col  severity  message  rule-id [OCP ...]``, wrapped at ``style.width`` with
    the continuation under the message; words are never broken, so nothing is cut."""
    ocp = f"[OCP {_ranges(f.ocp_versions, preview)}]" if f.ocp_versions and not _named(f) else ""
    head = f"  {at:<{w_where}}  {f.severity:<{w_sev}}  "
    indent = " " * len(head)
    state = f"({f.baseline_state})" if getattr(f, "baseline_state", "") else ""  # against a baseline: new, unchanged, updated
    tail = [x for x in (ocp, state) if x]
    tokens = [(w, " ") for w in f.message.split(" ") if w] + [(f.rule, "  ")] + [(x, " ") for x in tail]
    if style.colour:
        dim = {f.rule, *tail}
        tokens = [(style.paint(w, DIM) if i >= len(tokens) - 1 - len(tail) and w in dim else w, sep)
                  for i, (w, sep) in enumerate(tokens)]
        sev = style.paint(f.severity, SEVERITY_COLOUR.get(f.severity, BOLD)) + " " * (w_sev - len(f.severity))
        shown_head = f"  {style.paint(at, DIM)}{' ' * (w_where - len(at))}  {sev}  "
    else:
        shown_head = head
    out = _fill(tokens, style.width - len(head))
    return [shown_head + out[0]] + [indent + l for l in out[1:]]


def _fill(tokens: list[tuple[str, str]], room: int) -> list[str]:
    """Lines of ``(word, separator before it)`` tokens, each at most ``room`` columns where
    the words allow (a longer word stays whole on its own line; colour codes do not count)."""
    room = max(30, room)
    out, cur, n = [], "", 0
    for w, sep in tokens:
        wl = len(strip_colour(w)) if "\033" in w else len(w)
        if cur and n + len(sep) + wl > room:
            out.append(cur)
            cur, n = w, wl
        elif cur:
            cur, n = cur + sep + w, n + len(sep) + wl
        else:
            cur, n = w, wl
    out.append(cur)
    return out


def _wrap(text: str, width: int, indent: str) -> list[str]:
    """``text`` in lines of at most ``width`` columns where words allow (a word longer than
    the line stays whole), continuation lines after ``indent``."""
    lines = textwrap.wrap(text, width=max(30, width), subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False)
    return lines or [text]


def bundle_line(b: BundleEntry, style: Style = PLAIN, preview: Sequence[str] = ()) -> str:
    label = b.ocp_label if b.ocp_label is not None else "(no com.redhat.openshift.versions)"
    pub = _ranges(b.ocp_versions, preview) or "none"
    inst = _ranges(b.ocp_installable, preview) or "none"
    who = b.csv or b.package or "?"
    return (f"bundle {style.path(b.path)}: {who}; label {label}; published to OCP {pub}; "
            f"minKubeVersion allows {inst}")


def finding_line(f: Finding, style: Style = PLAIN, preview: Sequence[str] = ()) -> str:
    """One finding: ``path:line:col: severity rule-id message [OCP releases]``; the releases
    are left out of the line when the message names them already (``--explain`` prints them)."""
    ocp = f" [OCP {_ranges(f.ocp_versions, preview)}]" if f.ocp_versions and not _named(f) else ""
    where = f"{style.path(f.path)}:{f.line}:{f.column}:"
    state = f" ({getattr(f, 'baseline_state', '')})" if getattr(f, "baseline_state", "") else ""  # a baseline's state
    if not style.colour:
        return f"{where} {f.severity} {f.rule} {f.message}{ocp}{state}"
    sev = style.paint(f.severity, SEVERITY_COLOUR.get(f.severity, BOLD))
    return f"{style.paint(where, BOLD)} {sev} {style.paint(f.rule, DIM)} {f.message}{style.paint(ocp + state, DIM)}"


def explain_lines(f: Finding, style: Style = PLAIN, indent: str = "    ") -> list[str]:
    """``--explain``: the finding's detail (why, and the fix), its one-line fix when it has one,
    and its rule's page, indented beneath the finding."""
    from .links import help_uri

    out = []
    if f.ocp_versions and _named(f):
        out.append(f"{indent}OCP releases: {_ranges(f.ocp_versions)}")
    if f.detail:
        out += textwrap.wrap(f.detail, width=max(len(indent) + 40, min(style.width, 120)), initial_indent=indent,
                             subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    if f.fix is not None and f.fix.description:
        out.append(f"{indent}fix (line {f.fix.line}): {f.fix.description}")
    uri = help_uri(f.rule)
    if uri:
        out.append(indent + style.paint(f"see {uri}", DIM))
    return out


def _named(f: Finding) -> bool:
    """True when the finding's message names exactly its releases already ('... on OpenShift
    4.14-4.22')."""
    return _ranges(f.ocp_versions) in f.message
