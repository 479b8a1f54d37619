"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from .. import define, refusal
from ..lib.crds import bundle_crds, claimed_crds, first_crds, owned_entries, required_names

_API = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/"

RULE = define("crd-not-owned", "A CRD in the bundle is not owned by the CSV", __doc__, category="format", refused_by=[
    refusal("catalog-ci", "operator-sdk bundle validate (default validators, run by the community CI's "
            "check_osdk_bundle_validate_* checks) errors: \"CRD ... is present in bundle ... but not defined in CSV\"",
            _API + "bundle.go"),
])


@RULE.check
def crd_not_owned(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return
    by_name, firsts = first_crds(bundle_crds(bundle))
    csv = bundle.csv
    if csv is None:
        return
    owned = owned_entries(csv)
    if owned is None:
        return  # owned-crd-fields / manifest rules say what is wrong with the list
    owned_names = {o.name for o in owned if o.name}
    claimed = claimed_crds(bundle, owned, by_name, firsts)  # offered as the fix of an owned entry: owned-crd-missing's
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
        yield RULE.at(c.m.file, c.name_node, msg, detail=why)
