"""
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
"""
from __future__ import annotations

from ...catalogs import checked_operators
from ...context import Context
from ...model import Bundle, Repository
from ...nodes import Mapping, Scalar, Sequence
from ...versions import MAX_TYPE, clip, vkey
from .. import define, refusal
from ..lib.fbc_blobs import Blob, get, items, val
from ..lib.versions_common import OLM_MAX

RULE = define("max-ocp-version-ignored", "maxOpenShiftVersion is declared where OLM never reads it",
              __doc__, category="version", refused_by=[
    refusal("cluster-upgrade", "OLM reads the limit only from the olm.maxOpenShiftVersion property: declared anywhere else it does "
            "not stop clusters from upgrading past it, into releases the bundle says it cannot run on",
            OLM_MAX),
])


@RULE.check
def max_ocp_version_ignored(bundle: Bundle, ctx: Context):
    # declared where OLM does not read it
    csv = bundle.csv
    if csv is not None:
        ann = csv.annotations()
        if ann is not None:
            for k, v in ann.items():
                if isinstance(k, Scalar) and isinstance(k.value, str) and k.value != "olm.properties" and k.value.lower().endswith("maxopenshiftversion"):
                    yield RULE.at(csv.file, k,
                                  f"the CSV annotation '{clip(k.value)}' has no effect, so cluster upgrades are NOT blocked",
                                  detail="OLM reads maxOpenShiftVersion only from the olm.maxOpenShiftVersion property. Move it to "
                                  f"metadata/properties.yaml (properties: [{{type: olm.maxOpenShiftVersion, value: \"{_plain(v)}\"}}]) "
                                  "or into the olm.properties annotation.")
    if bundle.annotations is not None and bundle.annotations_file is not None:
        for k, v in bundle.annotations.items():
            if isinstance(k, Scalar) and isinstance(k.value, str) and "maxopenshiftversion" in k.value.lower():
                yield RULE.at(bundle.annotations_file, k,
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
                    yield RULE.at(pf, t,
                                  f"the property type '{clip(t.value)}' has no effect, so cluster upgrades are NOT blocked",
                                  detail=f"OLM reads maxOpenShiftVersion only from a property of type {MAX_TYPE} (seed 001's "
                                  "operators.coreos.com/maxOpenShiftVersion is not what OLM implemented: "
                                  "pkg/controller/operators/openshift/helpers.go reads MaxOpenShiftVersionProperty, "
                                  f"\"{MAX_TYPE}\"). Write type: {MAX_TYPE}, value: \"{_plain(v)}\".")
    if bundle.dockerfile is not None:
        for key, lab in bundle.dockerfile.labels.items():
            if "maxopenshiftversion" in key.lower():
                yield RULE.at(bundle.dockerfile.file, None,
                              f"the LABEL {clip(key)} has no effect, so cluster upgrades are NOT blocked", line=lab.line, column=lab.column,
                              detail="OLM reads maxOpenShiftVersion only from the olm.maxOpenShiftVersion property. Move it to "
                              f"metadata/properties.yaml (properties: [{{type: olm.maxOpenShiftVersion, value: \"{lab.value}\"}}]).")


def _plain(v) -> str:
    if isinstance(v, Scalar):
        return str(v.value)
    return "X.Y"


# ---------------------------------------------------------------------------------------
# max-ocp-version-ignored in file-based catalogs (seed 001's declarative index key)

@RULE.check(scope="repo")
def fbc_max_ocp_version_ignored(repo: Repository, ctx: Context):
    """An olm.bundle property whose type names maxOpenShiftVersion but is not
    olm.maxOpenShiftVersion (seed 001 writes operators.coreos.com/maxOpenShiftVersion in its
    declarative index): OLM's resolver copies the bundle's properties into the installed CSV's
    operatorframework.io/properties annotation, and openshift/helpers.go reads only
    olm.maxOpenShiftVersion from it, so cluster upgrades are not blocked."""
    fbc = repo.fbc
    for name in sorted(checked_operators(repo)):
        oc = fbc.get(name)
        if oc is None:
            continue
        for ocp in sorted(oc.catalogs, key=vkey):
            cat = oc.catalogs[ocp]
            if cat.missing or not cat.readable:
                continue
            for blob in cat.blobs:
                if blob.schema != "olm.bundle":
                    continue
                w = Blob(blob)
                for p in items(w.node("properties")) or []:
                    tn = get(p, "type")
                    t = val(tn)
                    if isinstance(t, str) and t != "olm.maxOpenShiftVersion" and "maxopenshiftversion" in t.lower():
                        v = val(get(p, "value"))
                        at = tn if isinstance(tn, Scalar) else None
                        yield RULE.at(cat.rel, None,
                                     f"the property type '{t[:80]}' has no effect, so cluster upgrades are NOT blocked",
                                     detail=f"A property of bundle '{str(val(w.node('name')))[:80]}'. OLM's resolver copies a bundle's catalog properties into the installed CSV's "
                                     "operatorframework.io/properties annotation, and reads maxOpenShiftVersion from there only "
                                     "as a property of type olm.maxOpenShiftVersion (pkg/controller/operators/openshift/helpers.go, "
                                     "MaxOpenShiftVersionProperty); seed 001's operators.coreos.com/maxOpenShiftVersion is not what "
                                     f"OLM implemented. Write type: olm.maxOpenShiftVersion, value: \"{v if isinstance(v, str) else '4.x'}\".",
                                     ocp=[cat.ocp], line=at.line if at else blob.pos.line, column=at.col if at else blob.pos.column)
