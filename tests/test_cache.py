"""The result cache (``--cache DIR``, issue 21 item 11) never runs what it reads.

It stores plain JSON that reading turns back into strings, numbers, lists and the result
classes only; a pickle (the format of caches before schema 4), a crafted entry or a damaged
one is a miss, and nothing in it runs. A cache directory a pull request could have put
there -- inside the checked tree, or tracked by git -- is refused (exit 2) before anything
in it is read.
"""
import glob
import json
import os
import pickle
import shutil
import sqlite3
import subprocess

import pytest

from checker.api import CheckError, check
from checker.runner.cache import Cache, NotPlainData, decode, encode

from conftest import FIXTURES
from helpers import run_cli



class _Mkdir:
    """Unpickled, it makes a directory: what a crafted cache entry would do."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def _live_payload(marker: str) -> bytes:
    """A pickle that makes ``marker`` when loaded -- checked once here, so that the tests
    below, where the marker never appears, prove something."""
    payload = pickle.dumps(_Mkdir(marker), protocol=pickle.HIGHEST_PROTOCOL)
    pickle.loads(payload)
    assert os.path.isdir(marker)
    os.rmdir(marker)
    return payload


def _key(report):
    return json.dumps(report, sort_keys=True)


def _db(cache: str) -> sqlite3.Connection:
    return sqlite3.connect(os.path.join(cache, Cache.FILE))


def test_stored_results_are_plain_json_and_answer_every_rule_fixture(tmp_path):
    """Every rule's bad and good fixture: the warm run answers each bundle from the cache and
    reports exactly what the cold run did (fixes, releases, facts survive the round trip);
    each stored entry is JSON text."""
    paths = sorted(glob.glob(os.path.join(FIXTURES, "rules", "*", "bad")) + glob.glob(os.path.join(FIXTURES, "rules", "*", "good")))
    cache = str(tmp_path / "cache")
    cold = check(paths, cache_dir=cache)
    assert cold.repo.cache_stats["hits"] == 0
    warm = check(paths, cache_dir=cache)
    assert warm.repo.cache_stats == {"hits": cold.repo.cache_stats["misses"], "misses": 0}
    assert _key(warm.report) == _key(cold.report)
    assert any(f.fix is not None for f in warm.findings)
    db = _db(cache)
    rows = [r[0] for r in db.execute("SELECT data FROM results")]
    db.close()
    assert rows
    for data in rows:
        json.loads(data)


def test_a_pickle_in_the_cache_is_a_miss_and_never_runs(catalog, tmp_path):
    """Every stored result swapped for a pickle that would make a directory (a pull request
    that planted one under the keys it can compute): the run loads none of them, the
    directory never appears, and the report is an uncached run's."""
    cache = str(tmp_path / "cache")
    marker = str(tmp_path / "pwned")
    payload = _live_payload(marker)
    check(["."], cache_dir=cache)
    db = _db(cache)
    swapped = db.execute("UPDATE results SET data=?", (payload,)).rowcount
    db.commit()
    db.close()
    assert swapped >= 8
    res = check(["."], cache_dir=cache, jobs=2)
    assert not os.path.exists(marker)
    assert res.repo.cache_stats == {"hits": 0, "misses": 8}
    assert _key(res.report) == _key(check(["."]).report)


def test_a_cache_of_the_pickle_format_is_dropped_unread(catalog, tmp_path):
    """A cache written before schema 4 (pickles) is emptied when it is opened: nothing of it
    is read, whatever its rows hold."""
    cache = str(tmp_path / "cache")
    marker = str(tmp_path / "pwned")
    payload = _live_payload(marker)
    os.makedirs(cache)
    db = _db(cache)
    db.execute("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT)")
    db.execute("INSERT INTO meta VALUES ('schema', '3')")
    db.execute("CREATE TABLE results (key BLOB PRIMARY KEY, data BLOB, used REAL)")
    db.execute("CREATE TABLE runs (sig BLOB PRIMARY KEY)")
    db.execute("INSERT INTO results VALUES (?, ?, 1e12)", (b"k" * 32, payload))
    db.commit()
    db.close()
    res = check(["."], cache_dir=cache)
    assert not os.path.exists(marker)
    assert res.repo.cache_stats == {"hits": 0, "misses": 8}
    db = _db(cache)
    assert db.execute("SELECT v FROM meta WHERE k='schema'").fetchone() == ("4",)
    assert db.execute("SELECT COUNT(*) FROM results WHERE data=?", (payload,)).fetchone() == (0,)
    db.close()


@pytest.mark.parametrize("entry", [
    b'{"__reduce__": ["os.system", ["touch pwned"]]}',  # a tag that names code: not a tag
    b'{"R": ["x", [], null]}',  # a class with a field missing
    b'{"R": [1, [], null, {"d": []}]}',  # the bundle path is not text
    b'{"R": ["x", [{"F": ["r", "m", "p", "one", 1, null, [], null, null]}], null, {"d": []}]}',  # a line that is not a number
    b'{"R": ["x", [], null, {"d": [[{"t": []}, {"d": []}]]}]}',  # an ignore keyed by a tuple
    b'{"d": [[[1], 2]]}',  # an unhashable key
    b"[" * 100000 + b"]" * 100000,  # deeper than Python recurses
    b"\x80\x04K\x01.",  # a pickle
    b"not json",
])
def test_crafted_entries_are_misses(catalog, tmp_path, entry):
    cache = str(tmp_path / "cache")
    check(["."], cache_dir=cache)
    db = _db(cache)
    db.execute("UPDATE results SET data=?", (entry,))
    db.commit()
    db.close()
    with pytest.raises(ValueError):
        decode(entry)
    res = check(["."], cache_dir=cache)
    assert res.repo.cache_stats == {"hits": 0, "misses": 8}
    assert not os.path.exists(os.path.join(catalog, "pwned"))
    assert _key(res.report) == _key(check(["."]).report)


def test_encode_keeps_types_and_refuses_what_is_not_plain_data():
    value = {"t": (1, ("a", None)), 2: [1.5, True], "s": {3}, "z": frozenset({"q"})}
    assert decode(encode(value)) == value
    assert type(decode(encode(value))["t"]) is tuple
    with pytest.raises(NotPlainData):
        encode({"f": len})
    with pytest.raises(NotPlainData):
        encode(object())


def test_a_crafted_snapshot_never_runs(catalog, tmp_path):
    """The run snapshot kept beside the results: its stored file digests swapped for a
    pickle (or anything else) make it a miss; the run checks again and reports as before."""
    cache = str(tmp_path / "cache")
    marker = str(tmp_path / "pwned")
    payload = _live_payload(marker)
    argv = ["audit", ".", "--cache", cache, "--format", "json"]
    first = run_cli(*argv, cwd=catalog)
    db = _db(cache)
    assert db.execute("UPDATE snapshots SET racy=?", (payload,)).rowcount == 1
    db.commit()
    db.close()
    again = run_cli(*argv, cwd=catalog)
    assert not os.path.exists(marker)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout), again.stderr


def test_a_cache_inside_the_checked_tree_is_refused(catalog, tmp_path):
    """`--cache` inside the tree being checked (a pull request could commit it there), also
    through a symbolic link from outside, and through the library: exit 2, a message that
    says why and what to do, and nothing made or read there."""
    cache = os.path.join(catalog, ".olm-check-cache")
    link = str(tmp_path / "link")
    os.symlink(os.path.join(catalog, "operators"), link)
    for given, path in ((".olm-check-cache", "."), (cache, "."), (".", "."), (link, "."),
                        (".olm-check-cache", "operators/alpha-op")):
        p = run_cli("audit", path, "--cache", given, cwd=catalog)
        assert p.returncode == 2, (given, p.stderr)
        assert "refused" in p.stderr and "checked tree" in p.stderr and "Traceback" not in p.stderr
        assert p.stdout == ""
    assert not os.path.exists(cache)
    with pytest.raises(CheckError, match="inside the checked tree"):
        check(["."], cache_dir=cache)
    assert not os.path.exists(cache)


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_cache_git_tracks_is_refused(catalog, tmp_path):
    """A cache directory outside the checked tree but holding a file git tracks (a checkout
    of another repository, made by the workflow) is refused; an untracked one inside a work
    tree is used."""
    other = tmp_path / "other"
    (other / "cache").mkdir(parents=True)
    (other / "cache" / Cache.FILE).write_bytes(b"planted")
    _git(other, "init", "-q")
    _git(other, "add", ".")
    _git(other, "commit", "-q", "-m", "x")
    p = run_cli("audit", ".", "--cache", str(other / "cache"), cwd=catalog)
    assert p.returncode == 2 and "git tracks" in p.stderr and Cache.FILE in p.stderr, p.stderr
    assert (other / "cache" / Cache.FILE).read_bytes() == b"planted"
    (other / "mine").mkdir()
    p = run_cli("audit", ".", "--cache", str(other / "mine"), "--format", "json", cwd=catalog)
    assert p.returncode == 1, p.stderr
    assert os.path.exists(other / "mine" / Cache.FILE)


def test_a_finding_of_unusual_types_is_reported_and_not_served_from_the_cache(catalog, tmp_path, monkeypatch):
    """A rule whose finding carries values the cache does not expect (a line that is not a
    number, releases as a tuple): the run in worker processes reports it as an uncached run
    does, and the cache, which checks what it reads, checks that bundle again next time."""
    from checker import engine
    from checker.finding import Finding

    real = engine.check_bundle

    def odd(bundle, *args, **kwargs):
        got = real(bundle, *args, **kwargs)
        if bundle.rel.endswith("alpha-op/0.3.0"):
            # at a file: a finding at the bundle directory would be moved to line 1 of its CSV (runner.placement.at_files)
            got.findings.append(Finding("odd-rule", "odd", bundle.rel + "/odd.yaml", line=None,
                                        ocp_versions=("4.16",)))
        return got

    monkeypatch.setattr(engine, "check_bundle", odd)
    cache = str(tmp_path / "cache")
    plain = check(["."])
    assert [(f.line, list(f.ocp_versions)) for f in plain.findings if f.rule == "odd-rule"] == [(None, ["4.16"])]
    first = check(["."], cache_dir=cache, jobs=2)
    assert _key(first.report) == _key(plain.report)
    again = check(["."], cache_dir=cache, jobs=2)
    assert again.repo.cache_stats == {"hits": 7, "misses": 1}
    assert _key(again.report) == _key(plain.report)


def test_a_cached_bundle_is_linted_when_a_change_list_submits_it(tmp_path):
    """yaml-lint judges only the bundles a change list submits: a result cached by a run without
    one must not answer a pull-request run (the cache key holds whether the bundle is submitted)."""
    import shutil
    import subprocess

    from helpers import run_cli

    repo = tmp_path / "repo"
    shutil.copytree(os.path.join(FIXTURES, "catalog-small"), repo)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "base"], cwd=repo, check=True)
    subprocess.run(git + ["checkout", "-qb", "pr"], cwd=repo, check=True)
    ann = repo / "operators" / "alpha-op" / "0.3.0" / "metadata" / "annotations.yaml"
    lines = ann.read_text().split("\n")
    lines[0] += "   "  # trailing spaces: a yamllint error
    ann.write_text("\n".join(lines))
    subprocess.run(git + ["commit", "-qam", "edit"], cwd=repo, check=True)
    cache = str(tmp_path / "cache")

    def lint(*args):
        p = run_cli("check", *args, "--cache", cache, "--format", "json", "--fail-on", "never", cwd=str(repo))
        assert p.returncode == 0, p.stderr
        return [f["message"] for f in json.loads(p.stdout)["findings"] if f["rule"] == "yaml-lint"]

    assert lint("operators/alpha-op") == []  # no change list: the pipeline lints only a pull request's bundle
    assert any("trailing-spaces" in m for m in lint("--changed-since", "main"))
