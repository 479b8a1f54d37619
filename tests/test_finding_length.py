"""Findings people read (issue 19): the finding lines of the text report are short enough to
read in a terminal. Over every fixture that produces findings (fixtures/rules/*/*,
fixtures/bundles/*, fixtures/repos/*, fixtures/catalog-small), each checked from its own
directory as a user would (the default text report: errors and warnings, paths relative to
the current directory), the 95th percentile line is at most 160 characters.

The report is rendered by the CLI's own code (``selection.View`` and ``report.text``), in
this process: a subprocess per fixture would take minutes."""
import math
import os
import shutil

import pytest
import yaml

from checker.api import check
from checker.load import display_base_for
from checker.report.text import Paths
from checker.rules import RULES, load_all
from checker.selection import View

from conftest import FIXTURES

LIMIT = 160
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


def test_the_95th_percentile_finding_line_is_at_most_160_characters(finding_lines):
    assert len(finding_lines) > 200  # the fixtures do produce findings
    lengths = sorted(len(l) for _r, l in finding_lines)
    p95 = lengths[math.ceil(len(lengths) * PERCENTILE / 100) - 1]
    over = {}
    for rule, line in finding_lines:
        if len(line) > LIMIT:
            over[rule] = max(over.get(rule, 0), len(line))
    worst = ", ".join(f"{r} ({n})" for r, n in sorted(over.items(), key=lambda kv: -kv[1]))
    assert p95 <= LIMIT, f"95th percentile finding line: {p95} characters (> {LIMIT}); longest per rule: {worst}"
