"""`olm-check graph` on the fixture catalog fixtures/graph (a real subprocess each time), and
the Action summary's upgrade-graph section (graph_view.pr_markdown) rendered as GitHub renders
Markdown (cmarkgfm)."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys

import cmarkgfm
import pytest

from checker.graph_view import mermaid_text, pr_markdown
from conftest import FIXTURES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPH = os.path.join(FIXTURES, "graph")  # materialised: fixtures/files.yaml names some of its files


def olm(*args, cwd=GRAPH):
    p = subprocess.run([sys.executable, "-m", "checker", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": ROOT})
    assert "Traceback" not in p.stderr, p.stderr
    return p


def graph_json(op, *more):
    p = olm("graph", f"operators/{op}", "--format", "json", *more)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def edges(ch):
    return {(e["from"], e["to"], e["kind"]) for e in ch["edges"]}


def chan(d, name):
    return next(c for c in d["channels"] if c["name"] == name)


def test_replaces_chain_and_opm_walk_across_channels():
    d = graph_json("graph-replaces")
    assert d["mode"] == "replaces-mode" and d["source"] == "bundles" and d["default_channel"] == "stable"
    assert [c["name"] for c in d["channels"]] == ["fast", "stable"]
    for name in ("fast", "stable"):
        c = chan(d, name)
        # fast lists only 1.2.0: opm's walk from its head brings 1.1.0 and 1.0.0 into it
        assert [n["version"] for n in c["nodes"]] == ["1.0.0", "1.1.0", "1.2.0"]
        assert c["heads"] == ["graph-replaces.v1.2.0"] and c["stranded"] == []
        assert edges(c) == {("graph-replaces.v1.0.0", "graph-replaces.v1.1.0", "replaces"),
                            ("graph-replaces.v1.1.0", "graph-replaces.v1.2.0", "replaces")}
    p = olm("graph", "operators/graph-replaces", "--channel", "stable")
    assert p.returncode == 0
    assert p.stdout.splitlines()[0] == "graph-replaces: replaces-mode, from bundles; default channel stable"
    assert "channel fast" not in p.stdout
    assert re.search(r"^  1\.2\.0  graph-replaces\.v1\.2\.0 \[head\]  <- replaces 1\.1\.0$", p.stdout, re.M), p.stdout


def test_skips():
    c = chan(graph_json("graph-skips"), "stable")
    assert edges(c) == {("graph-skips.v1.0.0", "graph-skips.v1.0.1", "replaces"),
                        ("graph-skips.v1.0.0", "graph-skips.v1.1.0", "replaces"),
                        ("graph-skips.v1.0.1", "graph-skips.v1.1.0", "skips")}
    # 1.0.1 is skipped by the head: an entry of the channel opm builds, not stranded
    assert c["heads"] == ["graph-skips.v1.1.0"] and c["stranded"] == []
    p = olm("graph", "operators/graph-skips")
    assert "1.1.0  graph-skips.v1.1.0 [head]  <- replaces 1.0.0; skips 1.0.1" in p.stdout


def test_skip_range_covers_older_bundles_and_is_drawn_once_per_bundle():
    c = chan(graph_json("graph-skiprange"), "stable")
    assert edges(c) == {("graph-skiprange.v1.0.0", "graph-skiprange.v2.0.0", "skipRange"),
                        ("graph-skiprange.v1.1.0", "graph-skiprange.v2.0.0", "skipRange")}
    # no replaces at all, yet nothing is stranded: the head's skipRange covers both (opm's walk + OLM's range)
    assert c["stranded"] == []
    assert "skipRange '>=1.0.0 <2.0.0' covers 2 (1.0.0, 1.1.0)" in olm("graph", "operators/graph-skiprange").stdout
    m = olm("graph", "operators/graph-skiprange", "--format", "mermaid").stdout
    assert m.count("-.->|skipRange|") == 2


def test_semver_mode_follows_version_order_not_replaces():
    d = graph_json("graph-semver")
    assert d["mode"] == "semver-mode"
    c = chan(d, "stable")
    v = {n["id"]: n["version"] for n in c["nodes"]}
    assert [(v[a], v[b], k) for a, b, k in sorted(edges(c))] == [
        ("0.1.0", "0.2.0", "semver"), ("0.2.0", "0.2.1", "semver"), ("0.2.1", "0.3.0", "semver")]
    assert c["heads"] == ["graph-semver.v0.3.0"]
    # 0.3.0's spec.replaces names 0.1.0: opm's semver mode does not read it, and the output says so
    assert any("spec.replaces and spec.skips are not read" in n for n in d["notes"])


def test_semver_skippatch_mode(tmp_path):
    op = tmp_path / "operators" / "graph-semver"
    shutil.copytree(os.path.join(GRAPH, "operators", "graph-semver"), op)
    (op / "ci.yaml").write_text("updateGraph: semver-skippatch-mode\n")
    p = subprocess.run([sys.executable, "-m", "checker", "graph", str(op), "--format", "json"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    d = json.loads(p.stdout)
    c = chan(d, "stable")
    assert d["mode"] == "semver-skippatch-mode"
    # 0.2.1 upgrades 0.2.0 (version order); nothing older of 0.2.x to skip; 0.3.0 is a new minor
    assert ("graph-semver.v0.2.0", "graph-semver.v0.2.1", "semver") in edges(c)
    assert not [e for e in edges(c) if e[2] == "skippatch"]
    for v in ("0.2.2", "0.2.3"):  # more patches of 0.2: 0.2.3 also upgrades 0.2.0 and 0.2.1 directly
        shutil.copytree(op / "0.2.1", op / v)
        for f in (op / v).rglob("*.yaml"):
            f.write_text(f.read_text().replace("0.2.1", v))
    p = subprocess.run([sys.executable, "-m", "checker", "graph", str(op), "--format", "json"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    skp = {(a.split(".v")[1], b.split(".v")[1]) for a, b, k in edges(chan(json.loads(p.stdout), "stable")) if k == "skippatch"}
    assert skp == {("0.2.0", "0.2.2"), ("0.2.0", "0.2.3"), ("0.2.1", "0.2.3")}


def test_stranded_bundle_is_marked_in_every_format():
    c = chan(graph_json("graph-stranded"), "stable")
    assert c["heads"] == ["graph-stranded.v1.2.0"] and c["stranded"] == ["graph-stranded.v1.1.1"]
    t = olm("graph", "operators/graph-stranded").stdout
    assert "channel stable: 4 bundles, head 1.2.0, 1 stranded" in t
    assert "1.1.1  graph-stranded.v1.1.1 [stranded]  <- replaces 1.1.0" in t
    m = olm("graph", "operators/graph-stranded", "--format", "mermaid").stdout
    assert re.search(r'^    c0n2\["1\.1\.1 \(stranded\)"\]:::stranded$', m, re.M), m
    d = olm("graph", "operators/graph-stranded", "--format", "dot").stdout
    assert d.startswith('digraph "graph-stranded" {') and d.rstrip().endswith("}")
    assert re.search(r'c0n2 \[label="1\.1\.1 \(stranded\)".*style="dashed,filled"', d), d


def test_file_based_catalog_is_the_graph_of_an_fbc_operator():
    d = graph_json("graph-fbc")
    assert d["mode"] == "fbc" and d["source"].endswith("catalogs/v4.18/graph-fbc/catalog.yaml")  # the newest release
    c = chan(d, "stable")
    assert [n["version"] for n in c["nodes"]] == ["1.0.0", "1.1.0", "1.1.1", "1.2.0"]
    assert c["heads"] == ["graph-fbc.v1.2.0"] and c["stranded"] == []
    assert ("graph-fbc.v1.1.0", "graph-fbc.v1.2.0", "skipRange") in edges(c)
    old = graph_json("graph-fbc", "--ocp", "4.17")
    assert old["source"].endswith("catalogs/v4.17/graph-fbc/catalog.yaml")
    assert [n["version"] for n in chan(old, "stable")["nodes"]] == ["1.0.0", "1.1.0"]


def test_ocp_draws_one_release_catalog_of_a_bundle_graph():
    # 1.1.1 is pinned to 4.14 (=v4.14), 1.2.0 (v4.15) replaces 1.1.0: each release's catalog has its own channel
    pinned = os.path.join(FIXTURES, "rules", "dangling-bundle", "good-pinned-release")
    def g(*more):
        p = olm("graph", "operators/example-operator", "--format", "json", *more, cwd=pinned)
        assert p.returncode == 0, p.stderr
        return chan(json.loads(p.stdout), "stable")
    c414 = g("--ocp", "4.14")
    assert [n["version"] for n in c414["nodes"]] == ["1.0.0", "1.1.0", "1.1.1"]
    assert c414["heads"] == ["example-operator.v1.1.1"] and c414["stranded"] == []
    c416 = g("--ocp", "4.16")
    assert [n["version"] for n in c416["nodes"]] == ["1.0.0", "1.1.0", "1.2.0"] and c416["stranded"] == []
    assert "example-operator.v1.1.1" in g()["stranded"]  # all releases drawn together (per package)


@pytest.mark.parametrize("path, why", [
    ("operators/graph-stranded/1.2.0", "not an operator directory"),  # a bundle
    (".", "not an operator directory"),  # the repository root
    ("operators/no-such-operator", "no such file or directory"),
])
def test_a_path_that_is_not_an_operator_directory_is_exit_2(path, why):
    p = olm("graph", path)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith(f"olm-check: {path}: {why}") and len(p.stderr.splitlines()) == 1


def test_a_directory_outside_operators_is_not_an_operator_directory(tmp_path):
    shutil.copytree(os.path.join(GRAPH, "operators", "graph-skips"), tmp_path / "graph-skips")
    p = olm("graph", str(tmp_path / "graph-skips"))
    assert p.returncode == 2 and "not an operator directory (operators/<name>/" in p.stderr


def test_unknown_channel_and_bad_format_are_usage_errors():
    p = olm("graph", "operators/graph-replaces", "--channel", "candidate")
    assert p.returncode == 2
    assert "no such channel (its channels: fast, stable)" in p.stderr
    assert olm("graph", "operators/graph-replaces", "--format", "svg").returncode == 2


def test_mermaid_ids_and_labels_are_safe(tmp_path):
    """Node ids are c<channel>n<index> whatever the CSV names hold (dots, quotes); labels and
    channel names are entity-coded, so a name cannot close a label or inject Markdown."""
    op = tmp_path / "operators" / "graph-replaces"
    shutil.copytree(os.path.join(GRAPH, "operators", "graph-replaces"), op)
    ann = op / "1.2.0" / "metadata" / "annotations.yaml"
    ann.write_text(ann.read_text().replace("channels.v1: stable,fast", 'channels.v1: "stable,fa\\"st]`<b>@x"'))
    p = subprocess.run([sys.executable, "-m", "checker", "graph", str(op), "--format", "mermaid"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    assert p.returncode == 0, p.stderr
    m = p.stdout
    for line in m.splitlines()[1:]:
        s = line.strip()
        if s.startswith(("subgraph", "classDef", "direction", "end", "linkStyle")):
            continue
        ident = re.match(r"([A-Za-z0-9_]+)", s).group(1)
        assert re.fullmatch(r"c\d+(n\d+|older|gap\d+_\d+)", ident), line
    assert 'fa#34;st#93;#96;#60;b#62;#64;x' in m
    assert '"' not in m.replace('["', "").replace('"]', "")
    assert mermaid_text('a"b[c]`<d>') == "a#34;b#91;c#93;#96;#60;d#62;"


def _mermaid_blocks(markdown: str) -> list:
    """The Mermaid blocks GitHub would render: cmarkgfm's <pre lang="mermaid"><code>."""
    out = cmarkgfm.github_flavored_markdown_to_html(markdown)
    return [html.unescape(b) for b in re.findall(r'<pre lang="mermaid"><code>(.*?)</code></pre>', out, re.S)]


def test_summary_section_shows_the_change_and_what_it_strands():
    md = pr_markdown(GRAPH, [{"path": "operators/graph-stranded/1.2.0", "csv": "graph-stranded.v1.2.0"}])
    blocks = _mermaid_blocks(md)
    assert len(blocks) == 1
    b = blocks[0]
    assert b.startswith("flowchart LR\n")
    assert 'c0n3["1.2.0 (new, head)"]:::changed' in b and 'c0n2["1.1.1 (stranded)"]:::stranded' in b
    assert "c0n1 --> c0n3" in b and "linkStyle 2 stroke:#b58900" in b  # the edge it adds, highlighted
    assert "edges of the change: 1.1.0 → 1.2.0 \\(replaces\\); **strands** 1.1.1" in md
    html_out = cmarkgfm.github_flavored_markdown_to_html(md)
    assert "<strong>strands</strong> 1.1.1" in html_out
    # without the change 1.1.1 would be the head: it is the change that strands it; 1.1.1 itself strands nothing
    md2 = pr_markdown(GRAPH, [{"path": "operators/graph-stranded/1.1.1", "csv": "graph-stranded.v1.1.1"}])
    assert "strands" not in md2 and "1.1.1 (new, stranded)" in _mermaid_blocks(md2)[0]


def test_summary_section_of_a_long_channel_keeps_the_nearest_releases(tmp_path):
    src = os.path.join(GRAPH, "operators", "graph-replaces", "1.1.0")
    op = tmp_path / "operators" / "long"
    prev = None
    for i in range(20):
        v = f"1.{i}.0"
        d = op / v
        shutil.copytree(src, d)
        for f in d.rglob("*.yaml"):
            t = f.read_text().replace("graph-replaces", "long").replace("1.1.0", v)
            t = t.replace("  replaces: long.v1.0.0\n", f"  replaces: long.v{prev}\n" if prev else "")
            f.write_text(t)
        (d / "manifests" / "graph-replaces.clusterserviceversion.yaml").rename(d / "manifests" / "long.clusterserviceversion.yaml")
        prev = v
    (op / "ci.yaml").write_text("updateGraph: replaces-mode\n")
    md = pr_markdown(str(tmp_path), [{"path": "operators/long/1.10.0", "csv": "long.v1.10.0"}])
    b = _mermaid_blocks(md)[0]
    shown = re.findall(r'\["(1\.\d+\.0)', b)
    assert shown == ["1.7.0", "1.8.0", "1.9.0", "1.10.0", "1.11.0", "1.12.0", "1.13.0", "1.19.0"]
    assert 'c0older["#8230; 7 older"]' in b and 'c0gap13_19["#8230; 5 more"]' in b
    assert "1.19.0 (head)" in b and "1.10.0 (new)" in b
    p = subprocess.run([sys.executable, "-m", "checker", "graph", str(op), "--format", "mermaid"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    assert p.stdout.count(" --> ") == 19 and "older" not in p.stdout  # the command draws all of it
