"""OpenShift version range rules: the label, maxOpenShiftVersion, minKubeVersion, and the
Kubernetes APIs a bundle uses against every release it is published to or can upgrade into.

Everything here reads ``bundle.versions`` (checker/versions_analysis.py) and the tables of
``checker/data/`` through ``ctx.ocp`` / ``ctx.apis``.
"""
from __future__ import annotations

import json
import re
from typing import Optional

from ..finding import Fix
from ..model import REGISTRY_V1, Bundle
from ..nodes import Mapping, Scalar, Sequence
from ..versions import release_ranges as _ranges
from ..versions import ACCEPTED_FORMS, LABEL_KEY, MAX_TYPE, clip, label_unknown, norm, parse_min_kube, vkey, vstr
from . import check, define, finding, refusal
from .lib.csv import data
from .lib.fixes import fix_value

CAT = "version"

# Where what refuses these findings is written (the `refused_by` sources).
OLM_MAX = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/openshift/helpers.go"
OLM_REQUIREMENTS = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/olm/requirements.go"
CI_BUNDLE_CHECKS = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/community/bundle.py"
CI_INDICES = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/__init__.py"
OCP_VERSIONS_DOC = ("https://redhat-connect.gitbook.io/certified-operator-guide/ocp-deployment/operator-metadata/"
                    "bundle-directory/managing-openshift-versions")
K8S_DEPRECATION_GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"
API_REMOVED_APIS = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/removed_apis.go"
K8S_WEBHOOK_VALIDATION = "https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/admissionregistration/validation/validation.go"

_CATALOGS_DECIDE = ("catalogs", "catalog-mapping", "unlisted")


def _rels(releases) -> str:
    return _ranges([getattr(r, "ocp", r) for r in releases])


def _detail(text) -> str:
    """The why and the fix a parsed value's problem carries (``checker.versions.Said``)."""
    return getattr(text, "detail", "")


def _fbc_operator(bundle: Bundle) -> bool:
    """The bundle belongs to an operator whose file-based catalogs decide publication
    (ci.yaml ``fbc.enabled: true``): its label does not, and catalog CI skips label checks."""
    return bundle.versions.fbc_operator or bundle.versions.publication_source in _CATALOGS_DECIDE


# ---------------------------------------------------------------------------------------
# The label

define("ocp-versions-syntax", "error", "com.redhat.openshift.versions is not a valid range", category=CAT, refused_by=[
    refusal("catalog-ci", "the pipeline's get-supported-versions step asks for the catalogs of the range; a value it cannot "
            "read fails the step or names no catalog, so the bundle is published nowhere", CI_INDICES),
    refusal("certification", "Red Hat's documented grammar for the range; other forms are not supported", OCP_VERSIONS_DOC),
], explanation=f"""
    What: the `com.redhat.openshift.versions` annotation (metadata/annotations.yaml) must be
    one of the documented forms: {ACCEPTED_FORMS}; the legacy `v4.5,v4.6` is also accepted.

    Why: catalog tooling decides from this value which OpenShift catalogs include the bundle;
    a value it cannot read keeps the bundle out of every catalog (or, for a YAML number such as
    an unquoted `4.10`, reads a different release: 4.1).

    Refused by: the catalog pipeline, which asks for the catalogs of the range (a value it
    cannot read fails that step or names no catalog).

    Fix: write one of the accepted forms, quoted.

    Bad:
        com.redhat.openshift.versions: 4.10
        com.redhat.openshift.versions: "v4.6 - v4.8"
    Good:
        com.redhat.openshift.versions: "v4.10"
        com.redhat.openshift.versions: "v4.6-v4.8"
    """)

define("ocp-versions-style", "info", "com.redhat.openshift.versions is accepted but not in the documented form", category=CAT, explanation="""
    What: the value is read by catalog tooling but is off the documented form: a missing `v`
    (`4.12`, `4.14-4.17`), a lower bound below OpenShift 4 (`v3.6-v4.8`), the legacy comma
    list (`v4.5,v4.6`).

    Why: the documented form is what people copy and read. The catalog pipeline passes the
    value to Pyxis (operator-pipelines, `ocp_version_info`), which publishes such bundles to
    the intended catalogs (bundles spelled this way are in the community catalogs), and OLM
    does not read the label: nothing changes, hence info.

    Fix: use the canonical spelling the message gives.

    Bad:
        com.redhat.openshift.versions: "4.14-4.17"
    Good:
        com.redhat.openshift.versions: "v4.14-v4.17"
    """)

define("ocp-versions-mismatch", "error", "annotations.yaml and the Dockerfile LABEL disagree on the OpenShift range", category=CAT, mixed=True, refused_by=[
    refusal("certification", "a bundle image built from this Dockerfile is published to the catalogs its LABEL names, "
            "not those annotations.yaml names", OCP_VERSIONS_DOC),
], explanation="""
    What: for a bundle checked on its own (not inside a catalog repository), the
    `com.redhat.openshift.versions` in metadata/annotations.yaml and the LABEL of the same
    name in bundle.Dockerfile (or Dockerfile) name different ranges (error), or one of them
    lacks it (the Dockerfile: warning). No Dockerfile at all is fine. Inside a catalog
    repository (`operators/<name>/<version>/`) the rule does not apply: the catalog pipeline
    generates the Dockerfile from annotations.yaml (operator-pipelines' dockerfile-creation
    step), so the Dockerfile in the pull request is never built.

    Why: the bundle image's labels and its annotations.yaml are read by different tools; when
    they disagree, the bundle lands in catalogs nobody intended.

    Refused by: publication of the built bundle image, which follows the image's LABEL
    (Red Hat's "Managing OpenShift versions").

    Fix: make both the same value.
    """)

define("ocp-versions-missing", "warning", "No com.redhat.openshift.versions: the bundle goes to every catalog", category=CAT,
       mixed=True, refused_by=[
           refusal("catalog-ci", "check_api_version_constraints fails a bundle that sets minKubeVersion without "
                   "com.redhat.openshift.versions", CI_BUNDLE_CHECKS),
           refusal("olm-install", "on a release whose Kubernetes is below minKubeVersion the CSV fails its requirements "
                   "(\"CSV version requirement not met\")", OLM_REQUIREMENTS),
           refusal("certification", "the certified pipeline fails a bundle without com.redhat.openshift.versions "
                   "(\"annotation not defined\"; only community operators may leave it out)", CI_INDICES),
       ], explanation="""
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
    """)

define("ocp-versions-unknown", "warning", "The range names OpenShift releases olm-check does not know", category=CAT, explanation="""
    What: the label names a release that is not in olm-check's table: above its newest one, or
    a 4.x release that does not exist (the release after 4.22 is 5.0, also called 4.23, as
    OLM's `normalizeOCPVersion` has it: `v4.24` names no release).

    Why: not a mistake of the bundle, but olm-check cannot check what it does not know; the
    release's Kubernetes version decides which APIs are removed.

    Fix: update olm-check, or add the release in .olm-check.yaml:
        ocp_releases:
          - {ocp: "5.1", kube: "1.37", ga: false}
    """)

define("ocp-versions-closed-range", "info", "The range ends before the newest OpenShift release, or names no release still built",
       category=CAT, refused_by=[
           refusal("catalog-ci", "the pipeline's release lookup keeps the label's releases that are still supported and "
                   "fails the pull request when none is (\"No supported indices found\")", CI_INDICES),
       ], explanation="""
    What: the label has an upper bound (`v4.12-v4.16`, `=v4.14`) below the newest GA release.

    Why: the bundle silently disappears from the catalogs of newer releases; users there do
    not see this version. That may be what you want (the next version takes over) — this is
    a reminder, not a problem.

    A label that names only releases whose catalogs are no longer built (kind `unpublished`)
    publishes the bundle nowhere, and the catalog pipelines refuse it: their release lookup
    (`ocp_version_info`) fails with "No supported indices found".

    Fix: nothing, or open the range (`v4.12`) when the bundle works on newer releases too;
    a label that reaches no supported release must name one.
    """)


@check("bundle")
def label_rules(bundle: Bundle, ctx):
    vi = bundle.versions
    af = bundle.annotations_file
    table = ctx.ocp
    if bundle.annotations is None or af is None:
        return
    lr = vi.label_parsed
    node = vi.label_node
    fbc = _fbc_operator(bundle)
    if lr is not None:
        if not lr.ok:
            fix = None
            if isinstance(node, Scalar) and not isinstance(node.value, str) and node.value is not None:
                fix = fix_value(af, node, f'"v{node.raw}"', "quote the value and add the 'v'")
            elif isinstance(node, Scalar) and isinstance(node.value, str) and "V" in node.value and not re.search(r"\s", node.value):
                fix = fix_value(af, node, '"' + node.value.replace("V", "v") + '"', "use a lowercase 'v'")
            elif isinstance(node, Scalar) and isinstance(node.value, str) and re.search(r"\s", node.value):
                fix = fix_value(af, node, '"' + re.sub(r"\s+", "", node.value) + '"', "remove the spaces")
            yield finding("ocp-versions-syntax", af, node, f"{LABEL_KEY}: {lr.error}", fix=fix, detail=_detail(lr.error))
        else:
            for msg in lr.style:
                fix = fix_value(af, node, f'"{lr.canonical}"', f"write {lr.canonical}") if lr.canonical else None
                yield finding("ocp-versions-style", af, node, f"{LABEL_KEY}: {msg}", fix=fix, detail=_detail(msg))
            unknown = label_unknown(lr, table)
            if unknown:
                yield finding("ocp-versions-unknown", af, node,
                              f"{LABEL_KEY} names OpenShift {', '.join(unknown)}, which olm-check's release table does not know "
                              f"(it ends at {table.newest.label()})",
                              detail="Releases beyond the table are not checked. Update olm-check, or add the release under "
                              f"ocp_releases in .olm-check.yaml, e.g. {{ocp: \"{unknown[-1]}\", kube: \"1.xx\", ga: false}}.")
            live = ctx.live() if not fbc and not vi.explicit_target else None
            if live is not None and vi.ocp_versions and not (set(vi.ocp_versions) & live):
                # the pipeline's release lookup keeps only supported releases and fails without one
                # (operator-pipelines operatorcert/__init__.py ocp_version_info: "No supported indices found")
                yield finding("ocp-versions-closed-range", af, node,
                              f"{LABEL_KEY} '{clip(lr.raw)}' names only OpenShift {_rels(vi.ocp_versions)}, whose catalogs are no "
                              "longer built: no built catalog includes the bundle", kind="unpublished", ocp=vi.ocp_versions,
                              detail="The catalog pipeline publishes a bundle to the releases of its label that are still "
                              "supported, and fails the pull request when none is (\"No supported indices found\"). Name a "
                              f"supported release, e.g. 'v{min(live, key=vkey)}'.")
            elif lr.upper is not None and lr.upper < table.newest_ga.key and lr.upper >= table.first.key and not fbc \
                    and not vi.explicit_target:
                after = [r for r in table.releases if r.key > lr.upper and r.ga]
                yield finding("ocp-versions-closed-range", af, node,
                              f"{LABEL_KEY} '{clip(lr.raw)}' ends at {vstr(lr.upper)}: not published to OpenShift {_rels(after)}",
                              ocp=after, detail=f"This version is not in the catalogs of OpenShift {_rels(after)}, so users there will "
                              f"not see it. Open the range ('v{vstr(lr.lower)}') if it works on newer releases too.")
    # Dockerfile LABEL vs annotations.yaml: inside a catalog repository the pipeline generates
    # the Dockerfile from annotations.yaml, so only a standalone bundle's Dockerfile is built
    df = bundle.dockerfile if bundle.operator is None else None
    if df is not None:
        lab = df.labels.get(LABEL_KEY)
        colon = next((x for k, x in df.labels.items() if k.rstrip(":").strip() == LABEL_KEY and k != LABEL_KEY), None)
        if lab is None and node is not None and colon is not None:
            # 'LABEL key: value' is Docker's legacy 'LABEL key value' form: the label is named 'key:'
            yield finding("ocp-versions-mismatch", df.file, None,
                          f"the LABEL {LABEL_KEY} is written 'key: value', so the image has no such label", severity="warning", line=colon.line, column=colon.column,
                          detail="Docker reads 'LABEL key value' (no '=') as the legacy form and keeps the colon in the key, so a "
                          f"bundle image built from this Dockerfile lacks {LABEL_KEY}. Write LABEL {LABEL_KEY}=\"{vi.label}\".")
        elif lab is None and node is not None:
            yield finding("ocp-versions-mismatch", df.file, None,
                          f"{df.file.rel.rsplit('/', 1)[-1]} has no LABEL {LABEL_KEY}, while metadata/annotations.yaml sets it to "
                          f"'{clip(vi.label)}'", severity="warning", line=1, column=1,
                          detail=f"A bundle image built from this Dockerfile lacks the label. Add: LABEL {LABEL_KEY}=\"{vi.label}\".")
        elif lab is not None and node is None:
            yield finding("ocp-versions-mismatch", af, bundle.annotations,
                          f"metadata/annotations.yaml has no {LABEL_KEY}, while the Dockerfile sets LABEL {clip(lab.value)} (line {lab.line})",
                          detail=f"Tools reading annotations.yaml publish the bundle to every catalog. Add '{LABEL_KEY}: \"{lab.value}\"' here.")
        elif lab is not None and lr is not None:
            from ..versions import parse_label

            dl = parse_label(lab.value)
            same = (dl.ok and lr.ok and (dl.lower, dl.upper, dl.exact) == (lr.lower, lr.upper, lr.exact)) or dl.raw == lr.raw
            if not same:
                yield finding("ocp-versions-mismatch", df.file, None,
                              f"LABEL {LABEL_KEY}={clip(lab.value)} differs from metadata/annotations.yaml ('{clip(vi.label)}')",
                              line=lab.line, column=lab.column,
                              detail="The image and the catalog would publish the bundle to different releases. Make them the same.")
    # no label at all (reported always; no-version-constraints supersedes it when the bundle
    # declares nothing, and profiles/config settle its severity: engine.settle)
    if node is None and not fbc and bundle.mediatype in (REGISTRY_V1, None):
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
            consequence = (f"keeps it from installing on {_rels(by_kube)} (OLM refuses the install there)" if by_kube else
                           f"makes clusters on {_rels(excluded)} that install it unable to upgrade")
            if by_kube and len(why) > 1:
                consequence += f"; maxOpenShiftVersion {vi.max_ocp} blocks the upgrades of clusters on {_rels([r for r in excluded if r not in by_kube])}"
            yield finding("ocp-versions-missing", af, bundle.annotations,
                          f"no {LABEL_KEY}, so it is published to OpenShift {_rels(catalogs)}, but {' and '.join(why)} "
                          f"{'exclude' if len(why) > 1 else 'excludes'} {_rels(excluded)}",
                          kind=("kube" if ci_refuses else "kube-olm") if by_kube else ("ci" if ci_refuses else ""), ocp=excluded,
                          detail=f"Without the label the bundle goes to the catalogs of every OpenShift release, but {' and '.join(why)} "
                          f"{consequence}. Add the range it supports, e.g. {LABEL_KEY}: \"{example}\".{ci_note}")
        else:
            yield finding("ocp-versions-missing", af, bundle.annotations,
                          f"no {LABEL_KEY}{' while minKubeVersion is set' if ci_refuses else ''}, so the bundle is published to the "
                          f"catalogs of every OpenShift release ({_rels(catalogs)})",
                          kind="ci" if ci_refuses else "", ocp=catalogs if not vi.explicit_target else vi.ocp_versions,
                          detail=f"Add the range it supports, e.g. {LABEL_KEY}: \"v4.12\".{ci_note}")


# ---------------------------------------------------------------------------------------
# maxOpenShiftVersion

define("max-ocp-version-syntax", "error", "olm.maxOpenShiftVersion is not a valid {major}.{minor} string", category=CAT, mixed=True, refused_by=[
    refusal("cluster-upgrade", "OLM cannot read the value, reports the CSV as having an invalid olm.maxOpenShiftVersion and "
            "marks the cluster not upgradeable to any minor release", OLM_MAX),
], explanation="""
    What: the `olm.maxOpenShiftVersion` property (CSV annotation `olm.properties` or
    metadata/properties.yaml) must be a JSON/YAML string `"{major}.{minor}"`. A number (an
    unquoted `4.20` is the float 4.2), an empty value, something unparsable (OLM uses blang/semver
    `ParseTolerant`, which refuses build metadata on a short version: `4.8+build`), a non-zero
    patch or a pre-release (`4.8.1`, `4.8.0-rc.1`), or invalid `olm.properties` JSON is an error;
    `4.8.0`, `4.8.0+build` or `v4.8` is a warning.

    Why: today's OLM reports the CSV as having an invalid olm.maxOpenShiftVersion and blocks
    every minor cluster upgrade; older OLM failed on a number. A number has two readings, and
    the finding says both and lets the author choose: `4.10` as written, `4.1` as a float.
    OLM holds a property's raw JSON text, so in the olm.properties annotation it reads `4.10`;
    opm converts metadata/properties.yaml with a YAML parser, so there OLM gets `4.1`.

    Refused by: OLM's `maxOpenShiftVersion()` (operator-lifecycle-manager,
    pkg/controller/operators/openshift/helpers.go), which blocks cluster upgrades.

    Fix: write it as a quoted major.minor.

    Bad:
        properties:
          - type: olm.maxOpenShiftVersion
            value: 4.20
    Good:
        properties:
          - type: olm.maxOpenShiftVersion
            value: "4.20"
    """)

define("max-ocp-version-ignored", "error", "maxOpenShiftVersion is declared where OLM never reads it", category=CAT, refused_by=[
    refusal("cluster-upgrade", "OLM reads the limit only from the olm.maxOpenShiftVersion property: declared anywhere else it "
            "does not stop clusters from upgrading past it, into releases the bundle says it cannot run on", OLM_MAX),
], explanation="""
    What: maxOpenShiftVersion set as a CSV annotation `operators.coreos.com/maxOpenShiftVersion`
    (the spelling of the enhancement proposals, never shipped), as a key in
    metadata/annotations.yaml, as a Dockerfile LABEL, or as a property type in
    metadata/properties.yaml, or of an `olm.bundle` in a file-based catalog (catalogs/), other
    than `olm.maxOpenShiftVersion` (seed 001's `operators.coreos.com/maxOpenShiftVersion`, which
    its declarative index example writes per bundle).

    Why: OLM reads it only from the `olm.maxOpenShiftVersion` property
    (`MaxOpenShiftVersionProperty` in OLM's pkg/controller/operators/openshift/helpers.go; seed
    001's key is not what OLM implemented); anywhere else it has no
    effect and cluster upgrades are not blocked.

    Refused by: nothing refuses the declaration; the cluster upgrade it was meant to stop goes
    through (OLM's `maxOpenShiftVersion()` reads the CSV's olm.properties only).

    Fix: move it to metadata/properties.yaml:
        properties:
          - type: olm.maxOpenShiftVersion
            value: "4.8"
    or to the CSV annotation `olm.properties: '[{"type": "olm.maxOpenShiftVersion", "value": "4.8"}]'`.
    """)

define("max-ocp-version-ambiguous", "error", "olm.maxOpenShiftVersion is declared more than once", category=CAT, refused_by=[
    refusal("cluster-upgrade", "OLM refuses more than one olm.maxOpenShiftVersion (\"defining more than one ... is not allowed\") "
            "and marks the cluster not upgradeable", OLM_MAX),
], explanation="""
    What: more than one `olm.maxOpenShiftVersion` declaration (twice in one list, or in both
    the CSV's `olm.properties` and metadata/properties.yaml), whatever the values.

    Why: today's OLM refuses more than one ("defining more than one ... is not allowed") and
    blocks cluster upgrades; older OLM took the highest.

    Refused by: OLM's `maxOpenShiftVersion()`, which blocks cluster upgrades.

    Fix: keep exactly one declaration.
    """)

define("max-ocp-version-range", "error", "maxOpenShiftVersion conflicts with the published range", category=CAT, mixed=True, refused_by=[
    refusal("cluster-upgrade", "a cluster running a release above maxOpenShiftVersion that installs the bundle is marked not "
            "upgradeable at once (OLM compares the cluster's next minor release with the CSV's max)", OLM_MAX),
], explanation="""
    What: maxOpenShiftVersion below the label's lower bound (every release the bundle is
    published to is above its max), or a label that reaches releases above
    maxOpenShiftVersion (some of them: max 4.12 with `v4.12-v4.14`, seed 000's own example
    of an invalid combination). Both are errors.

    Why: a cluster above maxOpenShiftVersion that installs the bundle is at once marked not
    upgradeable (OLM compares max with the cluster's next minor release); every release above
    max that the label publishes to is one where every user who installs the bundle blocks
    their cluster's upgrades.

    Refused by: OLM's upgradeable check (`incompatibleOperators` in
    pkg/controller/operators/openshift/helpers.go), which blocks cluster upgrades.

    Fix: close the label at maxOpenShiftVersion (`v4.6-v4.8` with max "4.8"), or raise max.
    """)

define("upgrade-blocker", "info", "maxOpenShiftVersion blocks cluster upgrades", category=CAT, explanation="""
    What: with maxOpenShiftVersion X.Y, a cluster with this bundle installed is marked Not
    Upgradeable to any minor release above X.Y.

    Why: cluster admins will have to upgrade or remove the operator before they upgrade
    OpenShift; make sure a newer version of the operator exists for them.

    Fix: nothing, if intended; ship a version without the limit when the operator supports newer releases.
    """)


@check("bundle")
def max_rules(bundle: Bundle, ctx):
    vi = bundle.versions
    table = ctx.ocp
    decls = vi.max_ocp_decls
    for d in decls:
        if d.error:
            yield finding("max-ocp-version-syntax", d.file, d.node, f"olm.maxOpenShiftVersion: {d.error}",
                          fix=_max_fix(d), detail=_detail(d.error))
        elif d.warning:
            yield finding("max-ocp-version-syntax", d.file, d.node, f"olm.maxOpenShiftVersion: {d.warning}", severity="warning",
                          fix=_max_fix(d), detail=_detail(d.warning))
    if len(decls) > 1:
        places = "; ".join(f"{d.file.rel}:{d.node.line} ({'CSV olm.properties' if d.where == 'csv-olm-properties' else 'properties.yaml'}: {d.raw})" for d in decls)
        valid = [d.version for d in decls if d.version is not None]
        older = f"; older OLM releases take the highest, {vstr(max(valid))}" if valid else ""
        for d in decls[1:]:
            yield finding("max-ocp-version-ambiguous", d.file, d.node,
                          f"olm.maxOpenShiftVersion is declared {len(decls)} times ({', '.join(clip(x.raw, 20) for x in decls)})",
                          detail=f"The declarations: {places}. Today's OLM refuses more than one declaration, reports the CSV as "
                          f"invalid and blocks every minor cluster upgrade{older}. Keep exactly one.")
    # declared where OLM does not read it
    csv = bundle.csv
    if csv is not None:
        ann = csv.annotations()
        if ann is not None:
            for k, v in ann.items():
                if isinstance(k, Scalar) and isinstance(k.value, str) and k.value != "olm.properties" and k.value.lower().endswith("maxopenshiftversion"):
                    yield finding("max-ocp-version-ignored", csv.file, k,
                                  f"the CSV annotation '{clip(k.value)}' has no effect, so cluster upgrades are NOT blocked",
                                  detail="OLM reads maxOpenShiftVersion only from the olm.maxOpenShiftVersion property. Move it to "
                                  f"metadata/properties.yaml (properties: [{{type: olm.maxOpenShiftVersion, value: \"{_plain(v)}\"}}]) "
                                  "or into the olm.properties annotation.")
    if bundle.annotations is not None and bundle.annotations_file is not None:
        for k, v in bundle.annotations.items():
            if isinstance(k, Scalar) and isinstance(k.value, str) and "maxopenshiftversion" in k.value.lower():
                yield finding("max-ocp-version-ignored", bundle.annotations_file, k,
                              f"'{clip(k.value)}' in annotations.yaml has no effect, so cluster upgrades are NOT blocked",
                              detail="OLM reads maxOpenShiftVersion only from the olm.maxOpenShiftVersion property. Move it to "
                              f"metadata/properties.yaml (properties: [{{type: olm.maxOpenShiftVersion, value: \"{_plain(v)}\"}}]).")
    pf = bundle.properties_file
    if pf is not None and pf.documents and isinstance(pf.documents[0], Mapping):
        props = pf.documents[0].get("properties")
        if isinstance(props, Sequence):
            for p in props:
                t = p.get("type") if isinstance(p, Mapping) else None
                if isinstance(t, Scalar) and isinstance(t.value, str) and t.value != MAX_TYPE and "maxopenshiftversion" in t.value.lower():
                    v = p.get("value")
                    # seed 001 names the key operators.coreos.com/maxOpenShiftVersion; the property OLM reads is olm.maxOpenShiftVersion
                    yield finding("max-ocp-version-ignored", pf, t,
                                  f"the property type '{clip(t.value)}' has no effect, so cluster upgrades are NOT blocked",
                                  detail=f"OLM reads maxOpenShiftVersion only from a property of type {MAX_TYPE} (seed 001's "
                                  "operators.coreos.com/maxOpenShiftVersion is not what OLM implemented: "
                                  "pkg/controller/operators/openshift/helpers.go reads MaxOpenShiftVersionProperty, "
                                  f"\"{MAX_TYPE}\"). Write type: {MAX_TYPE}, value: \"{_plain(v)}\".")
    if bundle.dockerfile is not None:
        for key, lab in bundle.dockerfile.labels.items():
            if "maxopenshiftversion" in key.lower():
                yield finding("max-ocp-version-ignored", bundle.dockerfile.file, None,
                              f"the LABEL {clip(key)} has no effect, so cluster upgrades are NOT blocked", line=lab.line, column=lab.column,
                              detail="OLM reads maxOpenShiftVersion only from the olm.maxOpenShiftVersion property. Move it to "
                              f"metadata/properties.yaml (properties: [{{type: olm.maxOpenShiftVersion, value: \"{lab.value}\"}}]).")
    if vi.max_ocp is None:
        return
    mx = vkey(vi.max_ocp)
    first = next((d for d in decls if d.version is not None and norm(d.version) == mx), decls[0] if decls else None)
    lr = vi.label_parsed
    if lr is not None and lr.ok and not vi.explicit_target:
        if lr.lower is not None and mx < lr.lower:
            yield finding("max-ocp-version-range", first.file, first.node,
                          f"maxOpenShiftVersion {vi.max_ocp} is below the lower bound {vstr(lr.lower)} of {LABEL_KEY} '{clip(lr.raw)}'",
                          ocp=vi.ocp_versions,
                          detail="Every release the bundle is published to is above its max, so OLM marks any cluster that "
                          "installs it not upgradeable at once. Raise maxOpenShiftVersion or lower the label.")
        elif lr.upper is None or lr.upper > mx:
            above = [r for r in table.releases if r.key > mx and lr.contains(r.key)]
            if above:
                yield finding("max-ocp-version-range", first.file, first.node,
                              f"{LABEL_KEY} '{clip(lr.raw)}' publishes the bundle to OpenShift {_rels(above)}, above its "
                              f"maxOpenShiftVersion {vi.max_ocp}", ocp=above,
                              detail="OLM compares maxOpenShiftVersion with the cluster's next minor release, so a cluster "
                              "there that installs the bundle from its catalog is marked Not Upgradeable at once (seed 000 "
                              "calls such a combination invalid). Close the label: "
                              f"\"v{vstr(lr.lower)}-v{vi.max_ocp}\".")
    affected = [r for r in table.releases if r.ocp in vi.ocp_versions and r.key <= mx]
    nxt = next((r for r in table.releases if r.key > mx), None)
    yield finding("upgrade-blocker", first.file, first.node,
                  f"maxOpenShiftVersion {vi.max_ocp} stops clusters with this version installed from upgrading past OpenShift {vi.max_ocp}",
                  ocp=affected,
                  detail=f"Such a cluster cannot upgrade{' to ' + nxt.label() + ' or later' if nxt else ''} until the operator is upgraded "
                  f"or removed{'; this applies to clusters installing it from the ' + _rels(affected) + ' catalogs' if affected else ''}.")


def _plain(v) -> str:
    if isinstance(v, Scalar):
        return str(v.value)
    return "X.Y"


def _max_fix(d) -> Optional[Fix]:
    if d.where != "properties.yaml" or d.version is None and not isinstance(d.value, (int, float)):
        return None
    if d.version is not None:
        new = f'"{vstr(d.version)}"'
    elif isinstance(d.value, (int, float)) and not isinstance(d.value, bool) and isinstance(d.node, Scalar):
        if d.node.raw != (repr(float(d.value)) if isinstance(d.value, float) else str(d.value)):
            return None  # 4.10 as written, 4.1 as YAML reads it: the author chooses
        new = f'"{d.node.raw}"'
    else:
        return None
    return fix_value(d.file, d.node, new, "write maxOpenShiftVersion as a quoted major.minor")


# ---------------------------------------------------------------------------------------
# minKubeVersion and no constraints

define("min-kube-version-syntax", "error", "spec.minKubeVersion is not a strict major.minor.patch version", category=CAT, refused_by=[
    refusal("olm-install", "OLM parses minKubeVersion as a strict major.minor.patch version; anything else fails the CSV's "
            "requirements with \"CSV version parsing error\"", OLM_REQUIREMENTS),
], explanation="""
    What: the CSV's `spec.minKubeVersion` must be a full semantic version `x.y.z` (a leading
    `v` is tolerated).

    Why: OLM parses it when installing; `1.21` fails the install with "CSV version parsing
    error".

    Refused by: OLM's install (`minKubeVersionStatus`, pkg/controller/operators/olm/requirements.go).

    Fix: write the patch part.

    Bad:
        minKubeVersion: 1.21
    Good:
        minKubeVersion: 1.21.0
    """)

define("min-kube-version-range", "error", "minKubeVersion excludes releases the bundle is published to", category=CAT, mixed=True, refused_by=[
    refusal("olm-install", "on a release whose Kubernetes is below minKubeVersion the CSV fails its requirements "
            "(\"CSV version requirement not met\")", OLM_REQUIREMENTS),
    refusal("catalog-ci", "check_api_version_constraints fails a range with releases whose Kubernetes is below "
            "minKubeVersion", CI_BUNDLE_CHECKS),
    refusal("cluster-upgrade", "with minKubeVersion above the Kubernetes of maxOpenShiftVersion, every release the bundle installs "
            "on is above its max: OLM marks a cluster that installs it not upgradeable at once", OLM_MAX),
], explanation="""
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
    """)

define("no-version-constraints", "warning", "The bundle declares no OpenShift or Kubernetes version constraints", category=CAT,
       supersedes=("ocp-versions-missing",), explanation="""
    What: none of `com.redhat.openshift.versions`, `olm.maxOpenShiftVersion`, or
    `spec.minKubeVersion` is set.

    Why: it is published to every catalog and checked against every known release with a
    catalog (4.6 and later), including those where APIs it uses are removed. operator-sdk's
    operatorhub validator, which the community catalog's CI runs, warns already when
    minKubeVersion alone is missing ("It is recommended you provide this information.
    Otherwise, it would mean that your operator project can be distributed and installed in
    any cluster version available"); this rule reports only a bundle with no constraint at all.
    It replaces `ocp-versions-missing` at the same place (one finding for one problem) unless
    that one is the more severe (the `certified` profile, or a configuration raising it). Not
    reported for operators whose file-based catalogs decide publication.

    Fix: declare the range it supports (`com.redhat.openshift.versions: "v4.12"`) and, where it
    applies, minKubeVersion / maxOpenShiftVersion.
    """)


@check("bundle")
def kube_rules(bundle: Bundle, ctx):
    vi = bundle.versions
    table = ctx.ocp
    csv = bundle.csv
    node = vi.min_kube_node
    file = csv.file if csv is not None and node is not None and vi.declared_min_kube is not node else vi.declared_min_kube_file
    if node is not None and file is not None:
        mk, err = parse_min_kube(node.value, node.raw)
        if err:
            fix = None
            if isinstance(node.value, str) and re.fullmatch(r"v?\d+\.\d+", node.value.strip()):
                fix = fix_value(file, node, node.value.strip() + ".0", "add the patch part")
            elif isinstance(node.value, float) and re.fullmatch(r"\d+\.\d+", node.raw):
                fix = fix_value(file, node, node.raw + ".0", "add the patch part")
            yield finding("min-kube-version-syntax", file, node, str(err), fix=fix, detail=_detail(err))
        elif mk is not None and vi.publication_source != "all-known":
            below = [r for r in table.releases if r.ocp in vi.ocp_versions and r.kube_key < mk]
            if not vi.explicit_target:
                below = table.with_catalog(below)  # 4.1-4.5: no per-release catalog to be published to
            if below:
                where = "the --ocp target" if vi.explicit_target else (
                    "its catalogs" if vi.publication_source == "catalogs" else
                    "its ci.yaml catalog_mapping" if vi.publication_source == "catalog-mapping" else f"{LABEL_KEY} '{vi.label}'")
                yield finding("min-kube-version-range", file, node,
                              f"minKubeVersion {clip(node.raw)} is above the Kubernetes of OpenShift {_rels(below)} "
                              f"({', '.join(f'{r.ocp}: {r.kube}' for r in below[:4])}{'…' if len(below) > 4 else ''})",
                              severity=_uncertain_severity(bundle), ocp=below,
                              detail=f"Those releases are in the bundle's range ({where}), and OLM refuses to install it there"
                              f"{_uncertain_note(bundle)}. Start the range at "
                              f"{(table.first_with_kube(mk).ocp if table.first_with_kube(mk) else 'a newer release')} or lower minKubeVersion.")
            if vi.max_ocp is not None:
                rel = table.get(vi.max_ocp)
                if rel is not None and rel.kube_key < mk:
                    # max is no install barrier: it installs where its Kubernetes is met, all above max
                    where = [r for r in table.releases if r.ocp in vi.ocp_installable]
                    yield finding("min-kube-version-range", file, node,
                                  f"minKubeVersion {clip(node.raw)} is above Kubernetes {rel.kube} of maxOpenShiftVersion {vi.max_ocp}",
                                  ocp=where, kind="above-max",
                                  detail="OLM installs the bundle only where Kubernetes meets minKubeVersion"
                                  f"{' (OpenShift ' + _rels(where) + ' of the releases it is published to)' if where else ''}, all above "
                                  f"maxOpenShiftVersion {vi.max_ocp}, which OLM reads only to block cluster upgrades: a cluster that "
                                  "installs it is at once marked not upgradeable. Raise maxOpenShiftVersion or lower minKubeVersion.")
    if vi.no_constraints and bundle.mediatype in (REGISTRY_V1, None) and bundle.annotations_file is not None and not vi.explicit_target \
            and not _fbc_operator(bundle):
        yield finding("no-version-constraints", bundle.annotations_file, bundle.annotations,
                      f"the bundle specifies no supported OpenShift or Kubernetes version: it goes to every catalog "
                      f"({_rels(table.catalog_releases)})",
                      detail="It is published to every catalog and checked against every known release that has one. "
                      f"Set {LABEL_KEY} here (e.g. \"v4.12\"), and spec.minKubeVersion / olm.maxOpenShiftVersion where they apply.")


# ---------------------------------------------------------------------------------------
# APIs

define("removed-api", "error", "The bundle uses a Kubernetes API removed in a release it targets", category=CAT, mixed=True, refused_by=[
    refusal("api-server", "the Kubernetes API server of that release no longer serves the API version, so OLM's InstallPlan "
            "fails to create the manifest (\"no matches for kind\")", K8S_DEPRECATION_GUIDE),
    refusal("catalog-ci", "operator-sdk's deprecated-API validator, run by the community CI against the newest release's "
            "Kubernetes, fails a manifest using an API removed there", API_REMOVED_APIS),
], explanation="""
    What: a manifest (its apiVersion/kind), an owned CRD's `resources` entry, or an
    `alm-examples` object uses an API version that the Kubernetes of an OpenShift release in
    the bundle's range no longer serves. With no range information at all the range is every
    release with a catalog (4.6 and later). The range is where the bundle is published (its
    label, or its file-based catalogs), whatever its maxOpenShiftVersion: OLM reads that only
    to block cluster upgrades, so a bundle published above its max installs there. RBAC rules are never flagged: they name groups and
    resources, not versions. An `alm-examples` object is a warning: the console's "create"
    form starts from it. An owned CRD's `resources` entry is info: it only tells the console
    which kinds to list on the resource's Resources tab, and the console looks a built-in kind
    up by its kind and lists it at the version it knows (openshift/console,
    operator-lifecycle-manager's k8s-resource.tsx and `modelFor`), so a stale version there
    breaks nothing.

    Why: the install fails on those releases ("no matches for kind ... in version ...").

    Refused by: the API server of those releases (see the Kubernetes deprecated API migration
    guide), so OLM's install plan fails; the community catalog CI's operator-sdk validation.

    Fix: move to the replacement API the message names, or close the range before the release.

    Bad:  apiVersion: policy/v1beta1 / kind: PodDisruptionBudget with com.redhat.openshift.versions "v4.10"
    Good: apiVersion: policy/v1 / kind: PodDisruptionBudget
    """)

define("removed-api-on-upgrade", "error", "A cluster can upgrade into a release that removed an API the bundle uses", category=CAT, mixed=True, refused_by=[
    refusal("cluster-upgrade", "with no maxOpenShiftVersion below the removal, OLM lets the cluster upgrade into the release "
            "whose API server no longer serves the API, and the installed operator breaks there", OLM_MAX),
], explanation="""
    What: the label closes the range (`v4.6-v4.8`), but a cluster that installed this bundle
    can upgrade to a later release where an API it uses is removed, because no
    maxOpenShiftVersion stops the upgrade (or it is set at or above that release). An
    `alm-examples` object is a warning (the console's create form) and an owned CRD's
    `resources` entry info (the console lists the kind at the version it knows); a removal
    known only for an upcoming release is a warning.

    Why: the label decides which catalogs list the bundle, not where it runs: once installed,
    the operator stays while the cluster upgrades — and breaks there.

    Refused by: the cluster upgrade itself — OLM blocks it only with a maxOpenShiftVersion
    below the removal (operator-lifecycle-manager, pkg/controller/operators/openshift/helpers.go).
    operator-framework/api's community validator (now run by the external
    ocp-olm-catalog-validator, not by operator-sdk) asks for the same maxOpenShiftVersion for
    the Kubernetes 1.22 removals.

    Fix: migrate to the replacement API; or set maxOpenShiftVersion to the release before the
    removal (metadata/properties.yaml: `properties: [{type: olm.maxOpenShiftVersion, value: "4.8"}]`).
    """)

define("deprecated-api", "warning", "The bundle uses a deprecated Kubernetes API", category=CAT, mixed=True, explanation="""
    What: an API version deprecated (still served) in a release of the range, or one whose
    removal is known only for an upcoming release. Info when every release of the range still
    serves it and the bundle's maxOpenShiftVersion stops clusters before the removal.

    Why: it will be removed; the message says when.

    Fix: move to the replacement API the message names.
    """)

define("api-not-yet-available", "error", "The bundle uses an API version that does not exist yet at the start of its range", category=CAT, mixed=True, refused_by=[
    refusal("api-server", "the API server of those releases does not serve the API version yet, so OLM's InstallPlan fails "
            "to create the manifest", K8S_DEPRECATION_GUIDE),
], explanation="""
    What: an API version that appeared in a Kubernetes release newer than the one of the
    range's first release (e.g. `policy/v1` PodDisruptionBudget, Kubernetes 1.21, with a label
    starting at 4.7 / Kubernetes 1.20). Releases before 4.6 (no per-release catalog) are not
    counted; a bundle without a range is not reported. A warning when the releases come from a
    ci.yaml catalog_mapping whose templates target different catalogs (see
    `min-kube-version-range`).

    Why: the bundle cannot install on its oldest declared releases.

    Refused by: the API server of those releases (the API version is not served yet).

    Fix: raise the label's lower bound to the first release that serves the API, or use the
    older API version there.
    """)


def _api_uses(bundle: Bundle):
    """(group, version, kind, file, node, where) for every API the bundle uses."""
    for m in bundle.manifests:
        av = m.root.get("apiVersion") if isinstance(m.root, Mapping) else None
        kind = m.kind
        if isinstance(av, Scalar) and isinstance(av.value, str) and kind:
            g, _, v = av.value.rpartition("/")
            yield g, v, kind, m.file, av, "manifest"
    csv = bundle.csv
    if csv is None:
        return
    spec = csv.spec()
    crds = spec.get("customresourcedefinitions") if spec is not None else None
    owned = crds.get("owned") if isinstance(crds, Mapping) else None
    if isinstance(owned, Sequence):
        for o in owned:
            res = o.get("resources") if isinstance(o, Mapping) else None
            if isinstance(res, Sequence):
                for r in res:
                    if isinstance(r, Mapping) and r.str("kind") and r.str("version"):
                        yield None, r.str("version"), r.str("kind"), csv.file, r, "resources"
    ex = csv.annotation("alm-examples")
    if ex is not None and isinstance(ex.value, str) and ex.value.strip():
        try:
            objs = json.loads(ex.value)
        except ValueError:
            objs = None
        if isinstance(objs, list):
            for o in objs:
                if isinstance(o, dict) and isinstance(o.get("apiVersion"), str) and isinstance(o.get("kind"), str):
                    g, _, v = o["apiVersion"].rpartition("/")
                    yield g, v, o["kind"], csv.file, ex, "alm-examples"


def _where(where: str, g, v, kind) -> str:
    gv = f"{g}/{v}" if g else v
    if where == "resources":
        return f"{kind} {v} (named in an owned CRD's resources entry)"
    if where == "alm-examples":
        return f"the alm-examples object {gv} {kind}"
    return f"{gv} {kind}"


@check("bundle")
def api_rules(bundle: Bundle, ctx):
    vi = bundle.versions
    table = ctx.ocp
    rng = [table.get(v) for v in (vi.ocp_installable or vi.ocp_versions)]
    rng = [r for r in rng if r is not None]
    if not rng:
        return
    lo = rng[0]
    lr = vi.label_parsed
    upper = None
    if not vi.explicit_target:
        if vi.publication_source == "label" and lr is not None and lr.ok and lr.upper is not None:
            upper = lr.upper
        elif vi.publication_source in _CATALOGS_DECIDE and vi.ocp_versions and table.get(vi.ocp_versions[-1]) is not None \
                and vkey(vi.ocp_versions[-1]) < table.newest.key:
            upper = vkey(vi.ocp_versions[-1])
    mx = vkey(vi.max_ocp) if vi.max_ocp else None
    seen = set()
    for g, v, kind, file, node, where in _api_uses(bundle):
        entries = [ctx.apis.lookup(g, v, kind)] if g is not None else ctx.apis.lookup_kind_version(kind, v)
        entries = [e for e in entries if e is not None]
        what = _where(where, g, v, kind)
        key = (file.rel, node.line, g, v, kind)
        if key in seen:
            continue
        seen.add(key)
        if entries:
            e = entries[0]
            gone = [r for r in rng if e.removed is not None and r.kube_key >= e.removed]
            ga_gone = [r for r in gone if r.ga]
            up_gone = [r for r in gone if not r.ga]
            first_rm = table.first_with_kube(e.removed) if e.removed else None
            if ga_gone:
                gone_in = f"Kubernetes {vstr(e.removed)} (OpenShift {first_rm.ocp if first_rm else '?'})"
                if where == "resources":
                    # a hint for the console's Resources tab: it finds a built-in kind by its kind and lists
                    # it at the version it knows, so the stale version breaks nothing (info)
                    yield finding("removed-api", file, node,
                                  f"the owned CRD's resources entry names {kind} {v}, which {gone_in} no longer serves",
                                  severity="info", ocp=ga_gone,
                                  detail=f"On OpenShift {_rels(ga_gone)}{_range_note(vi)} nothing breaks: the entry only tells the "
                                  "console which kinds to list on the resource's Resources tab, and the console looks a built-in "
                                  f"kind up by its kind, not this version. Update the entry to {e.use}.")
                elif where == "alm-examples":
                    yield finding("removed-api", file, node,
                                  f"{what} uses an API that {gone_in} no longer serves", severity="warning", ocp=ga_gone,
                                  detail=f"On OpenShift {_rels(ga_gone)}{_range_note(vi)}, the console's 'create' form for it fails. "
                                  f"Use {e.use} instead.")
                else:
                    yield finding("removed-api", file, node,
                                  f"{what} is removed in {gone_in}, so it cannot install on OpenShift {_rels(ga_gone)}",
                                  ocp=ga_gone, detail=f"The API server of OpenShift {_rels(ga_gone)}{_range_note(vi)} no longer "
                                  f"serves it{_max_note(vi, ga_gone)}. Use {e.use} instead.")
            elif up_gone:
                yield finding("deprecated-api", file, node,
                              f"{what} will be removed in Kubernetes {vstr(e.removed)}, i.e. the upcoming OpenShift {_rels(up_gone)} "
                              "that the range includes", ocp=up_gone, detail=f"Use {e.use} instead.")
            elif e.deprecated is not None:
                dep = [r for r in rng if r.kube_key >= e.deprecated]
                if dep:
                    # every release in range still serves it: when maxOpenShiftVersion also stops
                    # clusters before the removal, the bundle never meets it (info)
                    stopped = mx is not None and first_rm is not None and mx < first_rm.key and not vi.explicit_target
                    yield finding("deprecated-api", file, node,
                                  f"{what} is deprecated since Kubernetes {vstr(e.deprecated)} and removed in {vstr(e.removed)} "
                                  f"(OpenShift {first_rm.ocp if first_rm else '?'})", severity="info" if stopped else None, ocp=dep,
                                  detail=f"It is deprecated on OpenShift {_rels(dep)}"
                                  + (f", and maxOpenShiftVersion {vi.max_ocp} keeps clusters running this bundle from upgrading to "
                                     f"{first_rm.ocp}, so it is served wherever the bundle runs" if stopped else "")
                                  + f". Use {e.use} instead.")
            if upper is not None and e.removed is not None and not gone and first_rm is not None and first_rm.key > upper \
                    and (mx is None or first_rm.key <= mx):
                reach = [r for r in table.releases if r.key >= first_rm.key and (mx is None or r.key <= mx)]
                before = next((r for r in reversed(table.releases) if r.key < first_rm.key), None)
                # the owned CRD's resources entry and alm-examples only inform the console
                sev = None if first_rm.ga and where == "manifest" else "info" if where == "resources" else "warning"
                verb = "can upgrade" if first_rm.ga else "will be able to upgrade"
                yield finding("removed-api-on-upgrade", file, node,
                              f"{what} is removed in OpenShift {first_rm.label()}, which clusters from the {vstr(upper)} catalog {verb} to",
                              severity=sev, ocp=reach,
                              detail=f"Installed from the {vstr(upper)} catalog, a cluster {verb} to OpenShift {first_rm.label()} "
                              f"(Kubernetes {first_rm.kube}), where "
                              f"{'the operator breaks' if where == 'manifest' else 'the console lists the kind at the version it knows (nothing breaks)' if where == 'resources' else 'the console cannot use it'}"
                              f"{' (maxOpenShiftVersion ' + vi.max_ocp + ' does not stop it)' if mx else ' (no maxOpenShiftVersion stops the upgrade)'}. "
                              f"Migrate to {e.use}; or set maxOpenShiftVersion to \"{before.ocp if before else vstr(upper)}\" in metadata/properties.yaml "
                              f"(properties: [{{type: olm.maxOpenShiftVersion, value: \"{before.ocp if before else vstr(upper)}\"}}]).")
        if g is not None and vi.publication_source != "all-known":
            intro = ctx.apis.introduced_in(g, v, kind)
            early = [r for r in rng if intro is not None and r.kube_key < intro.since]
            if not vi.explicit_target:
                early = table.with_catalog(early)  # 4.1-4.5 had no per-release catalog: not reported
            if early:
                first_ok = table.first_with_kube(intro.since)
                yield finding("api-not-yet-available", file, node,
                              f"{what} exists only from Kubernetes {vstr(intro.since)} (OpenShift {first_ok.ocp if first_ok else '?'}), "
                              f"so the bundle cannot install on {_rels(early)}", severity=_uncertain_severity(bundle), ocp=early,
                              detail=f"The range starts at OpenShift {lo.ocp} (Kubernetes {lo.kube}). Start the range at "
                              f"{first_ok.ocp if first_ok else 'a newer release'}, or use the older API version there"
                              f"{_uncertain_note(bundle)}.")


def _uncertain(bundle: Bundle) -> bool:
    return bundle.versions.publication_source == "catalog-mapping" and bundle.versions.mapping_uncertain


def _uncertain_note(bundle: Bundle) -> str:
    return (" (if the catalog template that will list this bundle targets those releases: its ci.yaml maps several "
            "templates to different catalogs, and no catalog lists the bundle yet)") if _uncertain(bundle) else ""


def _uncertain_severity(bundle: Bundle) -> Optional[str]:
    return "warning" if _uncertain(bundle) else None


def _max_note(vi, releases) -> str:
    """Why a maxOpenShiftVersion below these releases does not help: it is no install barrier."""
    if vi.max_ocp is None or vi.explicit_target or not any(vkey(getattr(r, "ocp", r)) > vkey(vi.max_ocp) for r in releases):
        return ""
    return (f"; maxOpenShiftVersion {vi.max_ocp} does not keep it from those catalogs: OLM reads it only to block cluster "
            "upgrades, not installs")


def _range_note(vi) -> str:
    if vi.publication_source == "all-known":
        return " (the bundle declares no range, so it is published to every release)"
    if vi.publication_source == "target":
        return ""
    if vi.publication_source == "catalogs":
        return ", whose catalogs list it"
    if vi.publication_source == "catalog-mapping":
        return ", whose catalogs its ci.yaml catalog_mapping renders"
    return f", which {LABEL_KEY} '{vi.label}' publishes it to"


# ---------------------------------------------------------------------------------------
# Webhooks and infrastructure features

define("webhook-admission-review-versions", "warning", "A webhook does not accept admission.k8s.io/v1 reviews", category=CAT, mixed=True, refused_by=[
    refusal("api-server", "a webhook configuration whose admissionReviewVersions names no version the API server accepts "
            "(v1, v1beta1, and v1alpha1 from Kubernetes 1.26) is refused, so OLM cannot create it", K8S_WEBHOOK_VALIDATION),
], explanation="""
    What: a `spec.webhookdefinitions` entry (admission webhooks; conversion webhooks are not
    concerned) whose `admissionReviewVersions` lacks `v1`: a warning. An error when the list
    is missing, empty, or names no version the API server accepts.

    Why: the v1beta1 AdmissionReview is deprecated; `v1` is the version every current
    webhook library serves. Kubernetes 1.22 removed the admissionregistration.k8s.io/v1beta1
    *API* (the webhook configuration object), not the v1beta1 AdmissionReview format: the API
    server still accepts `v1` and `v1beta1` (and `v1alpha1` from 1.26) in
    admissionReviewVersions and sends the first one it understands. A list with none of them
    is refused.

    Refused by (error only): the API server's validation of webhook configurations
    (`AcceptedAdmissionReviewVersions`, kubernetes pkg/apis/admissionregistration/validation).

    Fix: accept `v1` (serve `admission.k8s.io/v1` AdmissionReview) and list it first:
        admissionReviewVersions: [v1, v1beta1]
    """)

define("infrastructure-features-deprecated", "warning",
       "operators.openshift.io/infrastructure-features is deprecated (warning without the newer annotations, info beside them)",
       category=CAT, mixed=True, explanation="""
    What: the CSV uses the `operators.openshift.io/infrastructure-features` annotation while its
    range reaches OpenShift 4.14 or later.
    - Without any `features.operators.openshift.io/*` annotation: warning.
    - Beside them, in a range that reaches only 4.14 and later: info (the legacy annotation is
      redundant there).
    - Beside them, in a range that also reaches 4.13 or earlier: not reported. The consoles of
      those releases read only the legacy annotation, so keeping both is right.

    Why: OpenShift 4.14 deprecates it in favour of one `features.operators.openshift.io/*`
    annotation per feature (the form Red Hat's certification checks). The console reads the newer annotations from 4.14
    and still reads the legacy one (openshift/console, `getInfrastructureFeatures` in
    operator-hub-utils; CONSOLE-3758 added the newer ones "while preserving support for existing
    infrastructure-features annotation"), so nothing breaks today.

    Fix: add one `features.operators.openshift.io/<feature>: "true"|"false"` annotation per
    feature (disconnected, fips-compliant, proxy-aware, tls-profiles, ...); drop the legacy
    annotation once the range no longer reaches 4.13 or earlier.
    """)


@check("bundle")
def webhook_and_features(bundle: Bundle, ctx):
    csv = bundle.csv
    if csv is None:
        return
    vi = bundle.versions
    table = ctx.ocp
    rng = [r for r in (table.get(v) for v in (vi.ocp_installable or vi.ocp_versions)) if r is not None]
    spec = csv.spec()
    whs = spec.get("webhookdefinitions") if spec is not None else None
    if isinstance(whs, Sequence) and rng:
        for wh in whs:
            if not isinstance(wh, Mapping):
                continue
            if wh.str("type") == "ConversionWebhook":
                continue  # conversion reviews are not admission reviews
            arv = wh.get("admissionReviewVersions")
            vals = [i.value for i in arv if isinstance(i, Scalar)] if isinstance(arv, Sequence) else []
            if "v1" in vals:
                continue
            where = arv if arv is not None else wh
            name = clip(wh.str("generateName") or wh.str("deploymentName") or "this webhook")
            # what the API server accepts (k8s AcceptedAdmissionReviewVersions): v1, v1beta1, v1alpha1 from 1.26
            refused = [r for r in rng if not any(v == "v1beta1" or (v == "v1alpha1" and r.kube_key >= (1, 26)) for v in vals)]
            if refused:
                listed = f"lists {', '.join(str(v) for v in vals)} in admissionReviewVersions" if vals else "has no admissionReviewVersions"
                yield finding("webhook-admission-review-versions", csv.file, where,
                              f"the webhook {name} {listed}, none of which the API server accepts on OpenShift {_rels(refused)}",
                              kind="refused", ocp=refused,
                              detail="The API server accepts v1 and v1beta1, and v1alpha1 from Kubernetes 1.26; it refuses the webhook "
                              "configuration, so the CSV fails to install. Serve admission.k8s.io/v1 and write admissionReviewVersions: [v1].")
            else:
                yield finding("webhook-admission-review-versions", csv.file, where,
                              f"the webhook {name} does not list v1 in admissionReviewVersions", ocp=rng,
                              detail="The API server still sends it v1beta1 AdmissionReviews, but that version is deprecated. Serve "
                              "admission.k8s.io/v1 and list it first: admissionReviewVersions: [v1, v1beta1].")
    inf = csv.annotation("operators.openshift.io/infrastructure-features")
    if inf is not None and isinstance(inf.value, str):
        yield from _infrastructure_list(csv, inf)
    if inf is not None:
        late = [r for r in rng if r.key >= (4, 14)]
        if late:
            ann = csv.annotations()
            keynode = ann.key_node("operators.openshift.io/infrastructure-features") if ann is not None else inf
            newer = ann is not None and any(isinstance(k, str) and k.startswith("features.operators.openshift.io/") for k in ann.keys())
            early = len(late) < len(rng)  # the range also reaches 4.13 or earlier, whose consoles read only the legacy form
            if newer and early:
                return  # both forms in parallel: the legacy one serves the consoles before 4.14, the newer ones the later
            if newer:
                yield finding("infrastructure-features-deprecated", csv.file, keynode,
                              f"operators.openshift.io/infrastructure-features is redundant beside the features.operators.openshift.io "
                              f"annotations on OpenShift {_rels(late)}", ocp=late, severity="info",
                              detail="It is deprecated from 4.14, whose console reads the newer annotations this CSV already has, and "
                              "the range reaches no earlier release. It can be dropped; nothing refuses it.")
                return
            before = (" Keep it beside them while the range reaches OpenShift 4.13 or earlier, whose consoles read only this "
                      "annotation.") if early else " Then drop it."
            yield finding("infrastructure-features-deprecated", csv.file, keynode,
                          f"operators.openshift.io/infrastructure-features is deprecated on OpenShift {_rels(late)}", ocp=late,
                          detail="The console still reads it, but the documentation and Red Hat's certification use the newer "
                          "annotations. Add one features.operators.openshift.io/<feature>: \"true\"|\"false\" annotation "
                          "per feature (disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws, token-auth-azure, "
                          "token-auth-gcp)." + before)


def _infrastructure_list(csv, node):
    """operators.openshift.io/infrastructure-features must be a JSON list of known features
    (reported under feature-annotations: it is the older form of the same annotations)."""
    pass

    known = [v.lower() for v in data()["infrastructure_features"]["values"]]
    try:
        value = json.loads(node.value)
    except ValueError as e:
        yield finding("feature-annotations", csv.file, node,
                      f"operators.openshift.io/infrastructure-features is not valid JSON ({e.msg} at character {e.pos + 1})", kind="legacy",
                      detail="The console reads no feature from it. Write a JSON list of strings, e.g. "
                      f"'[\"disconnected\", \"proxy-aware\"]' (known: {', '.join(known)}).")
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        yield finding("feature-annotations", csv.file, node,
                      "operators.openshift.io/infrastructure-features is not a JSON list of strings", kind="legacy",
                      detail="The console reads no feature from anything else. Write a JSON list of strings, e.g. '[\"disconnected\"]'.")
        return
    unknown = [v for v in value if v.strip().lower() not in known]
    if unknown:
        listed = ", ".join(f"'{clip(u, 40)}'" for u in unknown)
        yield finding("feature-annotations", csv.file, node,
                      f"operators.openshift.io/infrastructure-features lists {listed}, "
                      "not a feature the console knows", kind="legacy",
                      detail=f"The console ignores it (it knows {', '.join(known)}). Fix the spelling or remove it.")
