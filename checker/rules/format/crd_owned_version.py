"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from ...nodes import Scalar, Sequence
from .. import define, refusal
from ..lib.crds import V1_CRD, Crd, Owned, bundle_crds, first_crds, owned_entries
from ..lib.fixes import fix_value

_API = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/"
_OLM = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/"
_K8S_CRD_VALIDATION = ("https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/"
                       "pkg/apis/apiextensions/validation/validation.go")

RULE = define("crd-owned-version", "An owned CRD version is not served, or a CRD has not exactly one storage version", __doc__, category="format", refused_by=[
    refusal("olm-install", "the owned version must be served: \"CRD version not served\", the CSV stays Pending",
            _OLM + "controller/operators/olm/requirements.go"),
    refusal("api-server", "a CRD without exactly one storage version (or with no version) is invalid: \"must have exactly "
            "one version marked as storage version\"", _K8S_CRD_VALIDATION),
    refusal("catalog-ci", "operator-sdk bundle validate runs the API server's CRD validation on every CRD of the bundle",
            _API + "crd.go"),
])


@RULE.check
def crd_owned_version(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return
    _, firsts = first_crds(bundle_crds(bundle))
    # storage versions (every CRD)
    for c in firsts:
        yield from _storage_versions(c)
    csv = bundle.csv
    if csv is None:
        return
    owned = owned_entries(csv)
    if owned is None:
        return  # owned-crd-fields / manifest rules say what is wrong with the list
    by_name, _ = first_crds(bundle_crds(bundle))
    # OLM's requirement check reads one owned entry per CRD name: the last one
    # (ClusterServiceVersion.GetAllCRDDescriptions keys them by name, later entries win)
    last_entry = {o.name: o for o in owned if o.name}
    for o in owned:
        if not o.name:
            continue  # owned-crd-fields
        crd = by_name.get(o.name)
        if crd is None:
            continue  # owned-crd-missing
        if o.version:
            yield from _owned_version(csv, o, crd, last_entry.get(o.name) is o)


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
    kind = ""
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
            kind = "not-last-entry"
            why += ("; OLM checks only the last owned entry of a CRD name, not this one, but the console lists "
                    "this entry as an API users can create, and creating it fails. Describe only served versions, or drop "
                    "this entry")
    if not kind:
        why += (f". Own a served version of the CRD: write '{served[0]}'." if len(served) == 1
                else ". Own a served version of the CRD, or serve this one.")
    else:
        why += "."
        fix = None
    yield RULE.at(csv.file, o.version_node, msg, kind=kind, fix=fix, detail=why)


def _storage_versions(c: Crd):
    spec = c.spec
    if spec is None:
        return
    vers = spec.get("versions")
    legacy = spec.get("version")
    v1 = c.m.api_version == V1_CRD
    if vers is None and (legacy is None or v1):
        if legacy is not None:
            yield RULE.at(c.m.file, spec.key_node("version") or spec,
                          f"the apiextensions.k8s.io/v1 CRD {c.name} has only the legacy spec.version "
                          f"({legacy.raw if isinstance(legacy, Scalar) else legacy.type_name()}), so it has no version",
                          detail="spec.version is a field of v1beta1 that v1 does not have: OLM drops it when it decodes the CRD, "
                          "and the API server rejects a CRD without versions (\"must have exactly one version marked as storage "
                          "version\"). Replace it with spec.versions: a list with that version, served: true, storage: true and its schema.")
            return
        yield RULE.at(c.m.file, spec,
                      f"the CRD {c.name} defines no versions",
                      detail="The API server rejects it. Add spec.versions with one version marked served: true and storage: true.")
        return
    if vers is not None and not isinstance(vers, Sequence):
        return  # a shape problem, not a version one
    for v in c.versions:
        for what, val, node in (("served", v.served, v.served_node), ("storage", v.storage, v.storage_node)):
            if node is not None and not isinstance(val, bool):
                yield RULE.at(c.m.file, node,
                              f"{what} of version {v.name} of {c.name} is {node.type_name()}, not true or false (a boolean)",
                              detail=f"The API server rejects the CRD. Write {what}: true or {what}: false without quotes.")
    storage = [v for v in c.versions if v.storage is True]
    if len(storage) == 1:
        return
    if not storage:
        names = ", ".join(v.name for v in c.versions) or "none"
        yield RULE.at(c.m.file, c.versions_key or spec,
                      f"the CRD {c.name} marks no version storage: true (versions: {names})",
                      detail="The API server requires exactly one storage version and rejects the CRD. Mark the version objects "
                      "are stored in (usually the newest stable one) storage: true.")
        return
    first = storage[0]
    for v in storage[1:]:
        yield RULE.at(c.m.file, v.storage_node or v.node,
                      f"the CRD {c.name} marks both {first.name} (line {first.node.line}) and {v.name} storage: true",
                      detail="The API server requires exactly one storage version and rejects the CRD. Keep storage: true on one "
                      "version and set storage: false on the others.")
