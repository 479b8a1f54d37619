"""Scale (issue 6): the streaming engine gives the same findings however it runs.

On fixtures/catalog-small (three operators, eight bundles, file-based catalogs, a loose
CatalogSource, a duplicate key inside a CRD schema, an inline ignore): in-process, two
worker processes, sharded and merged, cached (cold, warm, after an edit), and with the
CRD-schema skipping disabled all give the same report.
"""
import json
import os
import shutil

import pytest

from checker.api import check
from checker.config import Config
from checker.discover import plan
from checker.engine import Context, run_stream
from checker.merge import MergeError, merge_reports

from conftest import FIXTURES
from helpers import run_cli

SMALL = os.path.join(FIXTURES, "catalog-small")


@pytest.fixture
def catalog(tmp_path, monkeypatch):
    dest = tmp_path / "catalog"
    shutil.copytree(SMALL, dest, symlinks=True)
    monkeypatch.chdir(dest)
    return str(dest)


def _key(report):
    """The whole report (minus a shard marker), as comparable data."""
    r = dict(report)
    r.pop("shard", None)
    return json.dumps(r, sort_keys=True)


def test_baseline_is_meaningful(catalog):
    res = check(["."])
    rules = {f.rule for f in res.findings}
    # the fixture exercises the bundle rules, the repository rules on facts, the prepare hook
    # (catalogs decide gamma-op's releases), skipped-subtree checks and inline ignores
    assert {"yaml-duplicate-key", "replaces-missing", "removed-api", "channel-naming"} <= rules
    assert not [f for f in res.findings if f.rule == "internal-error"]
    dup = [f for f in res.findings if f.rule == "yaml-duplicate-key"]
    assert [(f.path, f.line) for f in dup] == [("operators/alpha-op/0.2.0/manifests/example.com_widgets.yaml", 26)]
    assert len(res.report["bundles"]) == 8
    gamma = [b for b in res.report["bundles"] if b["path"].startswith("operators/gamma-op/")]
    assert [b["ocp_versions"] for b in gamma] == [["4.15", "4.16"], ["4.15", "4.16"]]
    # the ignore comment on beta-op 1.2.0's PodDisruptionBudget line silences removed-api there only
    removed = sorted(f.path for f in res.findings if f.rule == "removed-api")
    assert removed == ["operators/beta-op/1.1.0/manifests/pdb.yaml"]


def test_jobs_1_and_2_identical(catalog):
    one = check(["."], jobs=1)
    two = check(["."], jobs=2)
    assert _key(one.report) == _key(two.report)
    assert one.exit_code == two.exit_code == 1


@pytest.mark.parametrize("count", [2, 3])
def test_sharded_and_merged_identical(catalog, tmp_path, count):
    whole = run_cli("audit", ".", "--format", "json", "--jobs", "1", cwd=catalog)
    assert whole.returncode == 1, whole.stderr
    names = []
    sizes = []
    for i in range(1, count + 1):
        out = str(tmp_path / f"shard{i}.json")
        p = run_cli("audit", ".", "--format", "json", "--jobs", "1", "--shard", f"{i}/{count}", "--output", out, cwd=catalog)
        assert p.returncode in (0, 1), p.stderr
        rep = json.load(open(out))
        assert rep["shard"] == {"index": i, "count": count}
        sizes.append(len(rep["bundles"]))
        names.append(out)
    assert sum(sizes) == 8 and max(sizes) < 8  # each bundle in exactly one shard, the work is split
    merged = run_cli("merge", *reversed(names), cwd=catalog)
    assert merged.returncode == 1, merged.stderr
    assert _key(json.loads(merged.stdout)) == _key(json.loads(whole.stdout))


def test_merge_refuses_incomplete_or_mixed(catalog, tmp_path):
    out = str(tmp_path / "s1.json")
    run_cli("audit", ".", "--format", "json", "--shard", "1/2", "--output", out, cwd=catalog)
    rep = json.load(open(out))
    with pytest.raises(MergeError, match="shard\\(s\\) 2 of 2 missing"):
        merge_reports([("s1.json", rep)])
    with pytest.raises(MergeError, match="also in"):
        merge_reports([("a", rep), ("b", rep)])
    with pytest.raises(MergeError, match="not an olm-check JSON report"):
        merge_reports([("x", {"findings": []})])
    p = run_cli("merge", out, cwd=catalog)
    assert p.returncode == 2 and "missing" in p.stderr and "Traceback" not in p.stderr
    p = run_cli("audit", ".", "--shard", "3/2", cwd=catalog)
    assert p.returncode == 2 and "--shard" in p.stderr


def test_cache_cold_warm_and_edited(catalog, tmp_path):
    cache = str(tmp_path / "cache")
    fresh = check(["."])
    cold = check(["."], cache_dir=cache)
    assert cold.repo.extra["cache_stats"] == {"hits": 0, "misses": 8}
    warm = check(["."], cache_dir=cache, jobs=2)
    assert warm.repo.extra["cache_stats"] == {"hits": 8, "misses": 0}
    assert _key(fresh.report) == _key(cold.report) == _key(warm.report)

    # an edit re-checks that bundle only, and the result equals an uncached run
    csv = os.path.join(catalog, "operators/alpha-op/0.3.0/manifests/alpha-op.clusterserviceversion.yaml")
    text = open(csv).read().replace("replaces: alpha-op.v0.2.5", "replaces: alpha-op.v0.2.0")
    with open(csv, "w") as fh:
        fh.write(text)
    edited = check(["."], cache_dir=cache)
    assert edited.repo.extra["cache_stats"] == {"hits": 7, "misses": 1}
    assert _key(edited.report) == _key(check(["."]).report)
    assert "replaces-missing" not in {f.rule for f in edited.findings}

    # a catalog file of an FBC operator is an input of that operator's bundles
    cat = os.path.join(catalog, "catalogs/v4.16/gamma-op/catalog.yaml")
    shutil.rmtree(os.path.dirname(cat))
    again = check(["."], cache_dir=cache)
    assert again.repo.extra["cache_stats"] == {"hits": 6, "misses": 2}
    assert _key(again.report) == _key(check(["."]).report)
    gamma = [b for b in again.report["bundles"] if b["path"].startswith("operators/gamma-op/")]
    assert [b["ocp_versions"] for b in gamma] == [["4.15"], ["4.15"]]

    # a different profile or target is a different key
    other = check(["."], cache_dir=cache, target=["4.16"])
    assert other.repo.extra["cache_stats"]["misses"] == 8


def test_skipping_crd_schemas_loses_nothing(catalog):
    fast = check(["."])
    repo = plan(["."])
    repo.extra["reader"].skip_keys = frozenset()
    slow = run_stream(repo, Context(config=Config()))
    key = lambda fs: [(f.rule, f.severity, f.path, f.line, f.column, f.message) for f in fs]
    assert key(slow) == key(fast.findings)


def test_progress_bar_only_when_asked_or_on_a_terminal(catalog):
    quiet = run_cli("audit", ".", "--jobs", "2", cwd=catalog)
    assert quiet.stderr == ""
    shown = run_cli("audit", ".", "--progress", "always", cwd=catalog)
    assert "8/8 bundles" in shown.stderr
