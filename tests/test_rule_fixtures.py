"""Every rule has bad and good fixtures: fixtures/rules/<rule-id>/<bad*|good*>/.

A case directory is checked as a user would check it (copied to a fresh directory, paths
relative to it). A case whose expect.yaml names a `base` (and maybe `remove`s) is an overlay of
fixtures/bases/<base>: it is checked materialised, the base with the case's own files over it
(scripts/fixtures_dedupe.py, conftest.FIXTURES). Its expect.yaml may set `check` (path to check, default "."), `profile`,
`ocp`, `changes` (a pull request's change list: `[{status, path, previous_path?}]`), and for bad cases lists `findings`: each expected finding's rule, severity, path,
line (column optional) must be reported; `contains` is text its message or detail holds,
`detail` (or `detail_contains`) text its detail (the why and the fix) holds. Good cases must
report nothing for the rule.
No case may produce an internal error.
"""
import os

import pytest
import yaml

from checker.api import check
from checker.rules import RULES, load_all

from conftest import FIXTURES
from helpers import message_length

RULE_DIR = os.path.join(FIXTURES, "rules")

def _cases():
    out = []
    if not os.path.isdir(RULE_DIR):
        return out
    for rid in sorted(os.listdir(RULE_DIR)):
        for case in sorted(os.listdir(os.path.join(RULE_DIR, rid))):
            if case.startswith(("bad", "good")):
                out.append((rid, case))
    return out


def _expect(rid, case):
    p = os.path.join(RULE_DIR, rid, case, "expect.yaml")
    if os.path.exists(p):
        with open(p) as fh:
            return yaml.safe_load(fh) or {}
    return {}


def _run(copy_fixture, rid, case, exp):
    copy_fixture(os.path.join("rules", rid, case))
    target = exp.get("ocp")
    changes = None
    if exp.get("changes") is not None:  # a pull request's change list (pr-shape)
        from checker.model import FileChange

        changes = [FileChange(c["status"], c["path"], c.get("previous_path")) for c in exp["changes"]]
    res = check([exp.get("check", ".")], profile=exp.get("profile"),
                target=[str(t) for t in str(target).split(",")] if target else None, changes=changes)
    internal = [f for f in res.findings if f.rule == "internal-error"]
    assert not internal, [f.message for f in internal]
    from checker.gates import tables

    kinds = tables().kinds
    for f in res.findings:  # a finding's kind is one the gates' data judges (never a silent fallback)
        assert not f.kind or f.kind in kinds.get(f.rule, {}), f"{f.rule}: kind {f.kind!r} is not in checker/data/verdicts.yaml"
    return res


@pytest.mark.parametrize("rid,case", _cases())
def test_rule_case(rid, case, copy_fixture):
    load_all()
    assert rid in RULES, f"fixtures/rules/{rid}: no such rule id"
    exp = _expect(rid, case)
    res = _run(copy_fixture, rid, case, exp)
    # what a finding says: its message and its detail (the why and the fix); "contains" matches either
    got = [(f.rule, f.severity, f.path, f.line, f.column, f.message + "\n" + f.detail, f.detail) for f in res.findings]
    for f in res.findings:  # every rule: a one-sentence message, the why and the fix in the detail
        if f.rule == rid:
            assert message_length(f.message) <= 150 and "\n" not in f.message, f.message
            assert f.detail, f"{rid}: no detail for {f.message!r}"
    if case.startswith("good"):
        mine = [g for g in got if g[0] == rid]
        assert not mine, f"good case reported {rid}: {mine}"
        return
    wanted = exp.get("findings") or []
    assert wanted, f"{rid}/{case}: expect.yaml lists no findings"
    for w in wanted:
        match = [g for g in got if g[0] == w["rule"] and g[1] == w["severity"] and g[2] == w["path"] and g[3] == w["line"]
                 and ("column" not in w or g[4] == w["column"]) and ("contains" not in w or w["contains"] in g[5])
                 and ("detail_contains" not in w or w["detail_contains"] in g[6])
                 and ("detail" not in w or w["detail"] in g[6])]
        assert match, f"expected {w} in {[g[:5] for g in got]}"


def test_every_rule_has_bad_and_good_fixtures():
    load_all()
    cases = _cases()
    missing = []
    for rid in sorted(RULES):
        mine = [c for r, c in cases if r == rid]
        if not (any(c.startswith("bad") for c in mine) and any(c.startswith("good") for c in mine)):
            missing.append(rid)
    assert not missing, f"rules without a bad and a good fixture: {missing}"
