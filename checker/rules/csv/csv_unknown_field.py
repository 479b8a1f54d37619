"""
What: a key of the CSV's `spec`, `metadata` or top level that the ClusterServiceVersion
type does not define (its fields are listed in checker/data/csv.yaml, from
operator-framework/api's ClusterServiceVersionSpec and Kubernetes' ObjectMeta). The
message says what was probably meant: the right letter case (`MinKubeVersion` is
`minKubeVersion`), a close spelling (`miniKubeVersion`), a field at the wrong level
(`minKubeVersion` under metadata, `relatedImages` at the top level), an annotation
written directly under `metadata:` or `spec:` (`features.operators.openshift.io/...`,
`support`, `skipRange`), or a bundle annotation that belongs in
metadata/annotations.yaml.

Why: the API server prunes fields the CSV's CRD schema does not define, and OLM decodes
the bundle's CSV into its Go type, which keeps only its own fields: the value is dropped
without an error and the author's intent is lost (a version constraint, a skip range, a
feature claim). OLM's Go decoder matches field names regardless of letter case, so a
case slip may still reach OLM, but the API server, the catalog CI's checks and other
tools read only the exact name. Nothing refuses the CSV, hence a warning.

Fix: rename or move the key as the message says (a one-line fix renames a slip).

Bad:
    spec:
      MinKubeVersion: 1.16.0
Good:
    spec:
      minKubeVersion: 1.16.0
"""
# The field lists are data (checker/data/csv.yaml `csv_fields`, with sources).
from __future__ import annotations

import difflib

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar
from .. import define
from ..lib.csv import data, the_csv
from ..lib.fixes import fix_key

RULE = define("csv-unknown-field", "A key in the CSV's spec or metadata (or top level) that the ClusterServiceVersion type does not have",
              __doc__, category="csv")

WHERE = {"top": "the CSV's top level", "metadata": "metadata", "spec": "spec"}
PATH = {"top": "", "metadata": "metadata.", "spec": "spec."}
DROPPED = ("the API server and OLM keep only the fields the ClusterServiceVersion type defines, so the value is dropped "
           "without an error")


def _fields() -> dict:
    f = data()["csv_fields"]
    return {lvl: list(f[lvl]) for lvl in ("top", "metadata", "spec")}


def _annotation_like(key: str) -> bool:
    f = data()["csv_fields"]
    return key in f["annotations"] or "/" in key or key.startswith("olm.")


def _bundle_annotation(key: str) -> bool:
    return any(key.startswith(p) for p in data()["csv_fields"]["bundle_annotation_prefixes"])


def _judge(level: str, key: str, present: set) -> tuple:
    """(message, detail, replacement key or None) for an unknown ``key`` at ``level``."""
    fields = _fields()
    here = f"'{key}' is not a field of {WHERE[level]}"
    dropped = DROPPED[0].upper() + DROPPED[1:]
    lower = {f.lower(): f for f in fields[level]}
    same = lower.get(key.lower())
    if same is not None:
        return (f"{here}: the field is '{same}'",
                "Field names are case-sensitive for the API server, which drops this key without an error when the CSV "
                f"is applied, and for the catalog CI's checks and other tools, which then see no '{same}' (OLM's own Go "
                f"decoder happens to match names regardless of case). Rename the key to '{same}'.",
                same if same not in present else None)
    for other in ("spec", "metadata", "top"):
        if other == level:
            continue
        hit = {f.lower(): f for f in fields[other]}.get(key.lower())
        if hit is not None and hit not in ("labels", "annotations", "description"):
            where = "at the CSV's top level" if other == "top" else f"under {other}:"
            return (f"{here}: '{hit}' belongs {where} ({PATH[other]}{hit})", f"{dropped}. Move it there.", None)
    if key.lower() in ("maxkubeversion", "maxopenshiftversion", "olm.maxopenshiftversion"):
        return (f"{here}: OLM has no upper Kubernetes bound in the CSV spec",
                f"{dropped}. To stop cluster upgrades past an OpenShift release, declare the olm.maxOpenShiftVersion "
                "property (metadata/properties.yaml); to limit the catalogs, set com.redhat.openshift.versions in "
                "metadata/annotations.yaml.", None)
    if _bundle_annotation(key):
        return (f"{here}: it is a bundle annotation (metadata/annotations.yaml)",
                "Bundle annotations are read from metadata/annotations.yaml (and the bundle image's labels), never from "
                f"the CSV, and {DROPPED}. Set it in metadata/annotations.yaml.", None)
    if level == "spec" and key in ("skipRange", "olm.skipRange"):
        return (f"{here}: write it as the annotation olm.skipRange",
                "Here the value is dropped without an error, so OLM offers no upgrade from the versions in the range. "
                "Move it to metadata.annotations as olm.skipRange.", None)
    if _annotation_like(key) or (level == "metadata" and key in data()["csv_fields"]["annotations"]):
        return (f"{here}: it is an annotation (metadata.annotations)",
                "Here the value is dropped without an error (the API server and OLM keep only the CSV type's fields), "
                "so the console and OLM never see it. Move it under metadata.annotations.", None)
    close = difflib.get_close_matches(key, fields[level], n=1, cutoff=0.8)
    if close:
        ratio = difflib.SequenceMatcher(None, key, close[0]).ratio()
        return (f"{here}; did you mean '{close[0]}'?", f"{dropped}. Rename the key to '{close[0]}'.",
                close[0] if ratio >= 0.88 and close[0] not in present else None)
    known = ", ".join(fields[level])
    return (here, f"{dropped}. Remove it, or use one of the fields: {known}.", None)


@RULE.check
def csv_unknown_field(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    root = csv.root
    levels: list = [("top", root)]
    md = root.get("metadata")
    if isinstance(md, Mapping):
        levels.append(("metadata", md))
    sp = root.get("spec")
    if isinstance(sp, Mapping):
        levels.append(("spec", sp))
    fields = _fields()
    for level, m in levels:
        known = set(fields[level])
        present = {k.value for k, _v in m.items() if isinstance(k, Scalar)}
        for k, _v in m.items():
            if not isinstance(k, Scalar) or k.value in known:
                continue
            key = k.value if isinstance(k.value, str) else (k.raw or str(k.value))
            msg, why, new = _judge(level, key, present)
            fix = fix_key(sf, k, new, f"rename to {new}") if new and isinstance(k.value, str) else None
            yield RULE.at(sf, k, msg, fix=fix, detail=why)
