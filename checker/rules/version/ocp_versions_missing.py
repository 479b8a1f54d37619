"""
What: metadata/annotations.yaml has no `com.redhat.openshift.versions`. The bundle is then
published to the catalogs of every OpenShift release that has one (4.6 and later; 4.1-4.5
shared one App Registry catalog that nothing publishes to any more). When minKubeVersion
keeps it from installing on some of those releases, this is an error in every profile
(OLM refuses the install there); so it is, inside a catalog repository, for any bundle
that sets minKubeVersion (the community CI's `check_api_version_constraints` fails a
minKubeVersion without a range, for operators without file-based catalogs); when only
maxOpenShiftVersion limits it, a warning (published where it blocks cluster upgrades, as
`max-ocp-version-range` says for a label). An error in the `certified` profile. Not
reported for operators whose file-based catalogs decide publication (ci.yaml
`fbc.enabled: true`); releases below 4.6 alone are not reported. When the bundle declares
no constraint at all, `no-version-constraints` says it instead (once), unless this rule's
finding is the more severe one.

Why: users of those releases see an operator that fails to install.

Refused by: the community catalog CI (`check_api_version_constraints`: minKubeVersion
without a range) and OLM's install (minKubeVersion above the cluster's Kubernetes).

Fix: add the range the bundle supports, e.g. `com.redhat.openshift.versions: "v4.12-v4.16"`.
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from ...versions import LABEL_KEY, vkey
from .. import define, refusal
from ..lib.versions_common import CI_BUNDLE_CHECKS, CI_INDICES, OLM_REQUIREMENTS, fbc_operator, rels

RULE = define("ocp-versions-missing", "No com.redhat.openshift.versions: the bundle goes to every catalog",
              __doc__, category="version", refused_by=[
    refusal("catalog-ci", "check_api_version_constraints fails a bundle that sets minKubeVersion without "
            "com.redhat.openshift.versions",
            CI_BUNDLE_CHECKS),
    refusal("olm-install", "on a release whose Kubernetes is below minKubeVersion the CSV fails its requirements (\"CSV version "
            "requirement not met\")",
            OLM_REQUIREMENTS),
    refusal("certification", "the certified pipeline fails a bundle without com.redhat.openshift.versions (\"annotation not "
            "defined\"; only community operators may leave it out)",
            CI_INDICES),
])


@RULE.check
def ocp_versions_missing(bundle: Bundle, ctx: Context):
    # no label at all (reported always; no-version-constraints supersedes it when the bundle
    # declares nothing, and profiles/config settle its severity: engine.settle)
    vi = bundle.versions
    af = bundle.annotations_file
    if bundle.annotations is None or af is None:
        return
    table = ctx.ocp
    if vi.label_node is not None or fbc_operator(bundle) or bundle.mediatype not in (REGISTRY_V1, None):
        return
    catalogs = table.catalog_releases
    # releases minKubeVersion keeps it from installing on, and releases above
    # maxOpenShiftVersion (it installs there, but blocks the cluster's upgrades)
    excluded = [r for r in catalogs if r.ocp not in vi.ocp_installable
                or (vi.max_ocp is not None and r.key > vkey(vi.max_ocp))] if not vi.explicit_target else []
    by_kube = [r for r in excluded if vi.min_kube and r.kube_key < vkey(vi.min_kube)]
    # the community catalog CI (check_api_version_constraints, skipped for FBC operators) fails
    # any bundle of a catalog repository that sets minKubeVersion without the label
    # (the CI reads spec["minKubeVersion"], a case-sensitive key: OLM obeys spec.MinKubeVersion, the CI does not see it)
    spec = bundle.csv.spec() if bundle.csv is not None else None
    ci_refuses = bundle.operator is not None and vi.min_kube is not None and spec is not None and "minKubeVersion" in spec
    ci_note = (" The community catalog CI fails a bundle that sets minKubeVersion without the label "
               "(check_api_version_constraints).") if ci_refuses else ""
    if excluded and (vi.max_ocp or vi.min_kube):
        why = []
        if by_kube:
            why.append(f"minKubeVersion {vi.min_kube_node.raw if vi.min_kube_node is not None else vi.min_kube}")
        if vi.max_ocp and any(r.key > vkey(vi.max_ocp) for r in excluded):
            why.append(f"maxOpenShiftVersion {vi.max_ocp}")
        ok = [r for r in catalogs if r.ocp in vi.ocp_installable]
        example = f"v{ok[0].ocp}{'-v' + ok[-1].ocp if vi.max_ocp else ''}" if ok else "v4.x"
        consequence = (f"keeps it from installing on {rels(by_kube)} (OLM refuses the install there)" if by_kube else
                       f"makes clusters on {rels(excluded)} that install it unable to upgrade")
        if by_kube and len(why) > 1:
            consequence += f"; maxOpenShiftVersion {vi.max_ocp} blocks the upgrades of clusters on {rels([r for r in excluded if r not in by_kube])}"
        yield RULE.at(af, bundle.annotations,
                      f"no {LABEL_KEY}, so it is published to OpenShift {rels(catalogs)}, but {' and '.join(why)} "
                      f"{'exclude' if len(why) > 1 else 'excludes'} {rels(excluded)}",
                      kind=("kube" if ci_refuses else "kube-olm") if by_kube else ("ci" if ci_refuses else ""), ocp=excluded,
                      detail=f"Without the label the bundle goes to the catalogs of every OpenShift release, but {' and '.join(why)} "
                      f"{consequence}. Add the range it supports, e.g. {LABEL_KEY}: \"{example}\".{ci_note}")
    else:
        yield RULE.at(af, bundle.annotations,
                      f"no {LABEL_KEY}{' while minKubeVersion is set' if ci_refuses else ''}, so the bundle is published to the "
                      f"catalogs of every OpenShift release ({rels(catalogs)})",
                      kind="ci" if ci_refuses else "", ocp=catalogs if not vi.explicit_target else vi.ocp_versions,
                      detail=f"Add the range it supports, e.g. {LABEL_KEY}: \"v4.12\".{ci_note}")
