"""
What: minKubeVersion is above the Kubernetes version of OpenShift releases the bundle is
published to (by its label, or for a file-based-catalog operator by the catalogs that list
it or its ci.yaml `catalog_mapping`), or above the Kubernetes of maxOpenShiftVersion.
Releases before 4.6 (no per-release catalog) are not counted. The value is read whatever
its key's case (`spec.MinKubeVersion` too: OLM decodes the CSV with Go's encoding/json,
which matches field names case-insensitively; the spelling is `csv-unknown-field`'s
warning). A warning when no catalog
lists the bundle yet and its ci.yaml maps several catalog templates to different releases
(which template will list it is not known, and no label narrows it). Each finding's
releases are exactly the published releases concerned. Above the Kubernetes of
maxOpenShiftVersion (kind `above-max`): every release it installs on is above its max, so
a cluster that installs it is at once blocked from upgrading (max is no install barrier).

Why: users of those releases see the operator in their catalog and cannot install it.

Refused by: OLM's install (the CSV's minKubeVersion requirement) and the community
catalog CI (`check_api_version_constraints`, for operators without file-based catalogs).

Fix: start the label at the first release whose Kubernetes satisfies minKubeVersion, or
lower minKubeVersion.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import LABEL_KEY, clip, parse_min_kube
from .. import define, refusal
from ..lib.versions_common import CI_BUNDLE_CHECKS, OLM_MAX, OLM_REQUIREMENTS, min_kube_place, rels, uncertain, uncertain_note

RULE = define("min-kube-version-range", "minKubeVersion excludes releases the bundle is published to",
              __doc__, category="version", refused_by=[
    refusal("olm-install", "on a release whose Kubernetes is below minKubeVersion the CSV fails its requirements (\"CSV version "
            "requirement not met\")",
            OLM_REQUIREMENTS),
    refusal("catalog-ci", "check_api_version_constraints fails a range with releases whose Kubernetes is below minKubeVersion",
            CI_BUNDLE_CHECKS),
    refusal("cluster-upgrade", "with minKubeVersion above the Kubernetes of maxOpenShiftVersion, every release the bundle installs "
            "on is above its max: OLM marks a cluster that installs it not upgradeable at once",
            OLM_MAX),
])


@RULE.check
def min_kube_version_range(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    table = ctx.ocp
    file, node = min_kube_place(bundle)
    if node is None:
        return
    mk, err = parse_min_kube(node.value, node.raw)
    if err or mk is None or vi.publication_source == "all-known":
        return
    below = [r for r in table.releases if r.ocp in vi.ocp_versions and r.kube_key < mk]
    if not vi.explicit_target:
        below = table.with_catalog(below)  # 4.1-4.5: no per-release catalog to be published to
    if below:
        where = "the --ocp target" if vi.explicit_target else (
            "its catalogs" if vi.publication_source == "catalogs" else
            "its ci.yaml catalog_mapping" if vi.publication_source == "catalog-mapping" else f"{LABEL_KEY} '{vi.label}'")
        first = table.first_with_kube(mk)
        yield RULE.at(file, node,
                      f"minKubeVersion {clip(node.raw)} is above the Kubernetes of OpenShift {rels(below)} "
                      f"({', '.join(f'{r.ocp}: {r.kube}' for r in below[:4])}{'…' if len(below) > 4 else ''})",
                      kind="uncertain" if uncertain(bundle) else "", ocp=below,
                      detail=f"Those releases are in the bundle's range ({where}), and OLM refuses to install it there"
                      f"{uncertain_note(bundle)}. Start the range at "
                      f"{(first.ocp if first else 'a newer release')} or lower minKubeVersion.")
    if vi.max_ocp is not None:
        rel = table.get(vi.max_ocp)
        if rel is not None and rel.kube_key < mk:
            # max is no install barrier: it installs where its Kubernetes is met, all above max
            installs = [r for r in table.releases if r.ocp in vi.ocp_installable]
            yield RULE.at(file, node,
                          f"minKubeVersion {clip(node.raw)} is above Kubernetes {rel.kube} of maxOpenShiftVersion {vi.max_ocp}",
                          ocp=installs, kind="above-max",
                          detail="OLM installs the bundle only where Kubernetes meets minKubeVersion"
                          f"{' (OpenShift ' + rels(installs) + ' of the releases it is published to)' if installs else ''}, all above "
                          f"maxOpenShiftVersion {vi.max_ocp}, which OLM reads only to block cluster upgrades: a cluster that "
                          "installs it is at once marked not upgradeable. Raise maxOpenShiftVersion or lower minKubeVersion.")
