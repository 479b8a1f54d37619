"""CustomResourceDefinitions in the bundle against the CSV's owned CRDs, their versions,
and CRD versions compared with the bundle this one replaces.

OLM matches an owned CRD at install time by its exact `metadata.name` (`<plural>.<group>`)
and requires the owned version to be served (the CSV's requirement check); operator-sdk's
validator (operator-framework/api validateOwnedCRDs) matches group/version/kind instead.
Both are reported, each with what fails where.

Sources (operator-framework/operator-lifecycle-manager): the requirement check by name and
served version, pkg/controller/operators/olm/requirements.go ("CRD version not served");
the CRD update refused when a stored version vanishes, pkg/lib/crd/storage.go
SafeStorageVersionUpgrade and pkg/controller/operators/catalog/step.go ("risk of data
loss"); CRDs decoded into the v1 type without strict field checking, pkg/lib/crd/unmarshal.go.
operator-sdk's checks (`operator-sdk bundle validate`, which the community catalog's CI runs:
operator-sdk internal/registry/validate.go): operator-framework/api
pkg/validation/internal/bundle.go (owned / not owned / duplicate CRDs) and crd.go (the API
server's own CRD validation). The API server's: k8s.io/apiextensions-apiserver
pkg/apis/apiextensions/validation/validation.go ("must have exactly one version marked as
storage version").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..model import REGISTRY_V1, Bundle, Manifest
from ..nodes import Mapping, Node, Scalar, Sequence
from . import check, define, finding, refusal
from .lib.fixes import fix_value

_API = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/"
_OLM = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/"
_SDK_VALIDATE = "https://github.com/operator-framework/operator-sdk/blob/master/internal/registry/validate.go"
_K8S_CRD_VALIDATION = ("https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/"
                       "pkg/apis/apiextensions/validation/validation.go")
_CI = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/"
       "community/bundle.py")


V1_CRD = "apiextensions.k8s.io/v1"


@dataclass
class CrdVersion:
    name: str
    served: object  # True/False, or the odd value as written (None when absent)
    storage: object
    node: Node  # the version entry (or spec.version's value)
    served_node: Optional[Node] = None
    storage_node: Optional[Node] = None


@dataclass
class Crd:
    m: Manifest
    name: str
    name_node: Node
    group: Optional[str]
    kind: Optional[str]
    versions: list = field(default_factory=list)  # CrdVersion
    versions_key: Optional[Node] = None  # key node of spec.versions (or spec.version)
    spec: Optional[Mapping] = None

    def version(self, v: str) -> Optional[CrdVersion]:
        for cv in self.versions:
            if cv.name == v:
                return cv
        return None

    @property
    def served(self) -> list:
        return [v.name for v in self.versions if v.served is True]


@dataclass
class Owned:
    name: Optional[str]
    version: Optional[str]
    kind: Optional[str]
    node: Mapping
    name_node: Optional[Node]
    version_node: Optional[Node]
    kind_node: Optional[Node]


def _bool(v) -> object:
    if v is None:
        return None
    if isinstance(v, Scalar):
        return v.value if isinstance(v.value, bool) else v.raw
    return v.type_name()


def bundle_crds(bundle: Bundle) -> list:
    """Every CRD manifest with a name, its group, kind and versions (positioned)."""
    out = []
    for m in bundle.crds:
        md = m.metadata
        if md is None or m.name is None:
            continue
        spec = m.spec()
        names = spec.get("names") if spec is not None else None
        c = Crd(m=m, name=m.name, name_node=md.get("name"),
                group=spec.str("group") if spec is not None else None,
                kind=names.str("kind") if isinstance(names, Mapping) else None, spec=spec)
        if spec is not None:
            vers = spec.get("versions")
            if isinstance(vers, Sequence):
                c.versions_key = spec.key_node("versions")
                for v in vers:
                    if isinstance(v, Mapping) and v.str("name"):
                        c.versions.append(CrdVersion(v.str("name"), _bool(v.get("served")), _bool(v.get("storage")), v,
                                                     v.get("served"), v.get("storage")))
            elif spec.str("version") and m.api_version != V1_CRD:  # v1beta1's single spec.version (v1 has none)
                c.versions_key = spec.key_node("version")
                c.versions.append(CrdVersion(spec.str("version"), True, True, spec.get("version")))
        out.append(c)
    return out


def owned_entries(csv) -> Optional[list]:
    """The CSV's spec.customresourcedefinitions.owned entries; None when it is malformed."""
    spec = csv.spec() if csv is not None else None
    if spec is None:
        return None
    crds = spec.get("customresourcedefinitions")
    if crds is None or (isinstance(crds, Scalar) and crds.value is None):
        return []
    if not isinstance(crds, Mapping):
        return None
    owned = crds.get("owned")
    if owned is None or (isinstance(owned, Scalar) and owned.value is None):
        return []
    if not isinstance(owned, Sequence):
        return None
    out = []
    for o in owned:
        if isinstance(o, Mapping):
            out.append(Owned(o.str("name"), o.str("version"), o.str("kind"), o,
                             o.get("name"), o.get("version"), o.get("kind")))
    return out


def required_names(csv) -> set:
    spec = csv.spec() if csv is not None else None
    crds = spec.get("customresourcedefinitions") if spec is not None else None
    req = crds.get("required") if isinstance(crds, Mapping) else None
    if not isinstance(req, Sequence):
        return set()
    return {r.str("name") for r in req if isinstance(r, Mapping) and r.str("name")}


def _group_of(name: str) -> str:
    return name.split(".", 1)[1] if "." in name else ""


define("owned-crd-missing", "error", "A CRD the CSV owns is not in the bundle", refused_by=[
    refusal("olm-install", "looks an owned CRD up by its exact name; none there: requirements not met, the CSV stays Pending",
            _OLM + "controller/operators/olm/requirements.go"),
    refusal("catalog-ci", "operator-sdk bundle validate (run by the community CI) fails an owned group/version/kind with no CRD: "
            "\"owned CRD ... not found in bundle\"", _API + "bundle.go"),
], explanation="""
    What: every entry of the CSV's `spec.customresourcedefinitions.owned` must match a
    CustomResourceDefinition in manifests/: by its exact `metadata.name` (`<plural>.<group>`),
    which is how OLM looks it up when it installs the operator, and with the same `kind`, which
    is how operator-sdk's bundle validation (run by catalog CI) matches it.

    Why: OLM checks the CSV's requirements by CRD name: with no CRD of that name the CSV stays
    Pending ("requirements not met") and the operator never starts. operator-sdk's validator
    matches group/version/kind instead, so it misses a wrong name but fails a wrong kind ("owned
    CRD not found in bundle").

    Refused by: OLM's install (the requirement check, CSV Pending) and the catalog's CI
    (`operator-sdk bundle validate`: "owned CRD ... not found in bundle").

    Fix: correct the owned entry's `name` (or `kind`) to the CRD's, or add the missing CRD to
    manifests/.

    Bad:
        owned:
          - name: widget.example.com      # the CRD is widgets.example.com
            version: v1
            kind: Widget
    Good:
        owned:
          - name: widgets.example.com
            version: v1
            kind: Widget
    """)

define("crd-not-owned", "error", "A CRD in the bundle is not owned by the CSV", refused_by=[
    refusal("catalog-ci", "operator-sdk bundle validate (default validators, run by the community CI's "
            "check_osdk_bundle_validate_* checks) errors: \"CRD ... is present in bundle ... but not defined in CSV\"",
            _API + "bundle.go"),
], explanation="""
    What: a CustomResourceDefinition in manifests/ whose name is not among the CSV's
    `spec.customresourcedefinitions.owned`.

    Why: OLM creates the CRD but no CSV owns it: the console shows no API for it, it is left
    behind on uninstall, and another operator owning the same CRD conflicts with it.
    operator-sdk's bundle validation (run by catalog CI) fails the bundle ("CRD ... is present
    in bundle ... but not defined in CSV"); opm only warns. A CRD the operator merely needs
    belongs under `required`, shipped by the operator that owns it. (operator-sdk matches by
    group and kind: a CRD whose group and kind an owned entry names under a wrong name is
    `owned-crd-missing`'s finding, not this one.)

    Fix: add an owned entry (name, version, kind, displayName, description) for the CRD, or
    remove the CRD from manifests/.

    Bad:
        # manifests/ has gadgets.example.com, the CSV owns only widgets.example.com
    Good:
        owned:
          - name: widgets.example.com
            ...
          - name: gadgets.example.com
            version: v1
            kind: Gadget
            displayName: Gadget
            description: A gadget.
    """)

define("crd-duplicate", "error", "The same CRD is defined twice in the bundle", refused_by=[
    refusal("catalog-ci", "operator-sdk bundle validate (run by the community CI) errors on two CRDs with the same "
            "group/version/kind: \"duplicate CRD ... in bundle\"", _API + "bundle.go"),
    refusal("olm-install", "a second CRD for one group/kind never gets its names accepted; OLM waits for the CRD to be "
            "established and the install plan never completes", _OLM + "controller/operators/catalog/step.go"),
], explanation="""
    What: two CustomResourceDefinitions in manifests/ with the same `metadata.name`, or two
    defining the same group and kind under different names.

    Why: the bundle holds one object per name; which copy OLM applies depends on file order,
    and an install plan with two steps for one CRD fails. Two names for one group/kind make the
    API server refuse the second (its names are not accepted). operator-sdk's bundle validation
    reports "duplicate CRD".

    Fix: keep one definition (usually a leftover file from an older version or from a v1beta1
    copy: delete it).

    Bad:
        manifests/widgets.yaml              (widgets.example.com)
        manifests/example.com_widgets.yaml  (widgets.example.com)
    Good:
        manifests/example.com_widgets.yaml  (widgets.example.com)
    """)

define("crd-owned-version", "error", "An owned CRD version is not served, or a CRD has not exactly one storage version",
       mixed=True, refused_by=[
    refusal("olm-install", "the owned version must be served: \"CRD version not served\", the CSV stays Pending",
            _OLM + "controller/operators/olm/requirements.go"),
    refusal("api-server", "a CRD without exactly one storage version (or with no version) is invalid: \"must have exactly "
            "one version marked as storage version\"", _K8S_CRD_VALIDATION),
    refusal("catalog-ci", "operator-sdk bundle validate runs the API server's CRD validation on every CRD of the bundle",
            _API + "crd.go"),
], explanation="""
    What: the `version` of an owned CRD entry must be one of the CRD's versions with
    `served: true`; and every CRD must mark exactly one version `storage: true` (served and
    storage being booleans). A CSV may own one CRD several times (one entry per version, for
    the console); OLM checks only the last entry of each CRD name (it keys the entries by
    name), so an earlier entry naming an unserved version is a warning (the console offers an
    API that cannot be created), and one naming a version the CRD does not have is still an
    error (operator-sdk's validator needs every owned group/version/kind in the bundle).

    Why: OLM's requirement check fails a CSV whose owned version is not served ("CRD version
    not served"): the CSV stays Pending. The API server rejects a CRD with no storage version,
    or with more than one ("must have exactly one version marked as storage version"), and so
    does `operator-sdk bundle validate`, which runs the same validation. An
    `apiextensions.k8s.io/v1` CRD with only the legacy `spec.version` has no version at all:
    v1 has no such field, OLM drops it when it decodes the CRD.

    Fix: set the owned entry's version to a served version of the CRD (usually the storage
    version); mark exactly one version `storage: true`.

    Bad:
        versions:
          - {name: v1alpha1, served: true, storage: true}
          - {name: v1, served: true, storage: true}
    Good:
        versions:
          - {name: v1alpha1, served: true, storage: false}
          - {name: v1, served: true, storage: true}
    """)


@check("bundle")
def crd_rules(bundle: Bundle, ctx):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return
    crds = bundle_crds(bundle)
    by_name: dict = {}
    firsts = []
    for c in crds:
        first = by_name.get(c.name)
        if first is not None:
            yield finding("crd-duplicate", c.m.file, c.name_node,
                          f"the CRD {c.name} is defined twice: here and in {first.m.file.rel}:{first.name_node.line}",
                          detail="OLM applies one of them depending on file order and operator-sdk's bundle validation fails the "
                          "bundle. Keep one definition and delete the other.")
            continue
        by_name[c.name] = c
        firsts.append(c)
    by_gk: dict = {}
    for c in firsts:
        if not c.group or not c.kind:
            continue
        other = by_gk.get((c.group, c.kind))
        if other is not None:
            yield finding("crd-duplicate", c.m.file, c.name_node,
                          f"the CRD {c.name} defines kind {c.kind} in group {c.group}, as {other.name} does",
                          detail=f"{other.name} is at {other.m.file.rel}:{other.name_node.line}; the API server accepts only one of "
                          "them (the other's names are not accepted). Keep one definition.")
            continue
        by_gk[(c.group, c.kind)] = c

    # storage versions (every CRD)
    for c in firsts:
        yield from _storage_versions(c)

    csv = bundle.csv
    if csv is None:
        return
    owned = owned_entries(csv)
    if owned is None:
        return  # owned-crd-fields / manifest rules say what is wrong with the list
    owned_names = {o.name for o in owned if o.name}
    claimed = set()  # CRDs offered as the fix of an owned entry with a wrong name
    # OLM's requirement check reads one owned entry per CRD name: the last one
    # (ClusterServiceVersion.GetAllCRDDescriptions keys them by name, later entries win)
    last_entry = {o.name: o for o in owned if o.name}
    for o in owned:
        if not o.name:
            continue  # owned-crd-fields
        c = by_name.get(o.name)
        if c is None:
            if bundle.readable:  # else a file that did not parse may hold it: yaml-syntax says why
                yield from _owned_missing(csv, o, firsts, owned_names, claimed)
            continue
        if o.kind and c.kind and o.kind != c.kind:
            yield finding("owned-crd-missing", csv.file, o.kind_node,
                          f"the CSV owns {o.name} with kind {o.kind}, but that CRD defines kind {c.kind}",
                          fix=fix_value(csv.file, o.kind_node, c.kind, f"the CRD's kind, {c.kind}"),
                          detail="operator-sdk's bundle validation (run by catalog CI) matches owned CRDs by group, version and "
                          f"kind and reports {o.name} missing, and the console shows the wrong kind. Write 'kind: {c.kind}'.")
        if o.version:
            yield from _owned_version(csv, o, c, last_entry.get(o.name) is o)

    required = required_names(csv)
    for c in firsts:
        if c.name in owned_names or c.name in claimed:
            continue
        if c.name in required:
            msg = f"the CRD {c.name} is in the bundle, but the CSV lists it under required, not owned"
            why = ("A required CRD comes from the operator that owns it. Move the entry to owned if this operator provides "
                   "the API, or remove the CRD from manifests/.")
        else:
            msg = f"the CRD {c.name} is in the bundle, but the CSV does not own it"
            why = ("No CSV manages its API, the console does not show it, and operator-sdk's bundle validation (run by catalog "
                   "CI) fails the bundle. Add an entry under spec.customresourcedefinitions.owned (name: "
                   f"{c.name}, version, kind: {c.kind or '...'}, displayName, description), or remove the CRD from manifests/.")
        yield finding("crd-not-owned", c.m.file, c.name_node, msg, detail=why)


def _owned_missing(csv, o: Owned, crds: list, owned_names: set, claimed: set):
    group = _group_of(o.name)
    cands = [c for c in crds if c.name not in owned_names and o.kind and c.kind == o.kind and (c.group == group or not group)]
    if not cands:
        cands = [c for c in crds if c.name not in owned_names and c.group == group and c.group
                 and c.name.split(".", 1)[0].rstrip("s") == o.name.split(".", 1)[0].rstrip("s")]
    fix = None
    if len(cands) == 1:
        c = cands[0]
        claimed.add(c.name)
        hint = f"The bundle has {c.name} ({c.m.file.rel}) defining kind {c.kind or '?'}: write 'name: {c.name}'."
        fix = fix_value(csv.file, o.name_node, c.name, f"the CRD's name, {c.name}")
    elif crds:
        shown = ", ".join(c.name for c in crds[:6]) + (", ..." if len(crds) > 6 else "")
        hint = (f"The CRDs in the bundle are {shown}. Correct the name (it is <plural>.<group>), or add the CRD "
                "to manifests/.")
    else:
        hint = "The bundle has no CRD at all: add the CRD's manifest to manifests/."
    yield finding("owned-crd-missing", csv.file, o.name_node,
                  f"the CSV owns the CRD {o.name}, but no CustomResourceDefinition of that name is in manifests/", fix=fix,
                  detail="OLM looks owned CRDs up by this exact name when it installs, so the CSV stays Pending (requirements "
                  "not met). " + hint)


def _owned_version(csv, o: Owned, c: Crd, checked_by_olm: bool = True):
    """The owned entry's version against the CRD's. OLM checks the last entry of each CRD name
    (``checked_by_olm``); operator-sdk's validator needs every entry's version in the CRD."""
    cv = c.version(o.version)
    served = c.served
    if cv is not None and cv.served is True:
        return
    fix = None
    if len(served) == 1:
        fix = fix_value(csv.file, o.version_node, served[0], f"the served version, {served[0]}")
    shown = ", ".join(served) if served else "none"
    severity = "error"
    if cv is None:
        listed = ", ".join(v.name for v in c.versions) or "none"
        msg = f"the CSV owns version {o.version} of {o.name}, but the CRD has no version {o.version}"
        why = f"The CRD ({c.m.file.rel}) defines {listed} (served: {shown}); "
        if checked_by_olm:
            why += ("OLM requires the owned version to be served and leaves the CSV Pending, and operator-sdk's bundle "
                    "validation (run by catalog CI) reports the owned CRD not found in the bundle")
        else:
            why += ("operator-sdk's bundle validation (run by catalog CI) reports this owned CRD version not found in the "
                    "bundle")
    else:
        msg = (f"the CSV owns version {o.version} of {o.name}, but the CRD marks it "
               f"served: {str(cv.served).lower() if isinstance(cv.served, bool) else cv.served}")
        why = f"The CRD ({c.m.file.rel}:{cv.node.line}) serves {shown}"
        if checked_by_olm:
            why += "; OLM requires the owned version to be served (\"CRD version not served\") and leaves the CSV Pending"
        else:
            severity = "warning"
            why += ("; OLM checks only the last owned entry of a CRD name, not this one, but the console lists "
                    "this entry as an API users can create, and creating it fails. Describe only served versions, or drop "
                    "this entry")
    if severity == "error":
        why += (f". Own a served version of the CRD: write '{served[0]}'." if len(served) == 1
                else ". Own a served version of the CRD, or serve this one.")
    else:
        why += "."
        fix = None
    yield finding("crd-owned-version", csv.file, o.version_node, msg, severity=severity, fix=fix, detail=why)


def _storage_versions(c: Crd):
    spec = c.spec
    if spec is None:
        return
    vers = spec.get("versions")
    legacy = spec.get("version")
    v1 = c.m.api_version == V1_CRD
    if vers is None and (legacy is None or v1):
        if legacy is not None:
            yield finding("crd-owned-version", c.m.file, spec.key_node("version") or spec,
                          f"the apiextensions.k8s.io/v1 CRD {c.name} has only the legacy spec.version "
                          f"({legacy.raw if isinstance(legacy, Scalar) else legacy.type_name()}), so it has no version",
                          detail="spec.version is a field of v1beta1 that v1 does not have: OLM drops it when it decodes the CRD, "
                          "and the API server rejects a CRD without versions (\"must have exactly one version marked as storage "
                          "version\"). Replace it with spec.versions: a list with that version, served: true, storage: true and its schema.")
            return
        yield finding("crd-owned-version", c.m.file, spec,
                      f"the CRD {c.name} defines no versions",
                      detail="The API server rejects it. Add spec.versions with one version marked served: true and storage: true.")
        return
    if v1 and legacy is not None:
        yield finding("crd-legacy-version-field", c.m.file, spec.key_node("version") or legacy,
                      f"the apiextensions.k8s.io/v1 CRD {c.name} carries spec.version, a field only v1beta1 has",
                      detail="v1 knows only spec.versions. OLM decodes the CRD into the v1 type and drops the field silently, so "
                      "it has no effect (kubectl apply, which validates fields strictly by default since Kubernetes 1.25, rejects "
                      "the file: unknown field \"spec.version\"). Delete the line; spec.versions says which versions exist.")
    if vers is not None and not isinstance(vers, Sequence):
        return  # a shape problem, not a version one
    for v in c.versions:
        for what, val, node in (("served", v.served, v.served_node), ("storage", v.storage, v.storage_node)):
            if node is not None and not isinstance(val, bool):
                yield finding("crd-owned-version", c.m.file, node,
                              f"{what} of version {v.name} of {c.name} is {node.type_name()}, not true or false (a boolean)",
                              detail=f"The API server rejects the CRD. Write {what}: true or {what}: false without quotes.")
    storage = [v for v in c.versions if v.storage is True]
    if len(storage) == 1:
        return
    if not storage:
        names = ", ".join(v.name for v in c.versions) or "none"
        yield finding("crd-owned-version", c.m.file, c.versions_key or spec,
                      f"the CRD {c.name} marks no version storage: true (versions: {names})",
                      detail="The API server requires exactly one storage version and rejects the CRD. Mark the version objects "
                      "are stored in (usually the newest stable one) storage: true.")
        return
    first = storage[0]
    for v in storage[1:]:
        yield finding("crd-owned-version", c.m.file, v.storage_node or v.node,
                      f"the CRD {c.name} marks both {first.name} (line {first.node.line}) and {v.name} storage: true",
                      detail="The API server requires exactly one storage version and rejects the CRD. Keep storage: true on one "
                      "version and set storage: false on the others.")


define("crd-legacy-version-field", "warning", "A v1 CRD carries the v1beta1 field spec.version", explanation="""
    What: an `apiextensions.k8s.io/v1` CustomResourceDefinition with `spec.version` next to
    `spec.versions`. `spec.version` exists only in `apiextensions.k8s.io/v1beta1` (the single
    version of early CRDs); the v1 type has no such field.

    Why: OLM decodes a bundle's CRDs into the v1 type without strict field checking
    (operator-lifecycle-manager pkg/lib/crd/unmarshal.go) and sends what it decoded, so the
    field is dropped silently; `operator-sdk bundle validate` decodes the same way. The line
    only misleads readers (it may name a version the CRD no longer stores), and
    `kubectl apply`, whose default field validation is strict since Kubernetes 1.25, rejects
    the file ("unknown field"). A warning: nothing in the catalog or OLM refuses it. Without
    `spec.versions` the CRD has no version at all: the API server rejects it, reported by
    `crd-owned-version` as an error.

    Fix: delete `spec.version`.

    Bad:
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        spec:
          version: v1alpha1
          versions:
            - {name: v1alpha1, served: true, storage: true, schema: ...}
    Good:
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        spec:
          versions:
            - {name: v1alpha1, served: true, storage: true, schema: ...}
    """)


# ---------------------------------------------------------------------------------------
# Across bundles: CRD versions against the bundle this one replaces

define("crd-version-removal", "error", "A CRD version the previous bundle stored in is removed (error), or one it served (warning)",
       mixed=True, refused_by=[
    refusal("olm-upgrade", "OLM refuses to update a CRD whose new spec lacks a version in the cluster's status.storedVersions "
            "(\"risk of data loss\"); the install plan fails and the upgrade is stuck",
            _OLM + "controller/operators/catalog/step.go"),
], explanation="""
    What: compared with the bundle this one replaces (`spec.replaces`, when that bundle is in
    the same repository), for each CRD both ship:
    - error: the version the old bundle stores objects in (`storage: true`) is gone from the
      new CRD's `spec.versions`. On every cluster that ran the old bundle that version is in
      the CRD's `status.storedVersions` (the API server records the storage version there).
    - warning: a version the old bundle served (but did not store in) is gone without first
      being shipped with `served: false`.

    Why: OLM's catalog operator checks the new CRD against the one on the cluster
    (`SafeStorageVersionUpgrade`, operator-lifecycle-manager pkg/lib/crd/storage.go): every
    version in `status.storedVersions` must still be in the new spec, or it refuses the
    update ("risk of data loss ... new CRD removes version ... that is listed as a stored
    version on the existing CRD"), the install plan fails and the upgrade is stuck. A
    served-only version that vanishes is not refused by anything: clients, manifests and
    GitOps repositories still using it break on upgrade, and the documented path is to ship
    it with `served: false` first.

    Fix: keep the stored version in `spec.versions` (served: false, storage: false) until
    stored objects have been migrated to the new storage version and `status.storedVersions`
    no longer lists it; ship a served version with `served: false` for a release before
    removing it.

    Bad:
        # 1.0.0: versions v1alpha1 (served, storage)
        # 1.1.0 (replaces 1.0.0): versions v1 (served, storage) only
    Good:
        # 1.1.0: v1alpha1 {served: false, storage: false}, v1 {served: true, storage: true}
    """)


@check("repo")
def crd_version_removal(repo, ctx):
    facts = list(repo.facts)
    by_csv: dict = {}
    for f in facts:
        if f.csv_name:
            by_csv.setdefault(f.csv_name, []).append(f)
    for f in facts:
        if not f.checked or not f.replaces or not f.crds:
            continue
        olds = [g for g in by_csv.get(f.replaces, []) if g is not f
                and (g.operator == f.operator if f.operator else g.package == f.package)]
        if not olds:
            continue
        old = olds[0]
        for name, new in f.crds.items():
            prev = old.crds.get(name)
            if prev is None:
                continue
            listed = set(new.get("versions") or (list(new.get("served") or []) + list(new.get("storage") or [])))
            pos = new.get("pos")
            done = set()
            for v in prev.get("storage") or []:
                if v in listed:
                    continue
                done.add(v)
                fd = finding("crd-version-removal", pos.path, None,
                             f"the CRD {name} no longer has version {v}, which {old.csv_name} stores objects in",
                             line=pos.line, column=pos.column,
                             detail=f"{old.csv_name} ({old.rel}) has it with storage: true, so on clusters upgrading from it the "
                             "version is in the CRD's storedVersions: OLM refuses to update the CRD (\"risk of data loss\") and the "
                             f"upgrade is stuck. Keep {v} in spec.versions (served: false, storage: false) until stored objects are migrated.")
                fd.bundle = f.rel
                yield fd
            for v in prev.get("served") or []:
                if v in listed or v in done:
                    continue
                fd = finding("crd-version-removal", pos.path, None,
                             f"the CRD {name} drops version {v}, which {old.csv_name} still serves",
                             severity="warning", line=pos.line, column=pos.column,
                             detail=f"{old.csv_name} ({old.rel}) does not store objects in it, so OLM lets the upgrade through; "
                             f"clients and manifests using {v} break at once on upgrade. Ship {v} with served: false in this "
                             "release first, and remove it in a later one.")
                fd.bundle = f.rel
                yield fd
