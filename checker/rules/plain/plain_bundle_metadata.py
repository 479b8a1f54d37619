"""
What: a plain bundle (`k8s+v1`) has no ClusterServiceVersion; `metadata/olm.yaml` holds
the operator's `name`, `version` (semver), `minKubeVersion` and `installModes` (the
install modes it supports: OwnNamespace, SingleNamespace, MultiNamespace, AllNamespaces).

Why: OLM reads these instead of a CSV; without them it cannot name, order or place the
operator, nor tell which clusters it installs on.

Fix: add metadata/olm.yaml with the four keys.

Bad:  metadata/ with only annotations.yaml
Good:
    name: example-operator
    version: 1.0.0
    minKubeVersion: 1.27.0
    installModes: [AllNamespaces]

"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...upstream.blangsemver import SemverError, parse
from .. import default_detail, define, refusal
from ..lib.plain import DESIGN, DESIGN_QUOTE, K8S_V1_SEVERITY, olm_yaml, plain_kind

RULE = define("plain-bundle-metadata", "metadata/olm.yaml is missing or lacks name, version, minKubeVersion or installModes",
              __doc__ + K8S_V1_SEVERITY, category="plain", refused_by=[
                  refusal("opm", "the k8s+v1 validators the plain-bundle design adds to opm refuse a k8s+v1 bundle without "
                          "metadata/olm.yaml and its name, version, minKubeVersion and installModes, which the design ALWAYS "
                          f"requires {DESIGN_QUOTE}", DESIGN)])
WHY = default_detail(RULE.id)
INSTALL_MODES = ("OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces")


def _has(m, key) -> bool:
    v = m.get(key)
    return v is not None and not (isinstance(v, Scalar) and v.value in (None, ""))


@RULE.check
def plain_bundle_metadata(bundle: Bundle, ctx: Context):
    kind = plain_kind(bundle)
    if kind is None:
        return
    sf = olm_yaml(bundle)
    if sf is None:
        where = bundle.sub("metadata") if bundle.has_metadata_dir else bundle.rel
        yield RULE.at(where, None, "the plain (k8s+v1) bundle has no metadata/olm.yaml",
                      detail="OLM reads the operator's name, version, minKubeVersion and installModes from it (there is "
                      "no CSV). Add metadata/olm.yaml with those four keys.", kind=kind)
        return
    if not sf.readable:
        return
    doc = sf.documents[0] if sf.documents else None
    if not isinstance(doc, Mapping):
        yield RULE.at(sf, doc, "metadata/olm.yaml must be a mapping with name, version, minKubeVersion and installModes, "
                      f"not {doc.type_name() if doc is not None else 'empty'}", detail=WHY, kind=kind)
        return
    missing = [k for k in ("name", "version", "minKubeVersion", "installModes") if not _has(doc, k)]
    if missing:
        yield RULE.at(sf, doc, f"metadata/olm.yaml lacks {', '.join(missing)}",
                      detail="OLM needs name, version, minKubeVersion and installModes to place and install a plain "
                      "bundle. Add " + ("it." if len(missing) == 1 else "them."), kind=kind)
    for key in ("name", "version"):
        v = doc.get(key)
        if v is not None and _has(doc, key) and not (isinstance(v, Scalar) and isinstance(v.value, str)):
            yield RULE.at(sf, v, f"{key} must be a string (quote it), not {v.type_name()}", detail=WHY, kind=kind)
    v = doc.get("version")
    if isinstance(v, Scalar) and isinstance(v.value, str) and v.value:
        try:
            parse(v.value)
        except SemverError as e:
            yield RULE.at(sf, v, f"version '{v.value}' is not a semantic version OLM can order ({e})",
                          detail="Write major.minor.patch, e.g. 1.2.0.", kind=kind)
    im = doc.get("installModes")
    if im is not None and _has(doc, "installModes"):
        if not isinstance(im, Sequence) or len(im) == 0:
            yield RULE.at(sf, im, f"installModes must be a non-empty list of install modes ({', '.join(INSTALL_MODES)})",
                          detail=WHY, kind=kind)
        else:
            for item in im:
                t = item.get("type") if isinstance(item, Mapping) else item
                if not (isinstance(t, Scalar) and t.value in INSTALL_MODES):
                    shown = t.raw if isinstance(t, Scalar) else (t.type_name() if t is not None else "nothing")
                    yield RULE.at(sf, t if t is not None else item, f"'{shown}' is not an install mode",
                                  detail=f"Use {', '.join(INSTALL_MODES)}.", kind=kind)
