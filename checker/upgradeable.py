"""`olm-check upgradeable`: what OLM reports in the cluster's Upgradeable condition for a set
of CSVs on a cluster at a given OpenShift version, plus the max-OpenShift-version
enhancement's proposed three-state view (versions.md).

Today's OLM (pkg/controller/operators/openshift/helpers.go, ``incompatibleOperators``, as of
operator-lifecycle-manager 992bb097 of 2026-08-19): each installed CSV's
``olm.maxOpenShiftVersion`` property is read from its ``operatorframework.io/properties``
annotation only (``{"properties": [...]}``, projection.PropertiesAnnotationKey), which OLM's
resolver writes from the catalog's bundle properties. A CSV that carries that annotation is read
as installed (that annotation alone); a bundle, or a CSV without it, is read as the resolver would
write it: the olm.properties annotation's properties and metadata/properties.yaml's. More
than one declaration, an empty value, an unparsable value or one with a patch/pre-release
part is *invalid* and blocks; a valid max below the next minor release blocks; no max does
not block. 4.23 and 5.0 are one release (``normalizeOCPVersion``): a 4.22 cluster's next
release is 4.23 = 5.0, a 4.23 cluster's is 5.1. The message is ``skews.String()``, hard-coded
since January 2026 (commit 73a22057, kept by 1bf19cc9 of 2026-04-03) to "ClusterServiceVersions
blocking minor version upgrades to 4.23 or major version upgrades to 5.0:" and one "- ..." line per
blocking CSV (from October 2024, 27ced56d, to then: "ClusterServiceVersions blocking minor version
upgrades to <next> or higher:"; before it: "ClusterServiceVersions blocking cluster upgrade: "
with the lines joined by commas). Upgradeable=True carries no message (``setUpgradeable`` in
openshift/clusteroperator_controller.go).
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import Optional

from .upstream.blangsemver import MAX_OCP_PROPERTY as PROP, SemverError, max_openshift_version, parse_tolerant, property_value_text
from .nodes import Mapping, Scalar, Sequence
from .usage import Usage
from .versions import JsonNumber, loads_keeping_numbers


@dataclass
class CsvVerdict:
    name: str
    namespace: str
    source: str
    max: Optional[tuple] = None
    error: Optional[str] = None
    values: list = field(default_factory=list)
    # what a reader should know about how a declared value reaches OLM (an unquoted number)
    notes: list = field(default_factory=list)

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"


def olm_max(values: list) -> tuple:
    """(max (major, minor) or None, error text or None) exactly as today's OLM decides.
    ``values`` are the declared values as decoded from JSON/YAML."""
    if not values:
        return None, None
    if len(values) > 1:
        return None, f'defining more than one "{PROP}" property is not allowed'
    v = values[0]
    try:  # OLM holds the property's raw JSON text: a JSON number 4.10 stays 4.10
        return max_openshift_version(v.raw if isinstance(v, JsonNumber) else property_value_text(v)), None
    except SemverError as e:
        return None, str(e)


def verdict_for_bundle(bundle) -> Optional[CsvVerdict]:
    csv = bundle.csv
    if csv is None:
        return None
    md = csv.metadata
    name = csv.name or os.path.basename(bundle.path)
    ns = (md.str("namespace") if md is not None else None) or "<namespace>"
    cv = CsvVerdict(name=name, namespace=ns, source=bundle.rel)
    installed = csv.annotation(INSTALLED_KEY)
    if installed is not None:
        return _installed(cv, installed, csv.annotation("olm.properties") is not None or bundle.properties_file is not None)
    ann = csv.annotation("olm.properties")
    if ann is not None and isinstance(ann.value, str):
        try:
            props = loads_keeping_numbers(ann.value)
        except ValueError as e:
            cv.error = f"failed to unmarshal olm.properties annotation: {getattr(e, 'msg', str(e))}"
            return cv
        if isinstance(props, list):
            cv.values += [p.get("value") for p in props if isinstance(p, dict) and p.get("type") == PROP]
        for v in cv.values:
            if isinstance(v, JsonNumber) and v.raw != repr(float(v)):
                cv.notes.append(f"olm.properties has the JSON number {v.raw}: OLM reads {v.raw} as written, JSON and YAML "
                                f"tools read {float(v)!r}")
    pf = bundle.properties_file
    if pf is not None and pf.documents and isinstance(pf.documents[0], Mapping):
        props = pf.documents[0].get("properties")
        if isinstance(props, Sequence):
            for p in props:
                if isinstance(p, Mapping) and p.str("type") == PROP:
                    v = p.get("value")
                    cv.values.append(v.value if isinstance(v, Scalar) else "")
                    if (isinstance(v, Scalar) and isinstance(v.value, float) and v.style is None
                            and v.raw != repr(v.value)):
                        cv.notes.append(f"properties.yaml has the unquoted number {v.raw}: {v.raw} as written; YAML reads "
                                        f"{v.value!r}, and that is what OLM gets")
    cv.max, err = olm_max(cv.values)
    cv.error = cv.error or err
    return cv


# projection.PropertiesAnnotationKey (pkg/controller/registry/resolver/projection/properties.go):
# the annotation OLM's resolver writes on the CSV it installs, from the catalog's bundle properties
# (metadata/properties.yaml and the CSV's olm.properties, as opm serves them), and the only one
# maxOpenShiftVersion() in openshift/helpers.go reads on a cluster
INSTALLED_KEY = "operatorframework.io/properties"


def _installed(cv: CsvVerdict, node, also: bool) -> CsvVerdict:
    """An installed CSV: OLM reads only its operatorframework.io/properties annotation,
    ``{"properties": [{"type": ..., "value": ...}]}`` (PropertyListFromPropertiesAnnotation)."""
    if also:
        cv.notes.append(f"read from the {INSTALLED_KEY} annotation only, as OLM reads an installed CSV; its olm.properties "
                        "annotation and metadata/properties.yaml are not read")
    raw = node.value if isinstance(node, Scalar) else None
    if not isinstance(raw, str):
        cv.error = "failed to unmarshal properties annotation: the annotation is not a string"
        return cv
    try:
        doc = loads_keeping_numbers(raw)
    except ValueError as e:
        cv.error = f"failed to unmarshal properties annotation: {getattr(e, 'msg', str(e))}"
        return cv
    props = (doc or {}).get("properties") if isinstance(doc, (dict, type(None))) else False
    if props is not None and not isinstance(props, list):  # Go's json.Unmarshal into propertiesAnnotation refuses it
        cv.error = "failed to unmarshal properties annotation: it is not a JSON object with a properties list"
        return cv
    for p in props or []:
        if not isinstance(p, dict) or not isinstance(p.get("type", ""), str):
            cv.error = "failed to unmarshal properties annotation: a property is not an object with a string type"
            return cv
        if p.get("type") == PROP:
            cv.values.append(p.get("value"))
    cv.max, cv.error = olm_max(cv.values)
    return cv


def normalize(v: tuple) -> tuple:
    """OLM's ``normalizeOCPVersion``: 4.23 and 5.0 are one release (helpers.go, commit 1bf19cc9,
    OPRUN-4519), for the cluster's version and each CSV's max alike."""
    from .versions import norm

    return norm((v[0], v[1]))


def evaluate(verdicts: list, cluster: tuple) -> dict:
    cur = normalize(cluster)
    nxt = (cur[0], cur[1] + 1)
    blocking = []
    for v in sorted(verdicts, key=lambda v: (v.namespace, v.name)):  # the API server lists CSVs by namespace/name
        if v.error:
            blocking.append(v)
        elif v.max is not None and normalize(v.max) < nxt:
            blocking.append(v)
    # skews.String(): invalid declarations first, in order; the others fill the list from its end
    blocking = [v for v in blocking if v.error] + [v for v in reversed(blocking) if not v.error]
    today = {"upgradeable": not blocking}
    if blocking:
        parts = [f"- {v.ref} has invalid {PROP} properties: {v.error}" if v.error else
                 f"- maximum supported OCP version for {v.ref} is {v.max[0]}.{v.max[1]}" for v in blocking]
        today["reason"] = "IncompatibleOperatorsInstalled"
        today["message"] = ("ClusterServiceVersions blocking minor version upgrades to 4.23 or major version upgrades to 5.0:\n"
                            + "\n".join(parts))
    else:
        # setUpgradeable (openshift/clusteroperator_controller.go) leaves Upgradeable=True without a
        # message; "Safe to upgrade" is the packageserver ClusterOperator's (operatorstatus/csv_reporter.go)
        today["message"] = ""
    # the enhancement's proposed view: no/invalid max = indeterminate
    non_up = [v for v in verdicts if not v.error and v.max is not None and normalize(v.max) < nxt]
    indet = [v for v in verdicts if v.error or v.max is None]
    if non_up:
        proposed = {"status": "Not Upgradeable",
                    "message": "The following operators will not run on the next OpenShift Version: " + ", ".join(v.ref for v in non_up)}
    elif indet:
        proposed = {"status": "Upgradeable",
                    "message": "The following operators may not run on the next OpenShift Version: " + ", ".join(v.ref for v in indet)}
    else:
        proposed = {"status": "Upgradeable", "message": "Ready for upgrade"}
    return {
        "cluster_version": f"{cluster[0]}.{cluster[1]}",
        "next_minor": f"{nxt[0]}.{nxt[1]}",
        "today": today,
        "proposed": proposed,
        "csvs": [{"csv": v.ref, "source": v.source, "max_openshift_version": f"{v.max[0]}.{v.max[1]}" if v.max else None,
                  "declarations": [float(x) if isinstance(x, JsonNumber) else x for x in v.values], "invalid": v.error,
                  "notes": v.notes} for v in verdicts],
    }


def cmd_upgradeable(args) -> int:
    from .load import Reader, load_bundle
    from .roots import display_base
    from .model import Bundle, Manifest

    try:  # OLM reads the cluster's release with semver.ParseTolerant (helpers.go getCurrentRelease)
        release = parse_tolerant(args.cluster_version)
    except SemverError:
        raise Usage(f"--cluster-version: '{args.cluster_version}' is not an OpenShift version such as 4.8") from None
    cluster = (release.major, release.minor)
    base = display_base(args.paths)
    verdicts = []
    problems = []
    for p in args.paths:
        if not os.path.exists(p):
            raise Usage(f"{p}: no such file or directory")
        ap = os.path.abspath(p)
        reader = Reader(ap if os.path.isdir(ap) else os.path.dirname(ap), base)
        if os.path.isdir(ap):
            b = load_bundle(reader, ap)
        else:
            sf = reader.yaml_file(ap)
            b = Bundle(path=os.path.dirname(ap), rel=reader.rel(ap))
            b.manifest_files.append(sf)
            b.manifests = [Manifest(sf, i, d) for i, d in enumerate(sf.documents) if d is not None]
        for sf in b.files or b.manifest_files:
            for pr in sf.problems:
                problems.append(f"{sf.rel}:{pr.line}:{pr.column}: {pr.message}")
        v = verdict_for_bundle(b)
        if v is None:
            problems.append(f"{p}: no single ClusterServiceVersion found")
            continue
        verdicts.append(v)
    for msg in problems:
        print(f"olm-check: {msg}", file=sys.stderr)
    if not verdicts:
        raise Usage("no ClusterServiceVersion to evaluate")
    res = evaluate(verdicts, cluster)
    if args.format == "json":
        print(json.dumps(res, indent=2))
    else:
        t = res["today"]
        print(f"OpenShift {res['cluster_version']} -> {res['next_minor']}: "
              f"{'Upgradeable' if t['upgradeable'] else 'Not Upgradeable (IncompatibleOperatorsInstalled)'}")
        print("  OLM today: " + (t["message"].replace("\n", "\n    ") if t["message"] else "Upgradeable=True, without a message"))
        print(f"  proposed (max-OpenShift-version enhancement): {res['proposed']['status']}: {res['proposed']['message']}")
        for c in res["csvs"]:
            state = (f"invalid: {c['invalid']}" if c["invalid"]
                     else f"max {c['max_openshift_version']}" if c["max_openshift_version"] else "no maxOpenShiftVersion")
            print(f"  {c['csv']} ({c['source']}): {state}")
            for note in c["notes"]:
                print(f"    note: {note}")
    return 0 if res["today"]["upgradeable"] else 1
