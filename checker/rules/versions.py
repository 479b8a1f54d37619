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
from ..report.text import _ranges
from ..versions import ACCEPTED_FORMS, LABEL_KEY, label_unknown, parse_min_kube, vkey, vstr
from . import RULES, check, define, finding, value_fix

CAT = "version"


def _rels(releases) -> str:
    return _ranges([getattr(r, "ocp", r) for r in releases])


# ---------------------------------------------------------------------------------------
# The label

define("ocp-versions-syntax", "error", "com.redhat.openshift.versions is not a valid range", category=CAT, explanation=f"""
    What: the `com.redhat.openshift.versions` annotation (metadata/annotations.yaml) must be
    one of the documented forms: {ACCEPTED_FORMS}; the legacy `v4.5,v4.6` is also accepted.

    Why: catalog tooling decides from this value which OpenShift catalogs include the bundle;
    a value it cannot read keeps the bundle out of every catalog (or, for a YAML number such as
    an unquoted `4.10`, reads a different release: 4.1).

    Fix: write one of the accepted forms, quoted.

    Bad:
        com.redhat.openshift.versions: 4.10
        com.redhat.openshift.versions: "v4.6 - v4.8"
    Good:
        com.redhat.openshift.versions: "v4.10"
        com.redhat.openshift.versions: "v4.6-v4.8"
    """)

define("ocp-versions-style", "warning", "com.redhat.openshift.versions is accepted but not in the documented form", category=CAT, explanation="""
    What: the value is read by catalog tooling but is off the documented form: a missing `v`
    (`4.12`, `4.14-4.17`), a lower bound below OpenShift 4 (`v3.6-v4.8`), the legacy comma
    list (`v4.5,v4.6`).

    Why: other tools (and people) read the documented form; the spelling that works today by
    tolerance may not in the next tool.

    Fix: use the canonical spelling the message gives.

    Bad:
        com.redhat.openshift.versions: "4.14-4.17"
    Good:
        com.redhat.openshift.versions: "v4.14-v4.17"
    """)

define("ocp-versions-mismatch", "error", "annotations.yaml and the Dockerfile LABEL disagree on the OpenShift range", category=CAT, mixed=True, explanation="""
    What: `com.redhat.openshift.versions` in metadata/annotations.yaml and the LABEL of the
    same name in bundle.Dockerfile (or Dockerfile) name different ranges (error), or the
    Dockerfile lacks the LABEL while annotations.yaml has it (warning). No Dockerfile at all is
    fine: catalog pipelines generate it from annotations.yaml.

    Why: the bundle image's labels and its annotations.yaml are read by different tools; when
    they disagree, the bundle lands in catalogs nobody intended.

    Fix: make both the same value.
    """)

define("ocp-versions-missing", "warning", "No com.redhat.openshift.versions: the bundle goes to every catalog", category=CAT,
       profiles={"certified": "error"}, mixed=True, explanation="""
    What: metadata/annotations.yaml has no `com.redhat.openshift.versions`. The bundle is then
    published to the catalogs of every OpenShift release. When minKubeVersion or
    maxOpenShiftVersion limits where the bundle can install, this is an error in every profile:
    it is published to catalogs it cannot install in.

    Why: users of those releases see an operator that fails to install.

    Fix: add the range the bundle supports, e.g. `com.redhat.openshift.versions: "v4.12-v4.16"`.
    """)

define("ocp-versions-unknown", "warning", "The range names OpenShift releases olm-check does not know", category=CAT, explanation="""
    What: the label names a release above the newest one in olm-check's table.

    Why: not a mistake of the bundle, but olm-check cannot check what it does not know; the
    release's Kubernetes version decides which APIs are removed.

    Fix: update olm-check, or add the release in .olm-check.yaml:
        ocp_releases:
          - {ocp: "4.24", kube: "1.37", ga: false}
    """)

define("ocp-versions-closed-range", "info", "The range ends before the newest OpenShift release", category=CAT, explanation="""
    What: the label has an upper bound (`v4.12-v4.16`, `=v4.14`) below the newest GA release.

    Why: the bundle silently disappears from the catalogs of newer releases; users there do
    not see this version. That may be what you want (the next version takes over) — this is
    a reminder, not a problem.

    Fix: nothing, or open the range (`v4.12`) when the bundle works on newer releases too.
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
    fbc = vi.publication_source == "catalogs"
    if lr is not None:
        if not lr.ok:
            fix = None
            if isinstance(node, Scalar) and not isinstance(node.value, str) and node.value is not None:
                fix = value_fix(af, node, f'"v{node.raw}"', "quote the value and add the 'v'")
            elif isinstance(node, Scalar) and isinstance(node.value, str) and "V" in node.value and not re.search(r"\s", node.value):
                fix = value_fix(af, node, '"' + node.value.replace("V", "v") + '"', "use a lowercase 'v'")
            elif isinstance(node, Scalar) and isinstance(node.value, str) and re.search(r"\s", node.value):
                fix = value_fix(af, node, '"' + re.sub(r"\s+", "", node.value) + '"', "remove the spaces")
            yield finding("ocp-versions-syntax", af, node, f"{LABEL_KEY}: {lr.error}", fix=fix)
        else:
            for msg in lr.style:
                fix = value_fix(af, node, f'"{lr.canonical}"', f"write {lr.canonical}") if lr.canonical else None
                yield finding("ocp-versions-style", af, node, f"{LABEL_KEY}: {msg}", fix=fix)
            unknown = label_unknown(lr, table)
            if unknown:
                yield finding("ocp-versions-unknown", af, node,
                              f"{LABEL_KEY} names OpenShift {', '.join(unknown)}, which olm-check's release table does not know "
                              f"(it ends at {table.newest.label()}); releases beyond it are not checked. Update olm-check, or add the "
                              f"release under ocp_releases in .olm-check.yaml, e.g. {{ocp: \"{unknown[-1]}\", kube: \"1.xx\", ga: false}}.")
            if lr.upper is not None and lr.upper < table.newest_ga.key and lr.upper >= table.first.key and not fbc \
                    and not vi.explicit_target:
                after = [r for r in table.releases if r.key > lr.upper and r.ga]
                yield finding("ocp-versions-closed-range", af, node,
                              f"{LABEL_KEY} '{lr.raw}' ends at {vstr(lr.upper)}: this version is not published to the catalogs of "
                              f"OpenShift {_rels(after)}, so users there will not see it. Open the range ('v{vstr(lr.lower)}') if it "
                              "works on newer releases too.", ocp=after)
    # Dockerfile LABEL vs annotations.yaml
    df = bundle.dockerfile
    if df is not None:
        lab = df.labels.get(LABEL_KEY)
        if lab is None and node is not None:
            yield finding("ocp-versions-mismatch", df.file, None,
                          f"{df.file.rel.rsplit('/', 1)[-1]} has no LABEL {LABEL_KEY} while metadata/annotations.yaml sets it to "
                          f"'{vi.label}'; a bundle image built from this Dockerfile lacks the label. Add: LABEL {LABEL_KEY}=\"{vi.label}\".",
                          severity="warning", line=1, column=1)
        elif lab is not None and node is None:
            yield finding("ocp-versions-mismatch", af, bundle.annotations,
                          f"the Dockerfile sets LABEL {LABEL_KEY}={lab.value} (line {lab.line}) but metadata/annotations.yaml does not; "
                          f"tools reading annotations.yaml publish the bundle to every catalog. Add '{LABEL_KEY}: \"{lab.value}\"' here.")
        elif lab is not None and lr is not None:
            from ..versions import parse_label

            dl = parse_label(lab.value)
            same = (dl.ok and lr.ok and (dl.lower, dl.upper, dl.exact) == (lr.lower, lr.upper, lr.exact)) or dl.raw == lr.raw
            if not same:
                yield finding("ocp-versions-mismatch", df.file, None,
                              f"LABEL {LABEL_KEY}={lab.value} differs from metadata/annotations.yaml ('{vi.label}'); the image and the "
                              "catalog would publish the bundle to different releases. Make them the same.",
                              line=lab.line, column=lab.column)
    # no label at all
    if node is None and not fbc and bundle.mediatype in (REGISTRY_V1, None):
        limited = [r for r in table.releases if r.ocp not in vi.ocp_installable]
        if vi.no_constraints and RULES["ocp-versions-missing"].severity_in(ctx.profile) != "error":
            return  # no-version-constraints says it once (certified still gets its error)
        if limited and (vi.max_ocp or vi.min_kube):
            why = []
            if vi.min_kube:
                why.append(f"minKubeVersion {vi.min_kube_node.raw if vi.min_kube_node is not None else vi.min_kube}")
            if vi.max_ocp:
                why.append(f"maxOpenShiftVersion {vi.max_ocp}")
            yield finding("ocp-versions-missing", af, bundle.annotations,
                          f"there is no {LABEL_KEY}, so the bundle is published to the catalogs of every OpenShift release, but "
                          f"{' and '.join(why)} keeps it from installing on {_rels(limited)}. Add the range it supports, "
                          f"e.g. {LABEL_KEY}: \"v{vi.ocp_installable[0] if vi.ocp_installable else '4.x'}"
                          f"{'-v' + vi.ocp_installable[-1] if vi.max_ocp and vi.ocp_installable else ''}\".",
                          severity="error", ocp=limited)
        else:
            yield finding("ocp-versions-missing", af, bundle.annotations,
                          f"there is no {LABEL_KEY}, so the bundle is published to the catalogs of every OpenShift release "
                          f"({_rels(table.releases)}). Add the range it supports, e.g. {LABEL_KEY}: \"v4.12\".")


# ---------------------------------------------------------------------------------------
# maxOpenShiftVersion

define("max-ocp-version-syntax", "error", "olm.maxOpenShiftVersion is not a valid {major}.{minor} string", category=CAT, mixed=True, explanation="""
    What: the `olm.maxOpenShiftVersion` property (CSV annotation `olm.properties` or
    metadata/properties.yaml) must be a JSON/YAML string `"{major}.{minor}"`. A number (an
    unquoted `4.20` is the float 4.2), an empty value, something unparsable, a non-zero patch
    (`4.8.1`), or invalid `olm.properties` JSON is an error; `4.8.0` or build metadata is a
    warning.

    Why: today's OLM reports the CSV as having an invalid olm.maxOpenShiftVersion and blocks
    every minor cluster upgrade; older OLM failed on a number.

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

define("max-ocp-version-ignored", "error", "maxOpenShiftVersion is declared where OLM never reads it", category=CAT, explanation="""
    What: maxOpenShiftVersion set as a CSV annotation `operators.coreos.com/maxOpenShiftVersion`
    (the spelling of the enhancement proposals, never shipped), as a key in
    metadata/annotations.yaml, or as a Dockerfile LABEL.

    Why: OLM reads it only from the `olm.maxOpenShiftVersion` property; anywhere else it has no
    effect and cluster upgrades are not blocked.

    Fix: move it to metadata/properties.yaml:
        properties:
          - type: olm.maxOpenShiftVersion
            value: "4.8"
    or to the CSV annotation `olm.properties: '[{"type": "olm.maxOpenShiftVersion", "value": "4.8"}]'`.
    """)

define("max-ocp-version-ambiguous", "error", "olm.maxOpenShiftVersion is declared more than once", category=CAT, explanation="""
    What: more than one `olm.maxOpenShiftVersion` declaration (twice in one list, or in both
    the CSV's `olm.properties` and metadata/properties.yaml), whatever the values.

    Why: today's OLM refuses more than one ("defining more than one ... is not allowed") and
    blocks cluster upgrades; older OLM took the highest.

    Fix: keep exactly one declaration.
    """)

define("max-ocp-version-range", "error", "maxOpenShiftVersion conflicts with the published range", category=CAT, mixed=True, explanation="""
    What: maxOpenShiftVersion below the label's lower bound (the bundle can install nowhere it
    is published: error), or a label that reaches releases above maxOpenShiftVersion (published
    where it cannot stay installed: warning).

    Why: users of those releases see an operator that blocks their cluster's upgrades, or that
    they can never install.

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
                          fix=_max_fix(d))
        elif d.warning:
            yield finding("max-ocp-version-syntax", d.file, d.node, f"olm.maxOpenShiftVersion: {d.warning}", severity="warning",
                          fix=_max_fix(d))
    if len(decls) > 1:
        places = "; ".join(f"{d.file.rel}:{d.node.line} ({'CSV olm.properties' if d.where == 'csv-olm-properties' else 'properties.yaml'}: {d.raw})" for d in decls)
        valid = [d.version for d in decls if d.version is not None]
        older = f"; older OLM releases take the highest, {vstr(max(valid))}" if valid else ""
        for d in decls[1:]:
            yield finding("max-ocp-version-ambiguous", d.file, d.node,
                          f"olm.maxOpenShiftVersion is declared {len(decls)} times ({places}). Today's OLM refuses more than one "
                          f"declaration, reports the CSV as invalid and blocks every minor cluster upgrade{older}. Keep exactly one.")
    # declared where OLM does not read it
    csv = bundle.csv
    if csv is not None:
        ann = csv.annotations()
        if ann is not None:
            for k, v in ann.items():
                if isinstance(k, Scalar) and isinstance(k.value, str) and k.value != "olm.properties" and k.value.lower().endswith("maxopenshiftversion"):
                    yield finding("max-ocp-version-ignored", csv.file, k,
                                  f"the CSV annotation '{k.value}' has no effect: OLM reads maxOpenShiftVersion only from the "
                                  "olm.maxOpenShiftVersion property, so cluster upgrades are NOT blocked. Move it to metadata/properties.yaml "
                                  f"(properties: [{{type: olm.maxOpenShiftVersion, value: \"{_plain(v)}\"}}]) or into the olm.properties annotation.")
    if bundle.annotations is not None and bundle.annotations_file is not None:
        for k, v in bundle.annotations.items():
            if isinstance(k, Scalar) and isinstance(k.value, str) and "maxopenshiftversion" in k.value.lower():
                yield finding("max-ocp-version-ignored", bundle.annotations_file, k,
                              f"'{k.value}' in annotations.yaml has no effect: OLM reads maxOpenShiftVersion only from the "
                              "olm.maxOpenShiftVersion property, so cluster upgrades are NOT blocked. Move it to metadata/properties.yaml "
                              f"(properties: [{{type: olm.maxOpenShiftVersion, value: \"{_plain(v)}\"}}]).")
    if bundle.dockerfile is not None:
        for key, lab in bundle.dockerfile.labels.items():
            if "maxopenshiftversion" in key.lower():
                yield finding("max-ocp-version-ignored", bundle.dockerfile.file, None,
                              f"the LABEL {key} has no effect: OLM reads maxOpenShiftVersion only from the olm.maxOpenShiftVersion "
                              f"property. Move it to metadata/properties.yaml (properties: [{{type: olm.maxOpenShiftVersion, value: \"{lab.value}\"}}]).",
                              line=lab.line, column=lab.column)
    if vi.max_ocp is None:
        return
    mx = vkey(vi.max_ocp)
    first = next((d for d in decls if d.version == mx), decls[0] if decls else None)
    lr = vi.label_parsed
    if lr is not None and lr.ok and not vi.explicit_target:
        if lr.lower is not None and mx < lr.lower:
            yield finding("max-ocp-version-range", first.file, first.node,
                          f"maxOpenShiftVersion {vi.max_ocp} is below the label's lower bound {vstr(lr.lower)} ({LABEL_KEY} "
                          f"'{lr.raw}'): the bundle is published only where it cannot be installed. Raise maxOpenShiftVersion or lower the label.",
                          ocp=vi.ocp_versions)
        elif lr.upper is None or lr.upper > mx:
            above = [r for r in table.releases if r.key > mx and lr.contains(r.key)]
            if above:
                yield finding("max-ocp-version-range", first.file, first.node,
                              f"{LABEL_KEY} '{lr.raw}' publishes the bundle to OpenShift {_rels(above)}, above its maxOpenShiftVersion "
                              f"{vi.max_ocp}: clusters there get an operator that blocks their upgrades. Close the label: "
                              f"\"v{vstr(lr.lower)}-v{vi.max_ocp}\".", severity="warning", ocp=above)
    affected = [r for r in table.releases if r.ocp in vi.ocp_versions and r.key <= mx]
    nxt = next((r for r in table.releases if r.key > mx), None)
    yield finding("upgrade-blocker", first.file, first.node,
                  f"with maxOpenShiftVersion {vi.max_ocp}, a cluster with this version installed cannot upgrade past OpenShift "
                  f"{vi.max_ocp}{' (to ' + nxt.label() + ' or later)' if nxt else ''} until the operator is upgraded or removed"
                  f"{'; this applies to clusters installing it from the ' + _rels(affected) + ' catalogs' if affected else ''}.",
                  ocp=affected)


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
        new = f'"{d.node.raw}"'
    else:
        return None
    return value_fix(d.file, d.node, new, "write maxOpenShiftVersion as a quoted major.minor")


# ---------------------------------------------------------------------------------------
# minKubeVersion and no constraints

define("min-kube-version-syntax", "error", "spec.minKubeVersion is not a strict major.minor.patch version", category=CAT, explanation="""
    What: the CSV's `spec.minKubeVersion` must be a full semantic version `x.y.z` (a leading
    `v` is tolerated).

    Why: OLM parses it when installing; `1.21` fails the install with "CSV version parsing
    error".

    Fix: write the patch part.

    Bad:
        minKubeVersion: 1.21
    Good:
        minKubeVersion: 1.21.0
    """)

define("min-kube-version-range", "error", "minKubeVersion excludes releases the bundle is published to", category=CAT, explanation="""
    What: minKubeVersion is above the Kubernetes version of OpenShift releases the label
    publishes the bundle to, or above the Kubernetes of maxOpenShiftVersion.

    Why: users of those releases see the operator in their catalog and cannot install it.

    Fix: start the label at the first release whose Kubernetes satisfies minKubeVersion, or
    lower minKubeVersion.
    """)

define("no-version-constraints", "warning", "The bundle declares no OpenShift or Kubernetes version constraints", category=CAT, explanation="""
    What: none of `com.redhat.openshift.versions`, `olm.maxOpenShiftVersion`, or
    `spec.minKubeVersion` is set.

    Why: "Your operator bundle is not specifying the OpenShift or Kubernetes version(s) which
    are supported by it": it is published to every catalog and checked against every known
    release, including those where APIs it uses are removed.

    Fix: declare the range it supports (`com.redhat.openshift.versions: "v4.12"`) and, where it
    applies, minKubeVersion / maxOpenShiftVersion.
    """)


@check("bundle")
def kube_rules(bundle: Bundle, ctx):
    vi = bundle.versions
    table = ctx.ocp
    csv = bundle.csv
    node = vi.min_kube_node
    file = csv.file if csv is not None and node is not None and bundle.extra.get("min_kube_node") is not node else bundle.extra.get("min_kube_file")
    if node is not None and file is not None:
        mk, err = parse_min_kube(node.value, node.raw)
        if err:
            fix = None
            if isinstance(node.value, str) and re.fullmatch(r"v?\d+\.\d+", node.value.strip()):
                fix = value_fix(file, node, node.value.strip() + ".0", "add the patch part")
            elif isinstance(node.value, float) and re.fullmatch(r"\d+\.\d+", node.raw):
                fix = value_fix(file, node, node.raw + ".0", "add the patch part")
            yield finding("min-kube-version-syntax", file, node, err, fix=fix)
        elif mk is not None and vi.publication_source != "all-known":
            below = [r for r in table.releases if r.ocp in vi.ocp_versions and r.kube_key < mk]
            if below:
                where = "the --ocp target" if vi.explicit_target else ("its catalogs" if vi.publication_source == "catalogs" else f"{LABEL_KEY} '{vi.label}'")
                yield finding("min-kube-version-range", file, node,
                              f"minKubeVersion {node.raw} is above the Kubernetes of OpenShift {_rels(below)} "
                              f"({', '.join(f'{r.ocp}: {r.kube}' for r in below[:4])}{'…' if len(below) > 4 else ''}), which {where} "
                              f"publishes the bundle to; it cannot be installed there. Start the range at "
                              f"{(table.first_with_kube(mk).ocp if table.first_with_kube(mk) else 'a newer release')} or lower minKubeVersion.",
                              ocp=below)
            if vi.max_ocp is not None:
                rel = table.get(vi.max_ocp)
                if rel is not None and rel.kube_key < mk:
                    yield finding("min-kube-version-range", file, node,
                                  f"minKubeVersion {node.raw} is above Kubernetes {rel.kube} of maxOpenShiftVersion {vi.max_ocp}: "
                                  "there is no OpenShift release the bundle can install on. Raise maxOpenShiftVersion or lower minKubeVersion.")
    if vi.no_constraints and bundle.mediatype in (REGISTRY_V1, None) and bundle.annotations_file is not None and not vi.explicit_target \
            and vi.publication_source != "catalogs":
        yield finding("no-version-constraints", bundle.annotations_file, bundle.annotations,
                      "Your operator bundle is not specifying the OpenShift or Kubernetes version(s) which are supported by it: "
                      f"it is published to every catalog and checked against every known release ({_rels(table.releases)}). "
                      f"Set {LABEL_KEY} here (e.g. \"v4.12\"), and spec.minKubeVersion / olm.maxOpenShiftVersion where they apply.")


# ---------------------------------------------------------------------------------------
# APIs

define("removed-api", "error", "The bundle uses a Kubernetes API removed in a release it targets", category=CAT, explanation="""
    What: a manifest (its apiVersion/kind), an owned CRD's `resources` entry, or an
    `alm-examples` object uses an API version that the Kubernetes of an OpenShift release in
    the bundle's range no longer serves. With no range information at all the range is every
    known release. RBAC rules are never flagged: they name groups and resources, not versions.
    An owned CRD's `resources` entry is a warning: it only tells the console what the
    operator creates, so it breaks nothing by itself, but it usually means the operator still
    creates the removed API.

    Why: the install fails on those releases ("no matches for kind ... in version ...").

    Fix: move to the replacement API the message names, or close the range before the release.

    Bad:  apiVersion: policy/v1beta1 / kind: PodDisruptionBudget with com.redhat.openshift.versions "v4.10"
    Good: apiVersion: policy/v1 / kind: PodDisruptionBudget
    """)

define("removed-api-on-upgrade", "error", "A cluster can upgrade into a release that removed an API the bundle uses", category=CAT, mixed=True, explanation="""
    What: the label closes the range (`v4.6-v4.8`), but a cluster that installed this bundle
    can upgrade to a later release where an API it uses is removed, because no
    maxOpenShiftVersion stops the upgrade (or it is set at or above that release).

    Why: the label decides which catalogs list the bundle, not where it runs: once installed,
    the operator stays while the cluster upgrades — and breaks there.

    Fix: migrate to the replacement API; or set maxOpenShiftVersion to the release before the
    removal (metadata/properties.yaml: `properties: [{type: olm.maxOpenShiftVersion, value: "4.8"}]`).
    """)

define("deprecated-api", "warning", "The bundle uses a deprecated Kubernetes API", category=CAT, explanation="""
    What: an API version deprecated (still served) in a release of the range, or one whose
    removal is known only for an upcoming release.

    Why: it will be removed; the message says when.

    Fix: move to the replacement API the message names.
    """)

define("api-not-yet-available", "error", "The bundle uses an API version that does not exist yet at the start of its range", category=CAT, explanation="""
    What: an API version that appeared in a Kubernetes release newer than the one of the
    range's first release (e.g. `policy/v1` PodDisruptionBudget, Kubernetes 1.21, with a label
    starting at 4.7 / Kubernetes 1.20).

    Why: the bundle cannot install on its oldest declared releases.

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
        return "the owned CRD's resources entry"
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
        elif vi.publication_source == "catalogs" and vi.ocp_versions and table.get(vi.ocp_versions[-1]) is not None \
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
                    # informational for the console; breaks only if the operator still creates it
                    yield finding("removed-api", file, node,
                                  f"{what} says instances of this CRD create {kind} {v}, which {gone_in} no longer serves: on OpenShift "
                                  f"{_rels(ga_gone)}{_range_note(vi)} an operator still creating it fails, and the console cannot list "
                                  f"these resources. Update the operator and this entry to {e.use}.", severity="warning", ocp=ga_gone)
                elif where == "alm-examples":
                    yield finding("removed-api", file, node,
                                  f"{what} uses an API that {gone_in} no longer serves: on OpenShift {_rels(ga_gone)}{_range_note(vi)} the "
                                  f"console's 'create' form for it fails. Use {e.use} instead.", ocp=ga_gone)
                else:
                    yield finding("removed-api", file, node,
                                  f"{what} is removed in {gone_in}, so the bundle cannot install on OpenShift "
                                  f"{_rels(ga_gone)}{_range_note(vi)}. Use {e.use} instead.", ocp=ga_gone)
            elif up_gone:
                yield finding("deprecated-api", file, node,
                              f"{what} will be removed in Kubernetes {vstr(e.removed)}, i.e. the upcoming OpenShift {_rels(up_gone)} that the "
                              f"range includes. Use {e.use} instead.", ocp=up_gone)
            elif e.deprecated is not None:
                dep = [r for r in rng if r.kube_key >= e.deprecated]
                if dep:
                    yield finding("deprecated-api", file, node,
                                  f"{what} is deprecated since Kubernetes {vstr(e.deprecated)} and removed in {vstr(e.removed)} "
                                  f"(OpenShift {first_rm.ocp if first_rm else '?'}); it is deprecated on OpenShift {_rels(dep)}. Use {e.use} instead.", ocp=dep)
            if upper is not None and e.removed is not None and not gone and first_rm is not None and first_rm.key > upper \
                    and (mx is None or first_rm.key <= mx):
                reach = [r for r in table.releases if r.key >= first_rm.key and (mx is None or r.key <= mx)]
                before = next((r for r in reversed(table.releases) if r.key < first_rm.key), None)
                sev = None if first_rm.ga else "warning"
                verb = "can upgrade" if first_rm.ga else "will be able to upgrade"
                yield finding("removed-api-on-upgrade", file, node,
                              f"installed from the {vstr(upper)} catalog, a cluster {verb} to OpenShift {first_rm.label()} "
                              f"(Kubernetes {first_rm.kube}), where {what} is removed: the operator breaks there"
                              f"{' (maxOpenShiftVersion ' + vi.max_ocp + ' does not stop it)' if mx else ' (no maxOpenShiftVersion stops the upgrade)'}. "
                              f"Migrate to {e.use}; or set maxOpenShiftVersion to \"{before.ocp if before else vstr(upper)}\" in metadata/properties.yaml "
                              f"(properties: [{{type: olm.maxOpenShiftVersion, value: \"{before.ocp if before else vstr(upper)}\"}}]).",
                              severity=sev, ocp=reach)
        if g is not None and vi.publication_source != "all-known":
            intro = ctx.apis.introduced_in(g, v, kind)
            if intro is not None and lo.kube_key < intro.since:
                early = [r for r in rng if r.kube_key < intro.since]
                first_ok = table.first_with_kube(intro.since)
                yield finding("api-not-yet-available", file, node,
                              f"{what} exists only from Kubernetes {vstr(intro.since)} (OpenShift {first_ok.ocp if first_ok else '?'}), but the "
                              f"range starts at OpenShift {lo.ocp} (Kubernetes {lo.kube}): the bundle cannot install on {_rels(early)}. "
                              f"Start the range at {first_ok.ocp if first_ok else 'a newer release'}, or use the older API version there.",
                              ocp=early)


def _range_note(vi) -> str:
    if vi.publication_source == "all-known":
        return " (the bundle declares no range, so it is published to every release)"
    if vi.publication_source == "target":
        return ""
    if vi.publication_source == "catalogs":
        return ", whose catalogs list it"
    return f", which {LABEL_KEY} '{vi.label}' publishes it to"


# ---------------------------------------------------------------------------------------
# Webhooks and infrastructure features

define("webhook-admission-review-versions", "error", "A webhook does not accept admission.k8s.io/v1 reviews", category=CAT, mixed=True, explanation="""
    What: a `spec.webhookdefinitions` entry whose `admissionReviewVersions` lacks `v1` while the
    range reaches Kubernetes 1.22 or later (error; OpenShift 4.9+), or only 1.16-1.21 (warning).

    Why: Kubernetes 1.22 stopped sending v1beta1 AdmissionReview; the API server refuses to
    call such a webhook and the CSV fails to install.

    Fix: accept `v1` (serve `admission.k8s.io/v1` AdmissionReview) and list it first:
        admissionReviewVersions: [v1, v1beta1]
    """)

define("infrastructure-features-deprecated", "warning", "operators.openshift.io/infrastructure-features is deprecated", category=CAT, explanation="""
    What: the CSV uses the `operators.openshift.io/infrastructure-features` annotation while its
    range reaches OpenShift 4.14 or later.

    Why: from 4.14 the console reads the `features.operators.openshift.io/*` annotations instead.

    Fix: replace it with one `features.operators.openshift.io/<feature>: "true"|"false"`
    annotation per feature (disconnected, fips-compliant, proxy-aware, tls-profiles, ...).
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
        new = [r for r in rng if r.kube_key >= (1, 22)]
        mid = [r for r in rng if (1, 16) <= r.kube_key < (1, 22)]
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
            name = wh.str("generateName") or wh.str("deploymentName") or "this webhook"
            if new:
                yield finding("webhook-admission-review-versions", csv.file, where,
                              f"the webhook {name} does not list v1 in admissionReviewVersions; from Kubernetes 1.22 (OpenShift 4.9) the API "
                              f"server sends only v1 reviews, so the webhook cannot be called on OpenShift {_rels(new)}. "
                              "Serve admission.k8s.io/v1 and write admissionReviewVersions: [v1, v1beta1].", ocp=new)
            elif mid:
                yield finding("webhook-admission-review-versions", csv.file, where,
                              f"the webhook {name} does not list v1 in admissionReviewVersions; it works on OpenShift {_rels(mid)} but not on "
                              "4.9 and later. Serve admission.k8s.io/v1 and write admissionReviewVersions: [v1, v1beta1].",
                              severity="warning", ocp=mid)
    inf = csv.annotation("operators.openshift.io/infrastructure-features")
    if inf is not None and isinstance(inf.value, str):
        yield from _infrastructure_list(csv, inf)
    if inf is not None:
        late = [r for r in rng if r.key >= (4, 14)]
        if late:
            ann = csv.annotations()
            keynode = ann.key_node("operators.openshift.io/infrastructure-features") if ann is not None else inf
            yield finding("infrastructure-features-deprecated", csv.file, keynode,
                          f"operators.openshift.io/infrastructure-features is deprecated and not read by the console of OpenShift {_rels(late)}; "
                          "replace it with one features.operators.openshift.io/<feature>: \"true\"|\"false\" annotation per feature "
                          "(disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws, token-auth-azure, token-auth-gcp).",
                          ocp=late)


def _infrastructure_list(csv, node):
    """operators.openshift.io/infrastructure-features must be a JSON list of known features
    (reported under feature-annotations: it is the older form of the same annotations)."""
    from .csv_annotations import data as csv_data

    known = [v.lower() for v in csv_data()["infrastructure_features"]["values"]]
    try:
        value = json.loads(node.value)
    except ValueError as e:
        yield finding("feature-annotations", csv.file, node,
                      f"operators.openshift.io/infrastructure-features is not valid JSON ({e.msg} at character {e.pos + 1}): the console "
                      f"reads no feature from it. Write a JSON list of strings, e.g. '[\"disconnected\", \"proxy-aware\"]' "
                      f"(known: {', '.join(known)}).")
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        yield finding("feature-annotations", csv.file, node,
                      "operators.openshift.io/infrastructure-features must be a JSON list of strings, e.g. '[\"disconnected\"]'; "
                      "the console reads no feature from anything else.")
        return
    unknown = [v for v in value if v.strip().lower() not in known]
    if unknown:
        yield finding("feature-annotations", csv.file, node,
                      f"operators.openshift.io/infrastructure-features lists {', '.join(repr(u) for u in unknown)}, not a feature the "
                      f"console knows ({', '.join(known)}); it is ignored. Fix the spelling or remove it.")
