"""
What: each `features.operators.openshift.io/<feature>` annotation is one of the known
features (disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws,
token-auth-azure, token-auth-gcp, cnf, cni, csi) with the string value `"true"` or
`"false"`. A value other than those is a warning (an error in the `certified` profile);
a misspelt key is a warning (info when it resembles no feature); an unquoted YAML boolean
is an error. In a bundle published only to releases below 4.10 the annotations are info:
the CSV documentation says they are supported from OpenShift 4.10, and the consoles
before it do not read them. (`feature-annotations-required` reports the keys
certification requires.)

Why: the console's OperatorHub shows these as the operator's "Infrastructure features"
and filters by them; it treats every value but the exact string "false" as supported, so
"False" or "no" shows the feature as supported. That is a display matter (nothing refuses
the bundle), hence a warning. Red Hat certification (preflight's RequiredAnnotations
check) accepts only "true" and "false". An unquoted `true` is a YAML boolean, and
Kubernetes annotations must be strings: the CSV cannot be decoded (the API server and
operator-sdk's bundle validation refuse it). A misspelt key is silently ignored. The
legacy `operators.openshift.io/infrastructure-features` list is checked with the
spellings the console maps (`Disconnected`, `Proxy`, `proxy-aware`, `FIPS`, `fips`,
`tls`, ...: openshift/console's infrastructureFeatureMap in operator-hub-utils.ts), with
the console's letter case (`proxy` is not mapped: a warning; info when another item of the
same list already shows that feature, e.g. `["proxy", "proxy-aware"]`).

Fix: quote the value ("true"/"false") and use the documented key.

Bad:
    features.operators.openshift.io/disconnected: true
    features.operators.openshift.io/fips: "true"
Good:
    features.operators.openshift.io/disconnected: "true"
    features.operators.openshift.io/fips-compliant: "true"
"""
from __future__ import annotations

import difflib
import json

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from ...versions import clip as vclip
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.csv_annotations import API_BUNDLE_LOADER, K8S_ANNOTATIONS, PREFLIGHT_ANNOTATIONS
from ..lib.fixes import dq, fix_key, fix_value
from ..lib.json_values import json_array_items
from ..lib.sources import pos_in
from ..lib.text import clip, shown, text

_TRUTHY = {"true": "true", "yes": "true", "y": "true", "on": "true", "1": "true",
           "false": "false", "no": "false", "n": "false", "off": "false", "0": "false"}


RULE = define("feature-annotations",
              "features.operators.openshift.io/* annotation with a value other than \"true\"/\"false\", or an unknown key", __doc__,
              category="csv", supersedes=("manifest-invalid",), refused_by=[
          refusal("api-server", "annotations are a map of strings: a YAML boolean such as an unquoted true cannot be decoded "
                  "into the CSV (the API server, and operator-sdk's bundle loader in the catalog CI, reject it)", K8S_ANNOTATIONS),
          refusal("catalog-ci", "operator-framework/api's bundle loader decodes the CSV into its typed form and fails on a "
                  "non-string annotation value, so operator-sdk bundle validate fails the community catalog's pull request",
                  API_BUNDLE_LOADER),
          refusal("certification", "preflight's RequiredAnnotations check (enforced) fails a bundle whose feature annotations "
                  "hold anything but the strings \"true\" or \"false\" (error in the certified profile)", PREFLIGHT_ANNOTATIONS),
      ])


@RULE.check
def feature_annotations(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    ann = csv.annotations()
    fa = data()["feature_annotations"]
    prefix = fa["prefix"]
    required = list(fa["required_certified"])
    names = required + list(fa["optional"])
    for k, v in (ann.items() if ann is not None else ()):
        ks = text(k)
        if ks is None or not ks.lower().startswith(prefix.lower()):
            continue
        name = ks[len(prefix):]
        if ks.startswith(prefix) and name in names:
            yield from _feature_value(sf, ks, v)
            continue
        g = {n.lower(): n for n in names}.get(name.lower())
        if g is None:
            close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
            g = close[0] if close else None
        if g is None and name.lower().replace("-", "").replace("_", "") in ("fips", "fipsmode", "fipscompliance"):
            g = "fips-compliant"
        hint = f" Did you mean '{prefix}{g}'?" if g else ""
        # a misspelling of a feature: the author's intent is lost (warning; in certified the
        # intended key then counts as missing); a key like no feature at all: info
        yield RULE.at(sf, k, f"'{clip(ks, 70)}' is not a known infrastructure feature annotation.",
                      detail="The console and the catalog ignore it, so the operator is not listed under that feature. The "
                      f"features are: {', '.join(names)}.{hint}",
                      kind="unknown-key" if g else "unlike-any",
                      fix=fix_key(sf, k, prefix + g, f"rename to {prefix}{g}") if g else None)
    yield from _legacy_list_case(sf, ann.get(data()["infrastructure_features"]["key"]) if ann is not None else None)
    # the CSV documentation (seed 004): "These annotations are supported in OpenShift Container
    # Platform 4.10 and later": a bundle published only below 4.10 shows them nowhere
    rels = bundle.versions.ocp_versions if bundle.versions is not None else []
    first = next((k for k, _v in (ann.items() if ann is not None else ()) if (text(k) or "").startswith(prefix)), None)
    if first is not None and rels and all(_ocp_key(r) < (4, 10) for r in rels):
        yield RULE.at(sf, first, f"the {prefix}* annotations have no effect on OpenShift {rels[0]}{'-' + rels[-1] if len(rels) > 1 else ''}.", kind="below-4-10",
                      detail="The CSV documentation says these annotations are supported in OpenShift 4.10 and later; the consoles of "
                      "the releases this bundle is published to do not read them. Keep them for later releases, or use the legacy "
                      "operators.openshift.io/infrastructure-features list those consoles read.")


def _ocp_key(r: str) -> tuple:
    try:
        a, b = str(r).split(".")[:2]
        return int(a), int(b)
    except ValueError:
        return (99, 0)


def _legacy_list_case(sf, node):
    """Items of the legacy infrastructure-features list the console does not map because of
    their letter case (it matches its infrastructureFeatureMap case-sensitively: 'Proxy' and
    'proxy-aware' show "Proxy-aware", 'proxy' shows nothing). Spellings unknown in any case,
    and a list that is not JSON, are reported by the list check of the version rules."""
    if not (isinstance(node, Scalar) and isinstance(node.value, str)):
        return
    inf = data()["infrastructure_features"]
    cmap = inf["console_map"]
    try:
        doc = json.loads(node.value)
    except ValueError:
        return
    if not isinstance(doc, list):
        return
    by_lower = {}
    for k in cmap:
        by_lower.setdefault(k.lower(), k)
    shown = {cmap[i] for i in doc if isinstance(i, str) and i in cmap}  # what the console shows from this list
    for off, item in json_array_items(node.value):
        if not isinstance(item, str) or item in cmap or item.strip().lower() not in by_lower:
            continue
        want = by_lower[item.strip().lower()]
        ln, col = pos_in(sf, node, off)
        if cmap[want] in shown:  # another item of the list already shows the feature: nothing is lost
            yield RULE.at(sf, None,
                          f"'{clip(item, 40)}' in {inf['key']} is not a spelling the console maps (letter case).",
                          detail=f"The console ignores it, but another item of the list already shows the operator as "
                          f"'{cmap[want]}' (info). Remove it, or write '{want}'.", line=ln, column=col, kind="legacy-shown")
            continue
        yield RULE.at(sf, None,
                      f"'{clip(item, 40)}' in {inf['key']} is not a spelling the console maps (letter case).",
                      detail="The console matches the list's items case-sensitively, so it does not show the operator as "
                      f"'{cmap[want]}'. Write '{want}'.", line=ln, column=col, kind="legacy")


def _feature_value(sf, key, v):
    if isinstance(v, Scalar) and isinstance(v.value, str) and v.value in ("true", "false"):
        return
    if isinstance(v, Scalar) and isinstance(v.value, bool):
        want = "true" if v.value else "false"
        yield RULE.at(sf, v, f"{key} is the YAML boolean {clip(v.raw, 20)}, not a string.",
                      detail=f"Annotations are strings: the API server refuses the CSV. Quote it: \"{want}\".",
                      fix=fix_value(sf, v, dq(want), "quote the value"), kind="schema")
        return
    raw = v.value if isinstance(v, Scalar) else None
    want = _TRUTHY.get(str(raw).strip().strip("\"'\u201c\u201d\u2018\u2019").strip().lower()) if raw is not None else None
    yield RULE.at(sf, v, f"{key} is '{shown(v, 40)}', not \"true\" or \"false\".",
                  detail="The console shows every value but the exact string \"false\" as supported, and Red Hat certification "
                  "accepts only \"true\" and \"false\"." + (f" Write \"{want}\"." if want else " Write \"true\" or \"false\"."),
                  fix=fix_value(sf, v, dq(want), f"write \"{want}\"") if want and isinstance(v, Scalar) else None)


@RULE.check
def infrastructure_features_list(bundle: Bundle, ctx: Context):
    """operators.openshift.io/infrastructure-features must be a JSON list of known features
    (kind `legacy`: the older form of the same annotations; its deprecation is the
    infrastructure-features-deprecated rule's)."""
    csv = bundle.csv
    if csv is None:
        return
    node = csv.annotation("operators.openshift.io/infrastructure-features")
    if node is None or not isinstance(node.value, str):
        return
    known = [v.lower() for v in data()["infrastructure_features"]["values"]]
    try:
        value = json.loads(node.value)
    except ValueError as e:
        yield RULE.at(csv.file, node,
                      f"operators.openshift.io/infrastructure-features is not valid JSON ({getattr(e, 'msg', str(e))} at character {getattr(e, 'pos', 0) + 1})", kind="legacy",
                      detail="The console reads no feature from it. Write a JSON list of strings, e.g. "
                      f"'[\"disconnected\", \"proxy-aware\"]' (known: {', '.join(known)}).")
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        yield RULE.at(csv.file, node,
                      "operators.openshift.io/infrastructure-features is not a JSON list of strings", kind="legacy",
                      detail="The console reads no feature from anything else. Write a JSON list of strings, e.g. '[\"disconnected\"]'.")
        return
    unknown = [v for v in value if v.strip().lower() not in known]
    if unknown:
        listed = ", ".join(f"'{vclip(u, 40)}'" for u in unknown)
        yield RULE.at(csv.file, node,
                      f"operators.openshift.io/infrastructure-features lists {listed}, "
                      "not a feature the console knows", kind="legacy",
                      detail=f"The console ignores it (it knows {', '.join(known)}). Fix the spelling or remove it.")
