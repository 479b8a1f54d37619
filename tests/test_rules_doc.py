"""docs/rules.md is generated from the registry (SARIF helpUri and the README link to it):
it must match what `olm-check rules --format markdown` prints now."""
import os

from conftest import ROOT
from helpers import run_cli


def test_rules_reference_is_up_to_date():
    p = run_cli("rules", "--format", "markdown")
    assert p.returncode == 0
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == p.stdout, "docs/rules.md is stale: regenerate it with `olm-check rules --format markdown > docs/rules.md`"
    for line in p.stdout.splitlines():
        if line.startswith("## "):
            assert " " not in line[3:], "rule headings must be bare ids so #<id> anchors work"


def test_every_error_names_who_refuses_it():
    """rules.md: a rule that can report an error names the component that refuses or breaks
    it, with a source; `olm-check rules --format json` carries it."""
    import json

    p = run_cli("rules", "--format", "json")
    assert p.returncode == 0
    rules = json.loads(p.stdout)["rules"]
    missing = [r["id"] for r in rules
               if (r["severity"] == "error" or "error" in r["profiles"].values()) and not r["refused_by"]]
    assert missing == [], f"error-capable rules without refused_by: {missing}"
    for r in rules:
        for x in r["refused_by"]:
            assert x["component"] and x["what"] and x["source"]
