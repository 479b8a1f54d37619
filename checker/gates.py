"""Severities from the gates: who refuses what, on which target catalog's route.

``checker/data/gates.yaml`` lists the gates (the API server, OLM, opm, each pipeline check
with its suite and start date, the bundle validators, preflight's enforced checks, the
documentation a target asks authors to follow) and the targets (community, certified,
marketplace, operatorhub, minimal) with the suites on their routes. ``checker/data/
verdicts.yaml`` names, per rule and finding kind (``Finding.kind``), the gates that refuse it,
the gates that only warn, and its severity when none does.

A finding is an error exactly when a gate on the target's route refuses it and the catalog
does not waive that gate for the operator (its root ``config.yaml``: ``tests: [{name,
ignore_operators}]``). A finding that only gates bound to a release refuse (the API server,
OLM) and that concerns only releases the catalog no longer builds is info: nothing installs it
there any more. No rule picks an error itself.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Optional

import yaml

if TYPE_CHECKING:
    from .model import SourceFile

TARGETS = ("community", "certified", "marketplace", "operatorhub", "minimal")
_DATA = os.path.join(os.path.dirname(__file__), "data")


@dataclass(frozen=True)
class Gate:
    id: str
    name: str
    does: str
    source: str
    suite: Optional[str] = None  # a pipeline check's suite (common, community, isv, marketplace)
    since: Optional[str] = None  # the date it entered its suite
    targets: Optional[tuple[str, ...]] = None  # the targets whose route holds it (None: every target's)
    release_bound: bool = False  # it acts on a cluster of one release (the API server, OLM)
    warns: bool = False  # it only warns
    documents: bool = False  # documentation a target asks authors to follow (a warning there)
    skip_fbc: bool = False  # the pipeline skips it for operators with file-based catalogs (@skip_fbc)

    def title(self) -> str:
        if self.suite:
            suite = {"common": "every Red Hat catalog's", "community": "community-operators'", "isv": "the certified catalogs'",
                     "marketplace": "redhat-marketplace's"}.get(self.suite, self.suite)
            since = f", since {self.since}" if self.since else ""
            return f"{self.id} ({suite} pipeline{since})"
        return self.name


@dataclass(frozen=True)
class Target:
    id: str
    title: str
    suites: tuple[str, ...]
    organization: Optional[str] = None
    openshift: bool = True
    live_from: Optional[str] = None
    validation: str = ""
    preflight: str = ""


@dataclass(frozen=True)
class Kind:
    """One finding kind of a rule: the gates that refuse it, those that only warn, and its
    severity when no gate on the route refuses it (``otherwise``: warning, info or off)."""

    refused_by: tuple[str, ...] = ()
    warned_by: tuple[str, ...] = ()
    otherwise: object = "warning"  # a severity, or {target: severity, "default": severity}
    note: str = ""

    def otherwise_in(self, target: str) -> str:
        o = self.otherwise
        if isinstance(o, dict):
            return str(o.get(target, o.get("default", "warning")))
        return str(o)


@dataclass
class Tables:
    gates: dict[str, Gate]
    targets: dict[str, Target]
    kinds: dict[str, dict[str, Kind]]  # rule id -> {kind: Kind}


def _load_yaml(name: str) -> Any:
    with open(os.path.join(_DATA, name), "rb") as fh:
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@lru_cache(maxsize=1)
def tables() -> Tables:
    raw = _load_yaml("gates.yaml")
    gates = {}
    for gid, g in raw["gates"].items():
        gates[gid] = Gate(id=gid, name=str(g.get("name") or gid), does=str(g.get("does") or ""),
                          source=str(g.get("source") or ""), suite=g.get("suite"), since=g.get("since"),
                          targets=tuple(g["targets"]) if g.get("targets") else None,
                          release_bound=bool(g.get("release_bound")), warns=bool(g.get("warns")),
                          documents=bool(g.get("documents")), skip_fbc=bool(g.get("skip_fbc")))
    targets = {}
    for tid, t in raw["targets"].items():
        targets[tid] = Target(id=tid, title=str(t.get("title") or tid), suites=tuple(t.get("suites") or ()),
                              organization=t.get("organization"), openshift=t.get("openshift", True) is not False,
                              live_from=t.get("live_from"), validation=str(t.get("validation") or ""),
                              preflight=str(t.get("preflight") or ""))
    kinds: dict[str, dict[str, Kind]] = {}
    for rid, ks in (_load_yaml("verdicts.yaml") or {}).items():
        kinds[rid] = {}
        for kid, k in (ks or {}).items():
            k = k or {}
            kinds[rid]["" if kid == "default" else kid] = Kind(
                refused_by=tuple(k.get("refused_by") or ()), warned_by=tuple(k.get("warned_by") or ()),
                otherwise=_otherwise(k.get("otherwise", "warning"), rid, kid), note=str(k.get("note") or ""))
    return Tables(gates, targets, kinds)


def _otherwise(o: Any, rid: str, kid: str) -> Any:
    vals = list(o.values()) if isinstance(o, dict) else [o]
    for v in vals:
        if v not in ("warning", "info", "off"):
            raise ValueError(f"verdicts.yaml: {rid}/{kid}: otherwise must be warning, info or off, not {v!r}")
    return dict(o) if isinstance(o, dict) else o


def on_route(gate: Gate, target: str, fbc: bool = False) -> bool:
    """Is ``gate`` on the route of a bundle submitted to ``target`` (``fbc``: by an operator
    with file-based catalogs, for which the pipeline skips its @skip_fbc checks)?"""
    t = tables().targets.get(target)
    if t is None or (fbc and gate.skip_fbc):
        return False
    if gate.suite is not None:
        return gate.suite in t.suites and (gate.targets is None or target in gate.targets)
    if gate.targets is not None:
        return target in gate.targets
    return True  # the API server, OLM, opm: every route


@dataclass
class Catalog:
    """What a catalog repository's root ``config.yaml`` says: its organization (the target)
    and its per-check waivers ``[(check, [operator name regex, ...])]``; and the releases whose
    catalogs it still builds (its ``catalogs/v4.X`` directories), when it has them."""

    organization: Optional[str] = None
    waivers: list[tuple[str, list[str]]] = field(default_factory=list)
    # allowed_bundle_registries: the prefixes an FBC bundle image must start with (check_bundle_images_in_fbc)
    bundle_registries: list[str] = field(default_factory=list)
    live: Optional[tuple[str, ...]] = None
    path: Optional[str] = None
    file: Optional[SourceFile] = None  # config.yaml (its problems are reported)

    def waived(self, check: str, operator: Optional[str]) -> bool:
        if operator is None:
            return False
        for name, patterns in self.waivers:
            if name != check:
                continue
            for p in patterns:
                try:
                    if re.match(p, operator):  # the pipeline's apply_test_waivers: re.match on the name
                        return True
                except re.error:
                    continue
        return False


def target_of_organization(org: object) -> Optional[str]:
    for t in tables().targets.values():
        if t.organization is not None and t.organization == org:
            return t.id
    return None


@dataclass(frozen=True)
class CatalogSource:
    """The catalog repository's own word taken from elsewhere than the checked tree (the
    Action under ``config_from_base``: the pull request's base commit, so that a pull request
    cannot pick its own target or waivers): ``config``, a file holding that ``config.yaml``
    (None: there is none), read with ``reader`` (one rooted at its directory); ``releases``,
    the names of that ``catalogs/`` directory's entries (None: as the checked tree has them)."""

    config: Optional[str] = None
    reader: Any = None
    releases: Optional[tuple[str, ...]] = None


def read_catalog(reader: Any, root: str, source: Optional[CatalogSource] = None) -> Optional[Catalog]:
    """The catalog repository at ``root``: its ``config.yaml`` and ``catalogs/`` releases
    (None when ``root`` holds neither), or those of ``source``. The config file is read
    through the run's ``Reader`` like every other file (limits, links out of the tree, YAML
    problems: ``Catalog.file``'s problems); one that cannot be read names no organization and
    waives nothing."""
    if not os.path.isdir(os.path.join(root, "operators")):
        return None
    cfg_path: Optional[str] = os.path.join(root, "config.yaml")
    if source is not None:
        cfg_path, reader = source.config, source.reader
    cat = Catalog()
    found = False
    if cfg_path is not None and os.path.isfile(cfg_path):
        found = True
        cat.path = cfg_path
        cat.file = sf = reader.yaml_file(cfg_path, skip=False)
        docs = [d for d in sf.documents if d is not None]
        data = docs[0] if len(docs) == 1 else None
        if data is not None and data.kind == "mapping":
            cat.organization = data.str("organization")
            regs = data.get("allowed_bundle_registries")
            if regs is not None and regs.kind == "sequence":
                cat.bundle_registries = [x.value for x in regs.items if x.kind == "scalar" and isinstance(x.value, str)]
            tests = data.get("tests")
            for t in tests.items if tests is not None and tests.kind == "sequence" else ():
                names = t.get("ignore_operators") if t.kind == "mapping" else None
                if t.kind == "mapping" and t.str("name") and names is not None and names.kind == "sequence":
                    cat.waivers.append((t.str("name"), [x.value for x in names.items
                                                        if x.kind == "scalar" and isinstance(x.value, str)]))
    rel = []
    try:
        names = source.releases if source is not None and source.releases is not None else None
        for name in os.listdir(os.path.join(root, "catalogs")) if names is None else names:
            m = re.fullmatch(r"v(\d+)\.(\d+)", name)
            if m and (names is not None or os.path.isdir(os.path.join(root, "catalogs", name))):
                rel.append((int(m.group(1)), int(m.group(2))))
    except OSError:
        rel = []
    if rel:
        found = True
        cat.live = tuple(f"{a}.{b}" for a, b in sorted(rel))
    return cat if found else None


def _key(v: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in v.split("."))
    except ValueError:
        return (0,)


def live_releases(target: str, catalog: Optional[Catalog], known: list[str]) -> Optional[set[str]]:
    """The releases whose catalogs ``target`` still builds, or will: from the target's
    ``live_from`` on (of ``known``), and the catalog repository's own ``catalogs/`` releases;
    None when the target has no OpenShift releases."""
    t = tables().targets.get(target)
    if t is None or not t.openshift or not t.live_from:
        return None
    # a catalog repository's catalogs/vX.Y directories are its file-based catalogs, which exist
    # only for the releases since its operators moved to them (redhat-marketplace-operators:
    # v4.17 and up, while its index images are built from 4.12): they add releases, never
    # take older ones away
    lo = _key(t.live_from)
    return {v for v in known if _key(v) >= lo} | set(catalog.live if catalog is not None and catalog.live else ())


_OPERATOR = re.compile(r"(?:^|/)operators/([^/]+)/")


def operator_of(path: str) -> Optional[str]:
    m = _OPERATOR.search(path or "")
    return m.group(1) if m else None


@dataclass
class Verdict:
    severity: Optional[str]  # None: off
    gate: Optional[Gate] = None  # the gate that refuses (error) or warns (warning)
    note: str = ""  # why it is not an error although a gate names it (waived, end-of-life only)


def kind_of(rule_id: str, kind: str) -> Optional[Kind]:
    ks = tables().kinds.get(rule_id)
    if not ks:
        return None
    return ks.get(kind) or ks.get("")


def judge(rule_id: str, kind: str, target: str, operator: Optional[str] = None, releases: Iterable[Any] = (),
          catalog: Optional[Catalog] = None, live: Optional[set[str]] = None, pinned: bool = False,
          fbc: bool = False) -> Optional[Verdict]:
    """The verdict on a finding of ``rule_id``/``kind`` for ``target``; None when the data has
    no entry for the rule (the rule's documented severity stands). ``releases``: the finding's
    OpenShift releases; ``live``: the releases the target still builds; ``pinned``: the run
    was asked for releases (``--ocp``), which are then live by definition."""
    k = kind_of(rule_id, kind)
    if k is None:
        return None
    g = tables().gates
    refusing = [g[x] for x in k.refused_by if x in g and on_route(g[x], target, fbc) and not g[x].warns and not g[x].documents]
    waived = [x for x in refusing if catalog is not None and catalog.waived(x.id, operator)]
    active = [x for x in refusing if x not in waived]
    if active:
        hard = [x for x in active if not x.release_bound]
        if hard:
            return Verdict("error", hard[0])
        rel = [str(r) for r in releases or ()]
        if rel and live is not None and not pinned and not (set(rel) & live):
            return Verdict("info", active[0], "end-of-life")
        return Verdict("error", active[0])
    warning = [g[x] for x in k.refused_by + k.warned_by if x in g and on_route(g[x], target, fbc)
               and (x in k.warned_by or g[x].warns or g[x].documents)]
    if warning:
        return Verdict("warning", warning[0])
    sev = k.otherwise_in(target)
    if waived and sev in ("off",):
        sev = "info"
    v = Verdict(None if sev == "off" else sev)
    if waived:
        v.gate = waived[0]
        v.note = "waived"
    return v


def explain(rule_id: str) -> list[dict[str, Any]]:
    """Per finding kind of ``rule_id``: {kind, note, targets: {target: {severity, gate}}}."""
    ks = tables().kinds.get(rule_id) or {}
    out = []
    for kind, k in ks.items():
        per = {}
        for t in TARGETS:
            v = judge(rule_id, kind, t)
            assert v is not None  # the rule has gate data (``ks``): judge always decides
            per[t] = {"severity": v.severity or "off", "gate": v.gate.title() if v.gate else None,
                      "source": v.gate.source if v.gate else None}
        out.append({"kind": kind or "default", "note": k.note, "targets": per})
    return out
