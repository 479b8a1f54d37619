"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from .. import define, refusal
from ..lib.crds import bundle_crds

_API = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/"
_OLM = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/"

RULE = define("crd-duplicate", "The same CRD is defined twice in the bundle", __doc__, category="format", refused_by=[
    refusal("catalog-ci", "operator-sdk bundle validate (run by the community CI) errors on two CRDs with the same "
            "group/version/kind: \"duplicate CRD ... in bundle\"", _API + "bundle.go"),
    refusal("olm-install", "a second CRD for one group/kind never gets its names accepted; OLM waits for the CRD to be "
            "established and the install plan never completes", _OLM + "controller/operators/catalog/step.go"),
])


@RULE.check
def crd_duplicate(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return
    crds = bundle_crds(bundle)
    by_name: dict = {}
    firsts = []
    for c in crds:
        first = by_name.get(c.name)
        if first is not None:
            yield RULE.at(c.m.file, c.name_node,
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
            yield RULE.at(c.m.file, c.name_node,
                          f"the CRD {c.name} defines kind {c.kind} in group {c.group}, as {other.name} does",
                          detail=f"{other.name} is at {other.m.file.rel}:{other.name_node.line}; the API server accepts only one of "
                          "them (the other's names are not accepted). Keep one definition.")
            continue
        by_gk[(c.group, c.kind)] = c
