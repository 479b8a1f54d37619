"""The bundle's CustomResourceDefinitions and the CSV's owned entries, as the CRD rules read them.

CustomResourceDefinitions in the bundle against the CSV's owned CRDs, their versions,
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
from typing import Any, Optional

from ...model import Bundle, Manifest
from ...nodes import Mapping, Node, Scalar, Sequence

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
    versions: list[CrdVersion] = field(default_factory=list)
    versions_key: Optional[Node] = None  # key node of spec.versions (or spec.version)
    spec: Optional[Mapping] = None

    def version(self, v: Optional[str]) -> Optional[CrdVersion]:
        for cv in self.versions:
            if cv.name == v:
                return cv
        return None

    @property
    def served(self) -> list[str]:
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


def _bool(v: Any) -> object:
    if v is None:
        return None
    if isinstance(v, Scalar):
        return v.value if isinstance(v.value, bool) else v.raw
    return v.type_name()


# the last bundle's CRDs: every CRD rule reads them (a local cache, once per bundle)
_LAST: list[Any] = [None, None]


def bundle_crds(bundle: Bundle) -> list[Crd]:
    """Every CRD manifest with a name, its group, kind and versions (positioned); computed once
    per bundle (the last bundle's are kept)."""
    if _LAST[0] is not bundle:
        _LAST[0], _LAST[1] = bundle, _bundle_crds(bundle)
    kept: list[Crd] = _LAST[1]
    return kept


def _bundle_crds(bundle: Bundle) -> list[Crd]:
    out: list[Crd] = []
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
                    if isinstance(v, Mapping) and (vname := v.str("name")):
                        c.versions.append(CrdVersion(vname, _bool(v.get("served")), _bool(v.get("storage")), v,
                                                     v.get("served"), v.get("storage")))
            elif (sversion := spec.str("version")) and m.api_version != V1_CRD:  # v1beta1's single spec.version (v1 has none)
                c.versions_key = spec.key_node("version")
                c.versions.append(CrdVersion(sversion, True, True, spec.get("version")))
        out.append(c)
    return out


def owned_entries(csv: Optional[Manifest]) -> Optional[list[Owned]]:
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
    out: list[Owned] = []
    for o in owned:
        if isinstance(o, Mapping):
            out.append(Owned(o.str("name"), o.str("version"), o.str("kind"), o,
                             o.get("name"), o.get("version"), o.get("kind")))
    return out


def required_names(csv: Optional[Manifest]) -> set[str]:
    spec = csv.spec() if csv is not None else None
    crds = spec.get("customresourcedefinitions") if spec is not None else None
    req = crds.get("required") if isinstance(crds, Mapping) else None
    if not isinstance(req, Sequence):
        return set()
    return {n for n in (r.str("name") for r in req if isinstance(r, Mapping)) if n}


def _group_of(name: str) -> str:
    return name.split(".", 1)[1] if "." in name else ""


def first_crds(crds: list[Crd]) -> tuple[dict[str, Crd], list[Crd]]:
    """``(by_name, firsts)``: the first CRD of each name (a second of the same name is
    crd-duplicate's), as crd-duplicate reads them."""
    by_name: dict[str, Crd] = {}
    firsts: list[Crd] = []
    for c in crds:
        if by_name.get(c.name) is not None:
            continue
        by_name[c.name] = c
        firsts.append(c)
    return by_name, firsts


def owned_candidates(o: Owned, crds: list[Crd], owned_names: set[str]) -> list[Crd]:
    """The CRDs of the bundle an owned entry whose name matches none may have meant: of its
    kind and group, else of its group with a name alike."""
    name = o.name
    assert name is not None  # the callers pass owned entries with a name
    group = _group_of(name)
    cands = [c for c in crds if c.name not in owned_names and o.kind and c.kind == o.kind and (c.group == group or not group)]
    if not cands:
        cands = [c for c in crds if c.name not in owned_names and c.group == group and c.group
                 and c.name.split(".", 1)[0].rstrip("s") == name.split(".", 1)[0].rstrip("s")]
    return cands


def claimed_crds(bundle: Bundle, owned: list[Owned], by_name: dict[str, Crd], firsts: list[Crd]) -> set[str]:
    """The CRDs offered as the fix of an owned entry with a wrong name (owned-crd-missing says
    so; crd-not-owned leaves them alone)."""
    owned_names = {o.name for o in owned if o.name}
    claimed: set[str] = set()
    for o in owned:
        if not o.name or by_name.get(o.name) is not None or not bundle.readable:
            continue
        cands = owned_candidates(o, firsts, owned_names)
        if len(cands) == 1:
            claimed.add(cands[0].name)
    return claimed
