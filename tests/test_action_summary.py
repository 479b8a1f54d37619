"""The summary comment as a reviewer reads it, rendered with cmarkgfm as GitHub renders it:
the verdict first, what the pull request introduces (with each fix text), what is unchanged
from the previous bundle collapsed, rows by severity, paths relative to the operator and
linked to the head's lines, and a per-release table only when the releases differ."""
from __future__ import annotations

import html
import re

import cmarkgfm

from fakegithub.plugin import fake_github_fixture  # noqa: F401  (fixture fake_github)
from test_action_baseline import _base_repo, _commit, _edit, _next_bundle
from test_action_e2e import git, run_action, sync_pull

from checker.finding import Finding
from checker.report import markdown as md


def _render(body: str) -> str:
    """GitHub's rendering: cmark-gfm with raw HTML kept (GitHub then keeps an allowlist of
    tags, <details>, <summary> and <br> among them)."""
    from cmarkgfm.cmark import Options

    return cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE)


def _dup(csv):
    _edit(csv, "    capabilities: Basic Install\n", "    capabilities: Basic Install\n    capabilities: Seamless Upgrades\n")


def test_the_summary_comment_leads_with_the_verdict_and_what_is_new(fake_github, tmp_path):
    fake = fake_github
    ws = _base_repo(tmp_path)
    base = git(ws, "rev-parse", "main")
    new = _next_bundle(ws, extra=_dup)
    head = _commit(ws)
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run")
    assert r["rc"] == 1
    body = fake.issue_comments_for(1)[0].body
    lines = body.split("\n")
    assert lines[1] == "## olm-check" and lines[3].startswith("❌ **Blocks:** 1 new error · "), lines[:5]
    out = _render(body)
    # introduced: the new duplicate key, with its fix text (the detail), before anything unchanged
    intro = out.index("Introduced by this pull request")
    details = out.index("<details>")
    assert intro < details
    dup = next(f for f in r["report"]["findings"] if f["rule"] == "yaml-duplicate-key")
    assert dup["baseline_state"] == "new" and dup["detail"]
    assert dup["detail"][:40] in html.unescape(re.sub(r"<[^>]+>", "", out[intro:details]))
    # unchanged: collapsed, named after the previous bundle
    summary = re.search(r"<summary>(.*?)</summary>", out).group(1)
    assert summary.startswith("1 unchanged from 1.0.0"), summary
    assert "skip-range" in out[details:]
    # paths relative to the operator directory, linked to the line at the head
    rel = dup["path"][len("operators/example-operator/"):]
    server, repo = r["env"]["GITHUB_SERVER_URL"], r["env"]["GITHUB_REPOSITORY"]
    link = f'{server}/{repo}/blob/{head}/{dup["path"]}#L{dup["line"]}'
    assert f'<a href="{link}"><code>{rel}:{dup["line"]}</code></a>' in out, out
    assert f"<code>{dup['path']}:" not in out  # (the full path is not repeated on every row)
    assert new.endswith("1.1.0") and "relative to <code>operators/example-operator/</code>" in out
    # one table per release range only when the releases differ: not here
    assert "OCP release" not in out
    assert fake.violations == []


def test_a_pull_request_with_only_inherited_findings_passes(fake_github, tmp_path):
    fake = fake_github
    ws = _base_repo(tmp_path)
    base = git(ws, "rev-parse", "main")
    _next_bundle(ws)
    head = _commit(ws)
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run")
    assert r["rc"] == 0
    body = fake.issue_comments_for(1)[0].body
    assert body.split("\n")[3].startswith("✅ **Passes:** no new errors · 0 new, 0 updated, 1 unchanged")
    assert "Introduced by this pull request" not in body
    # the job summary reads the same
    assert "✅ **Passes:** no new errors" in r["summary"]


def _report(ranges: list) -> dict:
    return {"bundles": [{"path": "operators/op/1.0.0", "csv": "op.v1.0.0", "ocp_label": "v4.14", "ocp_versions": ranges,
                         "ocp_installable": ranges}],
            "ocp_not_ga": [], "summary": {"bundles": 1, "errors": 2, "warnings": 1, "info": 0}}


def test_rows_by_severity_and_the_release_table_only_when_it_says_something():
    fs = [Finding("r-warn", "a warning here", "operators/op/1.0.0/a.yaml", 1, severity="warning"),
          Finding("r-err", "an error everywhere", "operators/op/1.0.0/z.yaml", 9, severity="error"),
          Finding("r-err2", "an error on 4.15 only", "operators/op/1.0.0/b.yaml", 3, severity="error",
                  ocp_versions=["4.15"])]
    text = md.summary(_report(["4.14", "4.15"]), fs)
    rows = [line for line in text.splitlines() if line.startswith("| ") and ("r-" in line)]
    assert [("r-err" in r and "r-err2" not in r, "r-err2" in r, "r-warn" in r) for r in rows] == \
        [(False, True, False), (True, False, False), (False, False, True)]  # errors first (then by path)
    assert "| OCP release | errors | warnings |" in text and "| 4.14 | 1 | 1 |" in text and "| 4.15 | 2 | 1 |" in text
    same = md.summary(_report(["4.14", "4.15"]), fs[:2])
    assert "OCP release" not in same  # the same findings on every release: the range says it
    assert md.summary(_report(["4.14"]), []).split("\n")[2] == "✅ **Passes:** no errors"
