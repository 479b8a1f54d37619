"""The upgrade graph of FBC operators in a pull request: the new bundle is not in catalogs/
before its release, so it is placed as the catalog build will place it (release-config.yaml,
the catalog templates, ci.yaml fbc.catalog_mapping). A first bundle of a new operator gets no
one-node graph. Real trees on disk, the summary through the Action and the fake GitHub."""
from __future__ import annotations

import shutil
from pathlib import Path

from fakegithub.plugin import fake_github_fixture  # noqa: F401  (fixture fake_github)
from test_action_e2e import FIX, git, run_action, sync_pull

from checker.fbc_place import semver_channels

OP = "operators/example-operator"
CSV = "manifests/example-operator.clusterserviceversion.yaml"


def test_semver_edges_as_the_community_catalogs_hold_them():
    """catalogs/v4.22/kubernaut-operator as rendered: 1.3.4 skips 1.3.2 and 1.3.3; 1.4.1 and
    1.5.0 replace and skip the previous Y-stream's last."""
    vs = ["1.3.2", "1.3.3", "1.3.4", "1.4.1", "1.5.0"]
    got = semver_channels("k", {"candidate": {f"k.v{v}": v for v in vs}}, major=True, minor=False)
    assert [c["name"] for c in got] == ["candidate-v1"]
    assert got[0]["entries"] == [
        {"name": "k.v1.3.2"}, {"name": "k.v1.3.3"}, {"name": "k.v1.3.4", "skips": ["k.v1.3.2", "k.v1.3.3"]},
        {"name": "k.v1.4.1", "replaces": "k.v1.3.4", "skips": ["k.v1.3.4"]},
        {"name": "k.v1.5.0", "replaces": "k.v1.4.1", "skips": ["k.v1.4.1"]}]
    # a major change starts over; minor channels too
    got = semver_channels("k", {"stable": {"k.v1.0.0": "1.0.0", "k.v2.0.0": "2.0.0", "k.v2.0.1": "2.0.1"}},
                          major=True, minor=True)
    names = {c["name"]: c["entries"] for c in got}
    assert set(names) == {"stable-v1", "stable-v2", "stable-v1.0", "stable-v2.0"}
    assert names["stable-v2"] == [{"name": "k.v2.0.0"}, {"name": "k.v2.0.1", "skips": ["k.v2.0.0"]}]


CI_BASIC = """---
fbc:
  enabled: true
  catalog_mapping:
    - template_name: basic.yaml
      catalog_names: ["v4.17", "v4.18"]
      type: olm.template.basic
"""
CATALOG = """---
schema: olm.package
name: example-operator
defaultChannel: stable
---
schema: olm.channel
name: stable
package: example-operator
entries:
  - name: example-operator.v1.0.0
---
schema: olm.bundle
name: example-operator.v1.0.0
package: example-operator
image: quay.io/example/example-operator-bundle:1.0.0
properties:
  - type: olm.package
    value: {packageName: example-operator, version: 1.0.0}
"""
RELEASE_CONFIG = """---
catalog_templates:
  - template_name: basic.yaml
    channels: [stable]
    replaces: example-operator.v1.0.0
"""


def _fbc_repo(tmp_path: Path, release_config=True) -> tuple:
    ws = tmp_path / "ws"
    shutil.copytree(FIX / "catalog-base", ws)
    (ws / OP / "ci.yaml").write_text(CI_BASIC)
    (ws / OP / "catalog-templates").mkdir()
    (ws / OP / "catalog-templates" / "basic.yaml").write_text("---\nschema: olm.template.basic\nentries: []\n")
    for rel in ("v4.17", "v4.18"):
        d = ws / "catalogs" / rel / "example-operator"
        d.mkdir(parents=True)
        (d / "catalog.yaml").write_text(CATALOG)
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    base = git(ws, "rev-parse", "HEAD")
    git(ws, "checkout", "-q", "-b", "feature")
    new = ws / OP / "1.1.0"
    shutil.copytree(ws / OP / "1.0.0", new)
    p = new / CSV
    p.write_text(p.read_text().replace("example-operator.v1.0.0", "example-operator.v1.1.0", 1)
                 .replace("  version: 1.0.0\n", "  version: 1.1.0\n", 1))
    if release_config:
        (new / "release-config.yaml").write_text(RELEASE_CONFIG)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "1.1.0")
    return ws, base, git(ws, "rev-parse", "HEAD")


def _graph_section(body: str) -> str:
    i = body.find("### Upgrade graph")
    return body[i:] if i >= 0 else ""


def test_a_new_fbc_bundle_is_placed_by_its_release_config(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = _fbc_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run")
    graph = _graph_section(fake.issue_comments_for(1)[0].body)
    assert graph, fake.issue_comments_for(1)[0].body
    assert 'c0n1["1.1.0 (new, head)"]:::changed' in graph and "c0n0 --> c0n1" in graph
    assert "placed as the catalog build will, by its release-config.yaml, into basic.yaml" in graph.replace("\\", "")
    assert "v4.17, v4.18" in graph
    assert "Traceback" not in r["stderr"] and fake.violations == []


def test_a_template_the_pull_request_edits_places_it_too(fake_github, tmp_path):
    """No release-config.yaml: the pull request adds the entry to its basic template itself."""
    fake = fake_github
    ws, base, _head = _fbc_repo(tmp_path, release_config=False)
    (ws / OP / "catalog-templates" / "basic.yaml").write_text(
        "---\nschema: olm.template.basic\nentries:\n"
        + "".join("  " + line + "\n" for line in (
            "- {schema: olm.package, name: example-operator, defaultChannel: stable}",
            "- schema: olm.channel", "  name: stable", "  package: example-operator", "  entries:",
            "    - {name: example-operator.v1.0.0}",
            "    - {name: example-operator.v1.1.0, replaces: example-operator.v1.0.0}")))
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "template")
    head = git(ws, "rev-parse", "HEAD")
    sync_pull(fake, ws, base, head)
    run_action(fake, tmp_path, ws, "run")
    graph = _graph_section(fake.issue_comments_for(1)[0].body)
    assert 'c0n1["1.1.0 (new, head)"]:::changed' in graph and "c0n0 --> c0n1" in graph
    assert "as the pull request's catalog template lists it" in graph.replace("\\", "")


def test_broken_release_config_is_no_traceback(fake_github, tmp_path):
    fake = fake_github
    ws, base, _head = _fbc_repo(tmp_path)
    (ws / OP / "1.1.0" / "release-config.yaml").write_text("catalog_templates: [{template_name: [x]}, 7, {: \n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "broken")
    head = git(ws, "rev-parse", "HEAD")
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run")
    assert "Traceback" not in r["stderr"] and "could not be drawn" not in r["stderr"]


def test_a_first_bundle_of_a_new_operator_gets_no_one_node_graph(fake_github, tmp_path):
    fake = fake_github
    ws = tmp_path / "ws"
    (ws / "operators").mkdir(parents=True)
    git(ws, "init", "-q", "-b", "main")
    (ws / "README.md").write_text("catalog\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    base = git(ws, "rev-parse", "HEAD")
    git(ws, "checkout", "-q", "-b", "feature")
    shutil.copytree(FIX / "catalog-base" / OP, ws / OP)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "new operator")
    head = git(ws, "rev-parse", "HEAD")
    sync_pull(fake, ws, base, head)
    run_action(fake, tmp_path, ws, "run")
    assert "### Upgrade graph" not in fake.issue_comments_for(1)[0].body
