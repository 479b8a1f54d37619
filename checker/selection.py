"""Choosing what to see: ``--select`` / ``--ignore`` (rule ids and prefixes), ``--severity``
(the lowest severity shown), ``--statistics`` (a count per rule) and ``--quiet``.

They apply to the settled findings (after profiles, configuration and inline ignores),
before the report is rendered:

* ``--select`` / ``--ignore`` decide which rules are *reported*, in every format, and so
  the exit code: a finding of an ignored rule neither shows nor fails the run (as in ruff).
  The JSON report's ``findings`` and ``summary`` hold the selected rules only.
  ``internal-error`` (a bug in olm-check) is never filtered out.
* ``--severity`` decides what is *shown* in the human formats (``text``, ``github``): the
  lowest severity listed. ``text`` hides ``info`` unless asked (``--severity info``);
  ``json`` and ``sarif`` always hold every selected finding. It never changes the exit code
  (``--fail-on`` does): a run that fails on a hidden finding says how many were hidden.
* ``--statistics`` prints one line per rule and severity with its count instead of the
  findings (``text``), or ``{"statistics": [...], "summary": {...}}`` (``json``).
* ``--quiet`` prints the findings only (``text``): no bundle lines, no summary.
* ``--output-format full|concise`` (ruff's name): ``text`` grouped by file with long
  messages wrapped (``full``, the default) or one line per finding (``concise``, for
  editors and grep); ``report.text`` renders both.
* ``--explain`` prints each finding's detail and its rule's page beneath it (``text``);
  ``--color`` colours the text report (``auto``: on a terminal, unless ``NO_COLOR`` is set).
  Text paths are relative to the current directory (``report.text.Paths``, set with
  ``View.paths``); the other formats keep the report's repository-relative paths.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

from .finding import SEVERITY_RANK, Finding
from .report.run import RunReport
from .suggest import did_you_mean
from .targets import Refused

ALWAYS = ("internal-error",)


def add_rule_choice(sp, verb: str = "report") -> None:
    """``--select`` / ``--ignore`` (``fix`` has them too: which rules' fixes are applied)."""
    follows = "; the exit code follows" if verb == "report" else ""
    sp.add_argument("--select", action="append", metavar="RULES",
                    help=f"{verb} only these rule ids or prefixes (comma-separated, e.g. csv-,removed-api){follows}")
    sp.add_argument("--ignore", action="append", metavar="RULES",
                    help=f"do not {verb} these rule ids or prefixes (comma-separated){follows}")


def add_arguments(sp) -> None:
    add_rule_choice(sp)
    sp.add_argument("--severity", choices=("error", "warning", "info"),
                    help="lowest severity shown in text/github output (default: warning in text, info hidden); "
                         "json and sarif hold every finding; the exit code is --fail-on's")
    sp.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of the findings")
    sp.add_argument("--quiet", "-q", action="store_true", help="print the findings only: no bundle lines, no summary")
    sp.add_argument("--explain", action="store_true",
                    help="text: print each finding's detail (why it matters, how to fix it) and its rule's page beneath it")
    sp.add_argument("--output-format", choices=("full", "concise"), default="full",
                    help="text: findings grouped by file, long messages wrapped (full, the default), "
                         "or one line per finding for editors and grep (concise)")
    sp.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                    help="colour in text output (default: auto, on a terminal unless NO_COLOR is set)")


def _items(values) -> list:
    out = []
    for v in values or ():
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def matches(rule_id: str, item: str) -> bool:
    """``item`` is the rule id or a prefix ending at a word of it (``csv`` and ``csv-`` match
    ``csv-name``; ``csv-na`` does not)."""
    return rule_id == item or rule_id.startswith(item if item.endswith("-") else item + "-")


class View:
    def __init__(self, fmt: str = "text", select: Optional[list] = None, ignore: Optional[list] = None,
                 severity: Optional[str] = None, statistics: bool = False, quiet: bool = False,
                 explain: bool = False, colour: bool = False, paths=None, form: str = "full"):
        self.fmt, self.select, self.ignore = fmt, select, ignore or []
        self.form = form
        self.severity, self.statistics, self.quiet = severity, statistics, quiet
        self.explain, self.colour = explain, colour and fmt == "text"
        self.paths = paths  # report.text.Paths for the text format (None: paths as in the report)

    @classmethod
    def from_args(cls, args) -> "View":
        """The view an argparse namespace asks for; unknown rule ids and prefixes refused
        (with the closest ids)."""
        from .rules import RULES, load_all

        load_all()
        select = _items(getattr(args, "select", None))
        ignore = _items(getattr(args, "ignore", None))
        ids = sorted(RULES) + list(ALWAYS)
        for opt, items in (("--select", select), ("--ignore", ignore)):
            for item in items:
                if not any(matches(r, item) for r in ids):
                    raise Refused(f"{opt}: '{item}' is not a rule id or the prefix of one{did_you_mean(item, ids)}; "
                                  "`olm-check rules` lists them")
        fmt = getattr(args, "format", "text")
        statistics = bool(getattr(args, "statistics", False))
        if statistics and fmt not in ("text", "json"):
            raise Refused(f"--statistics: prints text or json, not {fmt}")
        import sys

        from .report.text import use_colour

        return cls(fmt, select or None, ignore, getattr(args, "severity", None), statistics,
                   bool(getattr(args, "quiet", False)), bool(getattr(args, "explain", False)),
                   use_colour(getattr(args, "color", None) or "never", sys.stdout),
                   form=getattr(args, "output_format", None) or "full")

    def key(self) -> list:
        """What makes a rendered report differ (the run snapshot's key)."""
        from .report.text import terminal_width

        return [self.select, self.ignore, self.severity, self.statistics, self.quiet, self.explain, self.colour,
                self.paths.cwd if self.paths is not None else None, self.form,
                terminal_width() if self.fmt == "text" and self.form == "full" else None]

    def style(self):
        from .report.text import Style

        return Style(colour=self.colour, explain=self.explain, path=self.paths, form=self.form)

    def wanted(self, rule_id: str) -> bool:
        if rule_id in ALWAYS:
            return True
        if self.select is not None and not any(matches(rule_id, s) for s in self.select):
            return False
        return not any(matches(rule_id, i) for i in self.ignore)

    def choose(self, run: RunReport) -> RunReport:
        """The report of the selected rules: its findings and summary recounted when
        --select/--ignore dropped any."""
        if self.select is None and not self.ignore:
            return run
        kept = [f for f in run.findings if self.wanted(f.rule)]
        if len(kept) == len(run.findings):
            return run
        return run.selected(kept)

    def lowest(self) -> str:
        """The lowest severity shown in this format."""
        if self.fmt not in ("text", "github"):
            return "info"
        return self.severity or ("warning" if self.fmt == "text" else "info")

    def chunks(self, run: RunReport, rules: dict):
        """The rendered report in pieces (``report.report_chunks`` with this view)."""
        from .report import report_chunks

        findings = run.findings
        limit = SEVERITY_RANK[self.lowest()]
        shown = [f for f in findings if SEVERITY_RANK.get(f.severity or "", 0) >= limit]
        hidden = len(findings) - len(shown)
        if self.statistics:
            yield from self._statistics(run, shown if self.fmt == "text" else findings, findings, limit)
            return
        if self.fmt == "github":
            yield from report_chunks("github", replace(run, findings=tuple(shown)), rules)
            return
        if self.fmt != "text":
            yield from report_chunks(self.fmt, run, rules)
            return
        from .report.text import finding_lines, render

        style = self.style()
        if self.quiet:
            yield "".join(line + "\n" for line in finding_lines(shown, style, run.ocp_not_ga))
            return
        yield render(replace(run, findings=tuple(shown)), style)
        if hidden:
            yield self._hidden_note(findings, limit) + "\n"

    def _hidden_note(self, findings: Sequence[Finding], limit: int) -> str:
        counts: dict = {}
        for f in findings:
            if SEVERITY_RANK.get(f.severity or "", 0) < limit:
                counts[f.severity] = counts.get(f.severity, 0) + 1
        parts = []
        if counts.get("warning"):
            parts.append(f"{counts['warning']} warning(s)")
        if counts.get("info"):
            parts.append(f"{counts['info']} info")
        return f"not shown: {', '.join(parts)} (--severity info shows them)"

    def _statistics(self, run: RunReport, findings: Sequence[Finding], every: Sequence[Finding], limit: int):
        counts: dict = {}
        for f in findings:
            counts[(f.rule, f.severity)] = counts.get((f.rule, f.severity), 0) + 1
        rows = sorted(counts.items(), key=lambda kv: (-kv[1], -SEVERITY_RANK.get(kv[0][1], 0), kv[0][0]))
        if self.fmt == "json":
            import json

            yield json.dumps({"statistics": [{"rule": r, "severity": s, "count": n} for (r, s), n in rows],
                              "summary": run.summary.to_json()}, indent=2, ensure_ascii=False) + "\n"
            return
        width = max([len(str(n)) for _k, n in rows] + [1])
        out = [f"{n:>{width}}  {s:7}  {r}" for (r, s), n in rows]
        if not self.quiet:
            from .report.text import summary_line

            out.append(summary_line(run.summary))
            if len(every) > len(findings):
                out.append(self._hidden_note(every, limit))
        yield "".join(line + "\n" for line in out)
