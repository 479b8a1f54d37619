"""
What: in a catalog repository, a bundle's `spec.replaces` must name the CSV (metadata.name)
of another bundle of the same operator that is in the repository (checked offline,
without asking any index).

Why: in replaces mode opm walks each channel's replaces chain from its head and refuses a
chain that reaches a missing bundle ("replaces nonexistent bundle"); the catalog's CI
(static check `check_replaces_availability`) refuses a bundle that replaces itself or a
version the repository does not have. The CI runs that check for `updateGraph:
semver-mode` operators too, although opm ignores `replaces` there (edges follow version
order): the finding stays an error there, and its message says so.

Fix: write the exact CSV name of the previous version (`<package>.v<version>`), or
remove `replaces` for the first bundle of a channel.

Bad:
    spec:
      version: 1.1.0
      replaces: foo.v1.0.9      # no such bundle
Good:
    spec:
      version: 1.1.0
      replaces: foo.v1.0.0
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...upgrade_graph import version_of
from ...versions import clip
from .. import define, refusal
from ..lib.catalog import SEMVER_NOTE, chain_text, fact_pos, fbc_operator, few, operators, semver_mode

OPM_LOAD = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/sqlite/load.go"
CI_COMMON_BUNDLE = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/common/bundle.py"

RULE = define("replaces-missing", "spec.replaces names the bundle itself or a version not in the repository", __doc__, category="catalog", refused_by=[
    refusal("catalog-ci", "the static check check_replaces_availability fails a bundle that replaces itself or a version the "
            "repository does not have (in every update mode)", CI_COMMON_BUNDLE),
    refusal("opm", "`opm index add` (replaces mode) refuses a channel whose replaces chain reaches a missing bundle "
            "(\"replaces nonexistent bundle\")", OPM_LOAD),
])


@RULE.check(scope="repo")
def replaces_missing(repo: Repository, ctx: Context):
    for name, (op, facts) in operators(repo).items():
        if fbc_operator(op):
            continue
        semver = semver_mode(op)
        by_csv = {f.csv_name: f for f in facts if f.csv_name}
        for f in facts:
            if not f.checked or not f.replaces:
                continue
            path, line, col = fact_pos(f)
            if f.replaces == f.csv_name:
                yield RULE.at(path, None, f"spec.replaces names this bundle itself ({clip(f.replaces)})",
                              line=line, column=col,
                              detail=f"A bundle cannot upgrade from itself{SEMVER_NOTE if semver else ''} and the catalog's CI "
                              "refuses it. Name the previous version's CSV, or remove replaces.")
                continue
            if by_csv.get(f.replaces) is not None:
                continue
            near = sorted((g for g in facts if g.csv_name and g is not f and version_of(g) is not None and version_of(f) is not None
                           and version_of(g).key() < version_of(f).key()), key=lambda g: version_of(g).key())
            hint = f" The closest older bundle in the repository is {near[-1].csv_name}." if near else ""
            named = [g for g in facts if g.csv_name and f.replaces.lstrip("v") in (g.version, g.version_dir)]
            if named:
                hint = f" spec.replaces takes the CSV name (metadata.name), not a version: write {named[0].csv_name}."
            who = (f"{SEMVER_NOTE.strip(' (),')}, but the catalog's CI still refuses a replaces naming a version the "
                   "repository does not have" if semver else
                   "opm refuses to build a channel whose replaces chain reaches a missing bundle, and the catalog's CI refuses it")
            yield RULE.at(path, None,
                          f"spec.replaces names {clip(f.replaces)}, but no bundle of operator '{name}' in the repository has that CSV name",
                          line=line, column=col,
                          detail=f"The operator's CSVs: {few(sorted(by_csv))}; {who}.{hint} "
                          f"Name an existing CSV or remove replaces.{'' if semver else chain_text(f, facts)}")
