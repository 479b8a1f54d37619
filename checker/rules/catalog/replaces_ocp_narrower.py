"""
What: the bundle that `spec.replaces` names is published to fewer OpenShift catalogs
(its `com.redhat.openshift.versions`) than the new bundle. The releases are limited to
the catalogs the repository builds (its `catalogs/v4.X` directories) when it has them.

Why: the catalog's CI (static check `check_replaces_availability`, for every update
mode) fails a bundle published to supported releases its replaced bundle is not in; in
replaces mode, in those releases' catalogs the replaces chain reaches a bundle the
catalog lacks, which opm refuses.

Fix: widen the replaced bundle's range or narrow the new one so the new range is inside
the old one (the CI's advice: align the label with the replaced bundle's).

Bad:  1.0.0 labelled "v4.14", 1.1.0 (replaces 1.0.0) labelled "v4.12"
Good: both labelled "v4.12", or 1.1.0 labelled "v4.14"
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...upgrade_graph import label_of
from ...versions import clip, release_ranges, vkey
from .. import define, refusal
from ..lib.catalog import chain_text, fact_pos, fbc_operator, operators, semver_mode

OPM_LOAD = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/sqlite/load.go"
CI_COMMON_BUNDLE = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/common/bundle.py"

RULE = define("replaces-ocp-narrower", "The replaced bundle is published to fewer OpenShift releases than the new one", __doc__, category="catalog", refused_by=[
    refusal("catalog-ci", "the static check check_replaces_availability fails a bundle published to supported OpenShift "
            "releases its replaced bundle is not published to", CI_COMMON_BUNDLE),
    refusal("opm", "in those releases' catalogs the replaces chain reaches a bundle the catalog lacks, which `opm index add` "
            "refuses (replaces mode)", OPM_LOAD),
])


@RULE.check(scope="repo")
def replaces_ocp_narrower(repo: Repository, ctx: Context):
    live = set()
    for oc in repo.fbc.values():
        live.update(oc.live_releases)
    for name, (op, facts) in operators(repo).items():
        if fbc_operator(op):
            continue
        semver = semver_mode(op)
        by_csv = {f.csv_name: f for f in facts if f.csv_name}
        for f in facts:
            if not f.checked or not f.replaces or f.replaces == f.csv_name:
                continue  # replaces-missing: a bundle replacing itself
            old = by_csv.get(f.replaces)
            if old is None:
                continue  # replaces-missing
            path, line, col = fact_pos(f)
            new_rel, old_rel = set(f.ocp_versions), set(old.ocp_versions)
            missing = new_rel - old_rel
            if live:
                missing &= live
                if not (old_rel & live):
                    # the replaced bundle is in none of the catalogs built today: the new one is
                    # the tail of the chain there, which opm accepts (historical bundles)
                    missing = set()
            if missing:
                ms = sorted(missing, key=vkey)
                effect = ("the catalog's CI refuses it (this semver-mode operator's catalogs ignore replaces, but the CI compares the ranges)"
                          if semver else "in those catalogs the replaces chain reaches a bundle the catalog lacks, which opm refuses, and the "
                          "catalog's CI refuses it")
                yield RULE.at(path, None,
                              f"this bundle ({clip(label_of(f), 30)}) is published to OpenShift {release_ranges(ms)}, where the bundle it "
                              f"replaces ({clip(f.replaces, 40)}) is not", ocp=ms, line=line, column=col,
                              detail=f"Their labels: this one's '{f.label or 'none'}', the replaced bundle's '{old.label or 'none'}'; "
                              f"{effect}. Align the ranges: widen {old.version_dir or old.rel}'s com.redhat.openshift.versions, or "
                              f"narrow this one's to the replaced bundle's.{chain_text(f, facts)}")
