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
from checker.engine import Context
from checker.runner import run as run_stream
from checker.runner.merge import MergeError, merge_reports

from conftest import FIXTURES, FIXTURES_SRC
from helpers import run_cli



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


def test_sharded_and_merged_identical_in_process(catalog):
    whole = check(["."])
    reports = []
    for i in range(3):
        res = check(["."], shard=(i, 3), jobs=2)
        rep = json.loads(json.dumps(res.report))
        rep["shard"] = {"index": i + 1, "count": 3}
        reports.append((f"shard{i + 1}", rep))
    assert sorted(len(r["bundles"]) for _, r in reports) == [0, 3, 5]  # an empty shard is fine
    merged, _ = merge_reports(list(reversed(reports)))
    assert _key(merged) == _key(json.loads(json.dumps(whole.report)))


@pytest.mark.parametrize("count", [2])
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
    assert cold.repo.cache_stats == {"hits": 0, "misses": 8}
    warm = check(["."], cache_dir=cache, jobs=2)
    assert warm.repo.cache_stats == {"hits": 8, "misses": 0}
    assert _key(fresh.report) == _key(cold.report) == _key(warm.report)

    # an edit re-checks that bundle only, and the result equals an uncached run
    csv = os.path.join(catalog, "operators/alpha-op/0.3.0/manifests/alpha-op.clusterserviceversion.yaml")
    text = open(csv).read().replace("replaces: alpha-op.v0.2.5", "replaces: alpha-op.v0.2.0")
    with open(csv, "w") as fh:
        fh.write(text)
    edited = check(["."], cache_dir=cache)
    assert edited.repo.cache_stats == {"hits": 7, "misses": 1}
    assert _key(edited.report) == _key(check(["."]).report)
    assert "replaces-missing" not in {f.rule for f in edited.findings}

    # a catalog file of an FBC operator is an input of that operator's bundles
    cat = os.path.join(catalog, "catalogs/v4.16/gamma-op/catalog.yaml")
    shutil.rmtree(os.path.dirname(cat))
    again = check(["."], cache_dir=cache)
    assert again.repo.cache_stats == {"hits": 6, "misses": 2}
    assert _key(again.report) == _key(check(["."]).report)
    gamma = [b for b in again.report["bundles"] if b["path"].startswith("operators/gamma-op/")]
    assert [b["ocp_versions"] for b in gamma] == [["4.15"], ["4.15"]]

    # a different profile or target is a different key
    other = check(["."], cache_dir=cache, target=["4.16"])
    assert other.repo.cache_stats["misses"] == 8


def test_cache_keys_made_by_the_workers_of_a_new_cache_serve_the_next_run(catalog, tmp_path):
    """A run whose settings never stored a result (a new cache, another olm-check version or
    configuration) cannot hit: each bundle's key is made in the worker that checks it, from
    the files as it read them, instead of hashing the catalog up front. The next run, which
    makes every key up front, must find every result those keys stored, and the file index
    they filled must hold each file's true digest."""
    import hashlib
    import sqlite3

    for dirpath, _, files in os.walk(catalog):  # old files: the index may trust their times
        for f in files:
            os.utime(os.path.join(dirpath, f), ns=(10**18, 10**18))
    cache = str(tmp_path / "cache")
    fresh = check(["."])
    cold = check(["."], cache_dir=cache, jobs=2)
    assert cold.repo.cache_stats == {"hits": 0, "misses": 8}
    db = sqlite3.connect(os.path.join(cache, "olm-check-cache.sqlite"))
    index = {os.fsdecode(p): d for p, d in db.execute("SELECT path, digest FROM files")}
    db.close()
    csvs = [p for p in index if p.endswith(".clusterserviceversion.yaml")]
    assert len(csvs) == 8
    for p in index:
        with open(p, "rb") as fh:
            assert index[p] == hashlib.sha256(fh.read()).digest(), p
    warm = check(["."], cache_dir=cache, jobs=1)
    assert warm.repo.cache_stats == {"hits": 8, "misses": 0}
    assert _key(fresh.report) == _key(cold.report) == _key(warm.report)
    # an edited file is a miss for its bundle only, however the keys were made
    csv = os.path.join(catalog, "operators/beta-op/1.1.0/manifests/beta-op.clusterserviceversion.yaml")
    with open(csv, "a") as fh:
        fh.write("# edited\n")
    edited = check(["."], cache_dir=cache, jobs=2)
    assert edited.repo.cache_stats == {"hits": 7, "misses": 1}
    assert _key(edited.report) == _key(check(["."]).report)


def test_cache_keys_failing_in_a_worker_leave_the_run_whole(catalog, tmp_path, monkeypatch):
    """If making the keys where the bundles were checked fails (a file vanishing under the
    run), the run still reports everything, and this process keys and stores the results."""
    from checker.runner.cache import Cache

    def broken(*args, **kwargs):
        raise OSError("gone")

    cache = str(tmp_path / "cache")
    with monkeypatch.context() as m:
        m.setattr(Cache, "keys_for", broken)
        cold = check(["."], cache_dir=cache)
    assert _key(cold.report) == _key(check(["."]).report)
    warm = check(["."], cache_dir=cache)
    assert warm.repo.cache_stats == {"hits": 8, "misses": 0}


def test_cache_drops_results_unused_for_30_days(catalog, tmp_path):
    """Results read by a run are kept (their use renewed); results no run used for 30 days --
    here, those of another --ocp target -- are dropped when a run closes the cache."""
    import sqlite3
    import time

    cache = str(tmp_path / "cache")
    db_path = os.path.join(cache, "olm-check-cache.sqlite")

    def age_all(days):
        db = sqlite3.connect(db_path)
        db.execute("UPDATE results SET used=?", (time.time() - days * 86400,))
        db.commit()
        db.close()

    def rows():
        db = sqlite3.connect(db_path)
        try:
            return db.execute("SELECT COUNT(*), MIN(used) FROM results").fetchone()
        finally:
            db.close()

    check(["."], cache_dir=cache)
    stored = rows()[0]
    assert stored >= 8
    age_all(40)
    warm = check(["."], cache_dir=cache)
    assert warm.repo.cache_stats == {"hits": 8, "misses": 0}
    count, oldest = rows()
    assert count == stored and oldest > time.time() - 3600  # read again: kept and renewed
    age_all(40)
    check(["."], cache_dir=cache, target=["4.16"])  # other keys: the old results are unused
    count, oldest = rows()
    assert count == stored and oldest > time.time() - 3600  # only the new run's results are left


def test_skipping_crd_schemas_loses_nothing(catalog):
    fast = check(["."])
    repo = plan(["."])
    repo.reader.skip_keys = frozenset()
    slow = run_stream(repo, Context(config=Config()))
    key = lambda fs: [(f.rule, f.severity, f.path, f.line, f.column, f.message) for f in fs]
    assert key(slow) == key(fast.findings)


def test_collector_is_tuned_while_checking_and_restored_after(catalog):
    """The cyclic collector's default thresholds cost 10-15% of a catalog audit's CPU (it
    walked every live node again and again while CSVs were built); checking raises them, and
    a library caller gets its own thresholds back."""
    import gc

    from checker.runner.processes import CHECK_GC_THRESHOLDS

    saved = gc.get_threshold()
    seen = []
    try:
        gc.set_threshold(1234, 5, 6)
        res = check(["."], progress=lambda done, total: seen.append(gc.get_threshold()))
        assert gc.get_threshold() == (1234, 5, 6)
    finally:
        gc.set_threshold(*saved)
    assert seen and set(seen) == {CHECK_GC_THRESHOLDS}
    assert CHECK_GC_THRESHOLDS[0] >= 10_000
    assert len(res.report["bundles"]) == 8


def test_progress_bar_only_when_asked_or_on_a_terminal(catalog):
    quiet = run_cli("audit", ".", "--jobs", "2", cwd=catalog)
    assert quiet.stderr == ""
    shown = run_cli("audit", ".", "--progress", "always", cwd=catalog)
    assert "8/8 bundles" in shown.stderr


# --- the fast YAML path (checker.fastyaml) gives exactly what the full parse gives ---------

SCHEMA_DOCS = {
    "plain": "spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          a: {type: string}\n    served: true\n",
    "comment-after-key": "spec:\n  validation:\n    openAPIV3Schema:   # the schema\n      type: object\n  # a comment at the left\n      properties: {}\n  names: {kind: K}\n",
    "at-end-no-newline": "spec:\n  schema:\n    openAPIV3Schema:\n      type: object",
    "sequence-value": "spec:\n  openAPIV3Schema:\n    - a\n    - b\n  x: 1\n",
    "same-indent-sequence": "spec:\n  openAPIV3Schema:\n  - a\n  x: 1\n",
    "flow-value": "spec:\n  openAPIV3Schema: {type: object}\n  x: 1\n",
    "empty-value": "spec:\n  openAPIV3Schema:\n  x: 1\n",
    "in-sequence-item": "versions:\n- openAPIV3Schema:\n    type: object\n  name: v1\n",
    "crlf": "spec:\r\n  openAPIV3Schema:\r\n    type: object\r\n  x: 1\r\n",
    "multi-doc": "a: 1\n---\nspec:\n  openAPIV3Schema:\n    type: object\n---\nb: 2\n",
    "repeated-key-inside": "spec:\n  openAPIV3Schema:\n    type: object\n    type: string\n  x: 1\n",
    "repeated-skip-key": "spec:\n  openAPIV3Schema:\n    type: object\n  openAPIV3Schema:\n    type: string\n",
    "anchor-inside": "spec:\n  openAPIV3Schema:\n    a: &x {type: object}\n    b: *x\n  c: *x\n",
    "tag-inside": "spec:\n  openAPIV3Schema:\n    a: !!str 1\n",
    "syntax-error-inside": "spec:\n  openAPIV3Schema:\n    a: [1, 2\n  x: 1\n",
    # texts rapidyaml reads and libyaml refuses (or reads otherwise): the full parse decides
    "flow-colon-first-inside": "spec:\n  openAPIV3Schema:\n    enum: [:a]\n  x: 1\n",
    "flow-colon-before-comma-inside": "spec:\n  openAPIV3Schema:\n    enum: [b:,]\n  x: 1\n",
    "bare-colon-key-inside": "spec:\n  openAPIV3Schema:\n    a:\n    - :\n  x: 1\n",
    "line-separator-inside": "spec:\n  openAPIV3Schema:\n    description: x\u2028y\n  x: 1\n",
    "control-character-inside": "spec:\n  openAPIV3Schema:\n    description: x\x07y\n  x: 1\n",
    "tab-after-colon-inside": "spec:\n  openAPIV3Schema:\n    a:\t1\n    a: 2\n  x: 1\n",
    "tab-inside": "spec:\n  openAPIV3Schema:\n\ttype: object\n  x: 1\n",
    "under-indented-quote": "spec:\n  openAPIV3Schema:\n    description: \"a\nb\"\n  x: 1\n",
    "deep-inside": "spec:\n  openAPIV3Schema:\n" + "".join("  " * (i + 2) + f"k{i}:\n" for i in range(70)) + "  " * 72 + "v: 1\n",
    "prose-stars": "spec:\n  openAPIV3Schema:\n    description: see the\n      *bold* text && x != y, verifier-key-* one\n  x: 1\n",
    "block-scalar-inside": "spec:\n  openAPIV3Schema:\n    description: |\n      text\n\n      more\n  x: 1\n",
    "key-later-on-line": "spec:\n  x: openAPIV3Schema:\n",
    "quoted-key": "spec:\n  \"openAPIV3Schema\":\n    type: object\n",
    # a CEL rule continued on a line starting with "!": text, not a tag (kept on the fast path)
    "cel-continuation": "spec:\n  openAPIV3Schema:\n    x-kubernetes-validations:\n    - rule: 'has(self.a) ||\n        !has(self.b)'\n      message: m\n  x: 1\n",
    "anchor-only-inside": "spec:\n  openAPIV3Schema:\n    a: &x {type: object}\n    b: *x\n  x: 1\n",
    "tag-on-mapping-inside": "spec:\n  openAPIV3Schema:\n    a: !!map\n      type: object\n  x: 1\n",
    "alias-outside-anchor-inside": "spec:\n  openAPIV3Schema:\n    a: &x {type: object}\n  x:\n    *x\n",
    # a CSV's UI descriptors, laid out as Go's YAML writers do: items at the key's indentation
    "descriptors-indentless": (
        "spec:\n  customresourcedefinitions:\n    owned:\n    - kind: A\n      specDescriptors:\n      - path: size\n"
        "        x-descriptors:\n        - urn:alm:descriptor:com.tectonic.ui:podCount\n      # between items\n"
        "      - displayName: Image\n        path: image\n      version: v1\n    - kind: B\n      statusDescriptors:\n"
        "      - path: phase\n    required: []\n"),
    "descriptors-at-column-0": "specDescriptors:\n- path: a\n-\n  path: b\nx: 1\n",
    "descriptors-then-dash-key": "o:\n  specDescriptors:\n  - path: a\n  -x: 1\n",
    "descriptors-repeated-key": "o:\n  specDescriptors:\n  - path: a\n    path: b\n  version: v1\n",
}


@pytest.mark.parametrize("name", sorted(SCHEMA_DOCS))
def test_fast_yaml_path_equals_full_parse(name):
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(FIXTURES_SRC), "scripts"))
    from benchmark import tree_key

    from checker import fastyaml
    from checker.load import SKIP_KEYS
    from checker.yamlload import Limits, parse

    text = SCHEMA_DOCS[name]
    limits = Limits(max_depth=64)
    want = parse(text, limits, SKIP_KEYS)
    got = fastyaml.parse_fast(text, limits, SKIP_KEYS)
    if got is not None:  # when the fast path answers, it is exactly the full parse
        assert tree_key(got[0]) == tree_key(want[0])
        assert [vars(p) for p in got[1]] == [vars(p) for p in want[1]]
    if fastyaml.ENABLED and name in ("plain", "comment-after-key", "in-sequence-item", "crlf", "multi-doc", "prose-stars",
                                     "block-scalar-inside", "at-end-no-newline", "sequence-value", "cel-continuation",
                                     "same-indent-sequence", "descriptors-indentless", "descriptors-at-column-0",
                                     "descriptors-then-dash-key"):
        assert got is not None, f"{name}: the fast path should apply"
    if name in ("repeated-key-inside", "anchor-inside", "syntax-error-inside", "deep-inside", "tab-inside", "repeated-skip-key",
                "anchor-only-inside", "tag-on-mapping-inside", "alias-outside-anchor-inside", "descriptors-repeated-key",
                "flow-colon-first-inside", "flow-colon-before-comma-inside", "bare-colon-key-inside", "line-separator-inside",
                "control-character-inside", "tab-after-colon-inside"):
        assert got is None, f"{name}: must fall back to the full parse"


def test_simple_dockerfile_labels_match_the_parser():
    from dockerfile_parse.util import extract_key_values

    from checker.load import _simple_label

    for value in ["a.b/c=d", 'k="v w"', "k=v+1", "k=", 'k=""', "k=v/", "operators.operatorframework.io.bundle.channels.v1=alpha,beta"]:
        assert [tuple(p) for p in _simple_label(value)] == [tuple(p) for p in extract_key_values(False, {}, {}, value)], value
    for value in ["k=v k2=v2", "k=$X", "k='v'", 'k="a\\"b"', "k v", "k=a\\ b"]:
        assert _simple_label(value) is None, value


def test_identical_files_in_two_bundles_are_reported_on_each(tmp_path):
    """Parse results are shared between files with the same content (``load.PARSED``):
    each copy still gets its own findings, at its own path, line and column."""
    src = os.path.join(FIXTURES, "rules", "yaml-duplicate-key", "bad")
    for name in ("a", "b"):
        shutil.copytree(src, tmp_path / name, ignore=shutil.ignore_patterns("expect.yaml"))
    res = check([str(tmp_path / "a"), str(tmp_path / "b")], jobs=1)
    got = sorted((f.path.rsplit("/", 3)[-3], f.line, f.column) for f in res.findings
                 if f.rule == "yaml-duplicate-key")
    assert got == [("a", 7, 3), ("b", 7, 3)]


def test_cache_takes_directory_names_that_are_not_utf8(tmp_path):
    """A bundle directory named with bytes that are not UTF-8: the cached re-run reports
    what the first run did (no internal error from hashing the name)."""
    root = tmp_path / "repo"
    os.makedirs(root / "operators" / "op")
    shutil.copytree(os.path.join(FIXTURES, "bundles", "good"), os.fsdecode(bytes(root / "operators" / "op") + b"/1.0.\xff"))
    first = run_cli("audit", ".", "--cache", str(tmp_path / "cache"), "--format", "json", cwd=root)
    again = run_cli("audit", ".", "--cache", str(tmp_path / "cache"), "--format", "json", cwd=root)
    assert first.returncode == again.returncode == 1, first.stderr
    assert "internal-error" not in first.stdout
    assert json.loads(first.stdout)["findings"] == json.loads(again.stdout)["findings"]
    assert "1.0.\\\\xff" in first.stdout


def _snapshot_of(argv, cwd):
    """The run snapshot the CLI would look up for ``argv`` in ``cwd`` (None: not taken)."""
    from checker import cli

    old = os.getcwd()
    os.chdir(cwd)
    try:
        args = cli._parser().parse_args(argv)
        got = cli._snapshot(args, args.paths)
        if got is None:
            return None
        snaps, key, _ = got
        try:
            return snaps.get(key)
        finally:
            snaps.close()
    finally:
        os.chdir(old)


def test_run_snapshot_answers_the_same_command_on_an_unchanged_tree(catalog, tmp_path):
    """The second identical run is answered from the snapshot (same report, same exit code,
    the --output file and the step summary written again); any edit is a miss, and the run
    after it reports what an uncached run does. The --output file lives inside the checked
    tree here: writing it must not count as a change. (The cache may not: ``test_cache``.)"""
    cache = str(tmp_path / "cache")
    argv = ["audit", ".", "--cache", cache, "--format", "github", "--output", "report.txt"]
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    assert _snapshot_of(argv, catalog) is None
    first = run_cli(*argv, cwd=catalog, env=env)
    assert first.returncode == 1, first.stderr
    assert "::error" in first.stdout
    stored = _snapshot_of(argv, catalog)
    assert stored is not None and stored[0] == 1 and b"".join(stored[1]).decode() == first.stdout
    os.remove(os.path.join(catalog, "report.txt"))
    again = run_cli(*argv, cwd=catalog, env=env)
    assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, "")
    assert open(os.path.join(catalog, "report.txt")).read() == first.stdout
    text = summary.read_text()
    assert text and text == text[:len(text) // 2] * 2  # the same summary, twice

    # another format, profile or target is another snapshot
    assert _snapshot_of(["audit", ".", "--cache", cache, "--format", "json", "--output", "report.txt"], catalog) is None
    assert _snapshot_of(argv + ["--ocp", "4.16"], catalog) is None

    # an edit (here: the same length) is a miss, and the report follows the edit
    csv = os.path.join(catalog, "operators/alpha-op/0.3.0/manifests/alpha-op.clusterserviceversion.yaml")
    text = open(csv).read()
    with open(csv, "w") as fh:
        fh.write(text.replace("replaces: alpha-op.v0.2.5", "replaces: alpha-op.v0.2.0"))
    assert _snapshot_of(argv, catalog) is None
    edited = run_cli(*argv, cwd=catalog, env=env)
    plain = run_cli("audit", ".", "--format", "github", cwd=catalog)
    assert edited.stdout == plain.stdout != first.stdout

    # a part of the repository is not snapshotted (the walk would cost more than it saves)
    from checker import cli

    part = cli._parser().parse_args(["audit", "operators/alpha-op", "--cache", cache])
    assert cli._snapshot(part, part.paths) is None

    # a file added anywhere in the tree is a miss too (the checker may read it)
    assert _snapshot_of(argv, catalog) is not None
    os.makedirs(os.path.join(catalog, "operators/alpha-op/0.3.0/manifests/.git"))
    assert _snapshot_of(argv, catalog) is None


def test_tree_signature_sees_every_change_but_git_and_excluded_paths(tmp_path, monkeypatch):
    from checker.runner import snapshot
    from checker.runner.snapshot import tree_signature

    root = tmp_path / "t"
    (root / "a" / "b").mkdir(parents=True)
    (root / ".git").mkdir()
    f = root / "a" / "b" / "f.yaml"
    f.write_text("x: 1\n")
    sig = lambda *exclude: tree_signature(str(root), list(exclude))[0]
    base = sig()
    assert tree_signature(str(root), [])[1] == [str(f)]  # just written: its content decides
    assert sig() == base
    (root / ".git" / "index").write_text("git's own")
    (root / "out.json").write_text("{}")
    assert sig(str(root / "out.json")) == base
    os.utime(f, ns=(1, 1))  # touched: a change, even to an old time
    changed = sig(str(root / "out.json"))
    assert changed != base
    # too many files just written (a fresh clone): no snapshot rather than hashing them all
    (root / "a" / "g.yaml").write_text("y: 1\n")
    monkeypatch.setattr(snapshot, "MAX_RACY", 1)
    assert snapshot.tree_signature(str(root), []) is None
    monkeypatch.undo()
    os.symlink("b/f.yaml", root / "a" / "link")
    linked = sig(str(root / "out.json"))
    os.remove(root / "a" / "link")
    os.symlink("b/g.yaml", root / "a" / "link")
    assert sig(str(root / "out.json")) not in (changed, linked)


def test_tree_signature_is_the_same_however_many_processes_walk(tmp_path):
    """A catalog's walk is shared among forked processes (--jobs): the signature, and the
    files too recent to trust, do not depend on how it was shared, and a change deep in any
    process's share is seen."""
    from checker.runner.snapshot import tree_signature

    root = tmp_path / "cat"
    for i in range(70):  # enough operators for the walk to be shared out
        d = root / "operators" / f"op-{i:02d}" / "1.0.0" / "manifests"
        d.mkdir(parents=True)
        (d / "csv.yaml").write_text(f"n: {i}\n")
    (root / "operators" / "op-05" / "1.0.0" / "manifests" / "new.yaml").write_text("another\n")
    walks = {jobs: tree_signature(str(root), [], jobs) for jobs in (1, 2, 3)}
    assert walks[1] == walks[2] == walks[3]
    # every file was just written (its change time is now): all of them, in one order
    assert walks[1][1] == sorted(str(p) for p in root.rglob("*.yaml")) and len(walks[1][1]) == 71
    deep = root / "operators" / "op-68" / "1.0.0" / "manifests" / "csv.yaml"
    os.utime(deep, ns=(2 * 10**18, 2 * 10**18))
    assert tree_signature(str(root), [], 2)[0] == tree_signature(str(root), [], 1)[0] != walks[1][0]


def test_snapshot_report_is_replayed_in_bounded_pieces():
    """A stored catalog report (25 MB of JSON) is written back a piece at a time, never held
    whole; the pieces join to exactly what was recorded, characters outside ASCII included."""
    from checker.runner.snapshot import Recorder, _inflate

    rec = Recorder()
    text = "".join(f"line {i}: é ✓\n" for i in range(200_000))
    for i in range(0, len(text), 70_000):
        rec.write(text[i:i + 70_000])
    pieces = list(_inflate(rec.done(), 1 << 16))
    assert len(pieces) > 10 and max(map(len, pieces)) <= 1 << 16
    assert b"".join(pieces).decode("utf-8") == text


@pytest.mark.parametrize("where", ["alone", "inside-a-git-work-tree"])
def test_benchmark_script_runs_every_mode_on_a_catalog(catalog, tmp_path, where):
    """The benchmark the acceptance numbers come from runs end to end (every mode, repeats,
    --verify): on a catalog of its own, where run snapshots apply, and on one below a git
    work tree's root, where no run snapshot is ever stored."""
    import subprocess
    import sys

    target = catalog
    if where != "alone":
        top = tmp_path / "top"
        subprocess.run(["git", "init", "-q", str(top)], check=True)
        target = str(top / "sub" / "catalog")
        shutil.copytree(catalog, target, symlinks=True)
    script = os.path.join(os.path.dirname(FIXTURES_SRC), "scripts", "benchmark.py")
    p = subprocess.run([sys.executable, script, target, "--jobs", "2", "--repeat", "2", "--verify"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    out = p.stdout
    for mode in ("floor ", "ryml ", "cparse ", "cold ", "warm ", "touched ", "rehash ", "single "):
        assert mode in out, out
    assert "cold    over 2 runs: best" in out
    assert "report: 8 bundles" in out and " 0 internal errors" in out
    assert "differences: 0" in out
