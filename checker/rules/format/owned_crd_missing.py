"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from .. import define, refusal
from ..lib.crds import Owned, bundle_crds, first_crds, owned_candidates, owned_entries
from ..lib.fixes import fix_value

_API = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/"
_OLM = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/"

RULE = define("owned-crd-missing", "A CRD the CSV owns is not in the bundle", __doc__, category="format", refused_by=[
    refusal("olm-install", "looks an owned CRD up by its exact name; none there: requirements not met, the CSV stays Pending",
            _OLM + "controller/operators/olm/requirements.go"),
    refusal("catalog-ci", "operator-sdk bundle validate (run by the community CI) fails an owned group/version/kind with no CRD: "
            "\"owned CRD ... not found in bundle\"", _API + "bundle.go"),
])


@RULE.check
def owned_crd_missing(bundle: Bundle, ctx: Context):
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
    for o in owned:
        if not o.name:
            continue  # owned-crd-fields
        c = by_name.get(o.name)
        if c is None:
            if bundle.readable:  # else a file that did not parse may hold it: yaml-syntax says why
                yield from _owned_missing(csv, o, firsts, owned_names)
            continue
        if o.kind and c.kind and o.kind != c.kind:
            yield RULE.at(csv.file, o.kind_node,
                          f"the CSV owns {o.name} with kind {o.kind}, but that CRD defines kind {c.kind}",
                          fix=fix_value(csv.file, o.kind_node, c.kind, f"the CRD's kind, {c.kind}"),
                          detail="operator-sdk's bundle validation (run by catalog CI) matches owned CRDs by group, version and "
                          f"kind and reports {o.name} missing, and the console shows the wrong kind. Write 'kind: {c.kind}'.")


def _owned_missing(csv, o: Owned, crds: list, owned_names: set):
    cands = owned_candidates(o, crds, owned_names)
    fix = None
    if len(cands) == 1:
        c = cands[0]
        hint = f"The bundle has {c.name} ({c.m.file.rel}) defining kind {c.kind or '?'}: write 'name: {c.name}'."
        fix = fix_value(csv.file, o.name_node, c.name, f"the CRD's name, {c.name}")
    elif crds:
        shown = ", ".join(c.name for c in crds[:6]) + (", ..." if len(crds) > 6 else "")
        hint = (f"The CRDs in the bundle are {shown}. Correct the name (it is <plural>.<group>), or add the CRD "
                "to manifests/.")
    else:
        hint = "The bundle has no CRD at all: add the CRD's manifest to manifests/."
    yield RULE.at(csv.file, o.name_node,
                  f"the CSV owns the CRD {o.name}, but no CustomResourceDefinition of that name is in manifests/", fix=fix,
                  detail="OLM looks owned CRDs up by this exact name when it installs, so the CSV stays Pending (requirements "
                  "not met). " + hint)
