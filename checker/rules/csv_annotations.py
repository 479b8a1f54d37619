"""ClusterServiceVersion annotations and labels the OLM and OpenShift documentation define:
alm-examples, letter case of olm.* keys, olm.properties, infrastructure feature annotations
(and the disconnected claim), multi-arch labels, suggested namespace, internal objects,
initialization resource, valid subscription.

Sources: OpenShift docs "Operator SDK > Defining cluster service versions" (Operator
metadata annotations, multiple architectures, restricted networks), operator-framework/api
validators (csv.go validateExamplesAnnotations, annotations.go), Red Hat's certification
requirements. Facts live in checker/data/csv.yaml.
"""
from __future__ import annotations

import difflib
import json
import re
from typing import Optional

import yaml

from ..model import Bundle
from ..nodes import Mapping, Scalar, Sequence
from . import finding, refusal, rule
from ..upstream.docker_reference import image_reference_problem, split_docker_domain
from ..upstream.k8s_names import DNS1123_LABEL_RULE, dns_label_problem
from .lib.csv import csv_annotation, data, examples_annotation, owned_apiservices, owned_crds, the_csv
from .lib.fixes import dq, fix_key, fix_value
from .lib.json_values import json_array_items, json_type, load_json
from .lib.sources import pos_in, scalar_positions
from .lib.text import clip, is_blank, shown, text

ALM = "alm-examples"

# Where the refusals are written (refused_by).
API_CSV_VALIDATOR = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/csv.go"
API_ANNOTATION_NAMES = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/annotations.go"
COMMUNITY_CI_SDK = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/"
                    "community/bundle.py")
K8S_ANNOTATIONS = "https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go"


def _gv(api_version: str) -> tuple:
    if "/" in api_version:
        g, v = api_version.split("/", 1)
        return g, v
    return "", api_version


@rule("alm-examples", "error", "alm-examples is not a JSON array of examples of the APIs the CSV owns", category="csv", mixed=True,
      refused_by=[
          refusal("catalog-ci", "operator-sdk bundle validate (run by the community catalog's static checks, which fail on its "
                  "errors) reports invalid example JSON, examples that are not a list of objects with apiVersion and kind, and an "
                  "example of an API the CSV does not own as errors (validateExamplesAnnotations)", API_CSV_VALIDATOR),
          refusal("catalog-ci", "the community catalog's CI runs operator-sdk bundle validate and fails the pull request on "
                  "its errors", COMMUNITY_CI_SDK),
      ])
def alm_examples(bundle: Bundle, ctx):
    """
    What: the CSV annotation `alm-examples` (or `olm.examples`) is a string holding a JSON
    array of example objects, each with `apiVersion` and `kind` of an API the CSV owns
    (an owned CRD or API service). Invalid JSON is reported at the position of the error
    inside the JSON, on the file's real line. Owned APIs without an example are one warning
    per bundle, naming them (CRDs listed in `operators.operatorframework.io/internal-objects`
    need none). An absent or empty annotation means "no examples".

    Why: the console pre-fills its "Create" forms from these examples; invalid JSON breaks the
    operator's page, and operator-framework/api's CSV validator reports it as an error, so
    `operator-sdk bundle validate` (run by the community catalog's CI) fails the bundle; the
    same validator fails an example of an API the operator does not own (it cannot be
    created) and only warns about owned APIs without an example.

    Fix: correct the JSON at the position shown (a missing comma, a trailing comma, single
    quotes); make each example's apiVersion/kind match an owned CRD.

    Bad:
        alm-examples: |-
          [{"apiVersion": "example.com/v1", "kind": "Widget",}]
    Good:
        alm-examples: |-
          [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "example"}}]
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    ann = csv.annotations()
    key, node = examples_annotation(ann)
    AE = "alm-examples"
    examples = []  # (group, version, kind, line, col)
    if not is_blank(node):
        if not (isinstance(node, Scalar) and isinstance(node.value, str)):
            yield finding(AE, sf, node, f"{key} is {node.type_name()}, not a string holding a JSON array.",
                          detail=f"Annotations are strings: the API server refuses the CSV. Write it as a block: '{key}: |-' "
                          "followed by the JSON array.")
            return
        doc, err = load_json(sf, node)
        if err is not None:
            yield finding(AE, sf, None, f"{key} is not valid JSON: {err.reason}.",
                          detail=err.at() + "The console cannot show the examples and operator-sdk's validator (run by catalog CI) fails "
                          "the bundle. Fix the JSON at this position.", line=err.line, column=err.column)
            return
        if isinstance(doc, dict):
            yield finding(AE, sf, node, f"{key} holds a single JSON object, not a JSON array of examples.",
                          detail="It must be a JSON array of examples. Wrap it in [ ].")
            items = [(node.value.index("{"), doc)]
        elif not isinstance(doc, list):
            yield finding(AE, sf, node, f"{key} holds {json_type(doc)}, not a JSON array of example objects.",
                          detail="Write a JSON array of example objects, each with apiVersion, kind and metadata.")
            return
        else:
            items = json_array_items(node.value)
        mapped: list = []  # the scalar's character positions, mapped when a finding needs them

        def at(off: int, node=node) -> tuple:
            if not mapped:
                mapped.append(scalar_positions(sf, node) or [])
            return pos_in(sf, node, off, mapped[0])

        for off, item in items:
            if not isinstance(item, dict):
                ln, col = at(off)
                yield finding(AE, sf, None, f"an example in {key} is {json_type(item)}, not a JSON object.",
                              detail="Each example must be a JSON object with apiVersion, kind and metadata.", line=ln, column=col)
                continue
            av, kind = item.get("apiVersion"), item.get("kind")
            if not isinstance(av, str) or not av or not isinstance(kind, str) or not kind:
                ln, col = at(off)
                yield finding(AE, sf, None, f"an example in {key} has no apiVersion or kind.",
                              detail="The console cannot tell which API it is for. Add \"apiVersion\": \"<group>/<version>\" and "
                              "\"kind\".", line=ln, column=col)
                continue
            g, v = _gv(av)
            examples.append((g, v, kind, off))
    provided = {}
    for name, g, v, k, e in owned_crds(csv):
        if k and v:
            provided[(g, v, k)] = ("crd", name, e)
    for g, v, k, e in owned_apiservices(csv):
        if k and v:
            provided[(g, v, k)] = ("apiservice", f"{k}.{g}", e)
    if not provided and not examples:
        return
    have = set()
    for g, v, k, off in examples:
        have.add((g, v, k))
        if (g, v, k) not in provided:
            ln, col = at(off)
            av = f"{g}/{v}" if g else v
            same_kind = [f"{pg}/{pv}" if pg else pv for (pg, pv, pk) in provided if pk == k]
            hint = (f" The CSV owns {k} as {', '.join(sorted(same_kind))}: use that apiVersion." if same_kind
                    else " Remove it, or own the API (spec.customresourcedefinitions.owned).")
            yield finding(AE, sf, None, f"the example of {clip(k, 40)} ({clip(av, 35)}) is for an API this CSV does not own.",
                          detail=(f"The example is {k} ({av}). " if clip(k, 40) != k or clip(av, 35) != av else "") + "The console offers it on the operator's page but it belongs to no API the operator provides, and "
                          f"operator-sdk's validator fails it.{hint}", line=ln, column=col)
    internal = _internal_names(ann)
    lacking = [(g, v, k, e) for (g, v, k), (what, name, e) in provided.items() if (g, v, k) not in have and name not in internal]
    if lacking:
        # one finding per bundle (measured: one per API made 9,000 warnings on the catalog)
        g, v, k, e = lacking[0]
        at = ann.key_node(key) if ann is not None and key in ann else (
            e.get("kind") if isinstance(e, Mapping) and e.get("kind") is not None else e)
        each = [f"{k} ({g}/{v})" if g else f"{k} ({v})" for g, v, k, _e in lacking]
        names, cut = _first_names(each, 60)
        yield finding(AE, sf, at, f"{len(lacking)} owned API{'s have' if len(lacking) > 1 else ' has'} no example in {ALM}: {names}.",
                      detail=(f"Without an example: {', '.join(each)}. " if cut else "")
                      + "The console's Create form for them starts empty (operator-sdk warns too). Add an example object for "
                      "each, or list CRDs users are not meant to create in operators.operatorframework.io/internal-objects.",
                      severity="warning")


def _first_names(names: list, room: int) -> tuple:
    """(the first names that fit in ``room`` characters and "and N more", whether some were left
    out): a list of names in a one-sentence message; the detail lists them all."""
    shown_names: list = []
    for i, n in enumerate(names):
        if shown_names and len(", ".join(shown_names + [n])) > room:
            return f"{', '.join(shown_names)} and {len(names) - i} more", True
        shown_names.append(clip(n, room))
    return ", ".join(shown_names), shown_names != names


def _internal_names(ann: Optional[Mapping]) -> set:
    node = ann.get(INTERNAL) if ann is not None else None
    if isinstance(node, Scalar) and isinstance(node.value, str):
        try:
            v = json.loads(node.value)
        except ValueError:
            return set()
        if isinstance(v, list):
            return {x for x in v if isinstance(x, str)}
    return set()


@rule("olm-annotation-case", "error", "An olm.* (or other OLM) annotation key has the wrong letter case", category="csv", mixed=True,
      refused_by=[
          refusal("catalog-ci", "operator-framework/api's ValidateAnnotationNames (part of the CSV validator operator-sdk bundle "
                  "validate runs in the community catalog's CI) fails olm.skipRange, olm.operatorGroup, olm.operatorNamespace, "
                  "olm.targetNamespaces and olm.providedAPIs written in another letter case", API_ANNOTATION_NAMES),
      ])
def olm_annotation_case(bundle: Bundle, ctx):
    """
    What: annotation keys OLM and the console read are case-sensitive: `olm.skipRange`,
    `olm.substitutesFor`, `olm.properties`, `olm.operatorGroup`, `olm.targetNamespaces`,
    `alm-examples`, `operatorframework.io/suggested-namespace`, ... A key that matches one of
    them except for letter case is an error for the keys operator-framework/api checks
    (olm.skipRange, olm.operatorGroup, olm.operatorNamespace, olm.targetNamespaces,
    olm.providedAPIs), a warning for the others.

    Why: a differently-cased key is a different key: OLM silently ignores `olm.skiprange`,
    so the skip range (and the upgrade path it meant to open) does not exist.
    operator-framework/api's annotation-name check (run by `operator-sdk bundle validate` in
    the community catalog's CI) fails the bundle for its five keys; nothing refuses the
    others, whose miscased form OLM or the console simply ignore.

    Fix: write the key with the exact case.

    Bad:
        olm.skiprange: '>=1.0.0 <1.2.0'
    Good:
        olm.skipRange: '>=1.0.0 <1.2.0'
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    if ann is None:
        return
    known = {k.lower(): k for k in data()["case_sensitive_annotations"]}
    refused = set(data()["case_sensitive_refused"])
    for k, _v in ann.items():
        ks = text(k)
        if ks is None:
            continue
        want = known.get(ks.lower())
        if want is not None and ks != want:
            yield finding("olm-annotation-case", csv.file, k, f"the annotation key '{ks}' should be '{want}'.",
                          detail=f"Keys are case-sensitive, so OLM and the console ignore '{ks}' and what it sets has no effect"
                          + (" (operator-sdk bundle validate, run by the catalog's CI, fails it)" if want in refused else "")
                          + f". Rename it to '{want}'.",
                          severity=None if want in refused else "warning",
                          fix=fix_key(csv.file, k, want, f"rename to {want}"))


@rule("olm-properties-annotation", "warning", "olm.properties is set on the CSV: prefer metadata/properties.yaml", category="csv")
def olm_properties_annotation(bundle: Bundle, ctx):
    """
    What: the CSV carries the `olm.properties` annotation.

    Why: bundle properties (such as `olm.maxOpenShiftVersion`) belong in
    `metadata/properties.yaml`, which opm reads when it builds the catalog; OLM itself writes
    `olm.properties` onto installed CSVs from the catalog's properties, and operator-sdk's
    validator warns that the annotation should move. It still works (OLM reads it), so this
    is a warning. An annotation holding only `olm.maxOpenShiftVersion` is not reported: the
    OpenShift documentation itself tells authors to declare it that way.

    Fix: move the properties to metadata/properties.yaml and remove the annotation.

    Bad:
        metadata:
          annotations:
            olm.properties: '[{"type": "olm.maxOpenShiftVersion", "value": "4.16"}]'
    Good (metadata/properties.yaml):
        properties:
          - type: olm.maxOpenShiftVersion
            value: "4.16"
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    if ann is None or "olm.properties" not in ann:
        return
    v = ann.get("olm.properties")
    if isinstance(v, Scalar) and isinstance(v.value, str):
        try:
            props = json.loads(v.value)
        except ValueError:
            props = None
        if isinstance(props, list) and props and all(isinstance(p, dict) and p.get("type") == "olm.maxOpenShiftVersion" for p in props):
            return  # the OpenShift documentation's own way to set maxOpenShiftVersion (measured: most uses)
    k = ann.key_node("olm.properties")
    yield finding("olm-properties-annotation", csv.file, k,
                  "the CSV sets olm.properties; bundle properties belong in metadata/properties.yaml.",
                  detail="opm reads them from there into the catalog, and OLM writes this annotation itself on install. Move "
                  "the entries to metadata/properties.yaml ('properties: [{type: ..., value: ...}]') and remove the annotation.")


_TRUTHY = {"true": "true", "yes": "true", "y": "true", "on": "true", "1": "true",
           "false": "false", "no": "false", "n": "false", "off": "false", "0": "false"}


PREFLIGHT_ANNOTATIONS = ("https://github.com/redhat-openshift-ecosystem/openshift-preflight/blob/main/internal/policy/"
                         "operator/required_annotations.go")
API_BUNDLE_LOADER = "https://github.com/operator-framework/api/blob/master/pkg/manifests/bundleloader.go"


def _not_a_string(shape: str) -> list:
    """What refuses an annotation of the console's whose value is not a string (the only error
    of the rules reading them): the API server and operator-framework/api's bundle loader."""
    return [
        refusal("api-server", f"annotations are a map of strings: a YAML {shape} written as the value cannot be decoded "
                "into the CSV (the only error of this rule)", K8S_ANNOTATIONS),
        refusal("catalog-ci", "operator-framework/api's bundle loader decodes the CSV into its typed form and fails on a "
                "non-string annotation value, so operator-sdk bundle validate fails the community catalog's pull request",
                API_BUNDLE_LOADER),
    ]


@rule("feature-annotations", "warning", "features.operators.openshift.io/* annotation with a value other than \"true\"/\"false\", or an unknown key",
      category="csv", mixed=True,
      supersedes=("manifest-invalid",),  # an unquoted true: one finding, with the right fix
      refused_by=[
          refusal("api-server", "annotations are a map of strings: a YAML boolean such as an unquoted true cannot be decoded "
                  "into the CSV (the API server, and operator-sdk's bundle loader in the catalog CI, reject it)", K8S_ANNOTATIONS),
          refusal("catalog-ci", "operator-framework/api's bundle loader decodes the CSV into its typed form and fails on a "
                  "non-string annotation value, so operator-sdk bundle validate fails the community catalog's pull request",
                  API_BUNDLE_LOADER),
          refusal("certification", "preflight's RequiredAnnotations check (enforced) fails a bundle whose feature annotations "
                  "hold anything but the strings \"true\" or \"false\" (error in the certified profile)", PREFLIGHT_ANNOTATIONS),
      ])
def feature_annotations(bundle: Bundle, ctx):
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
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    ann = csv.annotations()
    fa = data()["feature_annotations"]
    prefix = fa["prefix"]
    required = list(fa["required_certified"])
    names = required + list(fa["optional"])
    FA = "feature-annotations"
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
        yield finding(FA, sf, k, f"'{clip(ks, 70)}' is not a known infrastructure feature annotation.",
                      detail="The console and the catalog ignore it, so the operator is not listed under that feature. The "
                      f"features are: {', '.join(names)}.{hint}",
                      severity=None if g else "info", kind="unknown-key",
                      fix=fix_key(sf, k, prefix + g, f"rename to {prefix}{g}") if g else None)
    yield from _legacy_list_case(sf, ann.get(data()["infrastructure_features"]["key"]) if ann is not None else None)
    # the CSV documentation (seed 004): "These annotations are supported in OpenShift Container
    # Platform 4.10 and later": a bundle published only below 4.10 shows them nowhere
    rels = bundle.versions.ocp_versions if bundle.versions is not None else []
    first = next((k for k, _v in (ann.items() if ann is not None else ()) if (text(k) or "").startswith(prefix)), None)
    if first is not None and rels and all(_ocp_key(r) < (4, 10) for r in rels):
        yield finding(FA, sf, first, f"the {prefix}* annotations have no effect on OpenShift {rels[0]}{'-' + rels[-1] if len(rels) > 1 else ''}.", severity="info",
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
            yield finding("feature-annotations", sf, None,
                          f"'{clip(item, 40)}' in {inf['key']} is not a spelling the console maps (letter case).",
                          detail=f"The console ignores it, but another item of the list already shows the operator as "
                          f"'{cmap[want]}' (info). Remove it, or write '{want}'.", line=ln, column=col, severity="info", kind="legacy")
            continue
        yield finding("feature-annotations", sf, None,
                      f"'{clip(item, 40)}' in {inf['key']} is not a spelling the console maps (letter case).",
                      detail="The console matches the list's items case-sensitively, so it does not show the operator as "
                      f"'{cmap[want]}'. Write '{want}'.", line=ln, column=col, kind="legacy")


@rule("feature-annotations-required", "info", "Red Hat certification: a required features.operators.openshift.io/* annotation is missing",
      category="csv", refused_by=[
          refusal("certification", "preflight's RequiredAnnotations check (enforced) fails a bundle without all of "
                  "disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws, token-auth-azure and "
                  "token-auth-gcp", PREFLIGHT_ANNOTATIONS),
      ])
def feature_annotations_required(bundle: Bundle, ctx):
    """
    What: in the `certified` profile (only there), the CSV sets every infrastructure feature
    annotation Red Hat certification requires: `features.operators.openshift.io/` followed
    by disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws,
    token-auth-azure and token-auth-gcp ("true" or "false"; cnf, cni and csi are optional).
    Other profiles do not report it (community catalogs do not require the annotations).

    Why: preflight's RequiredAnnotations check, which certification enforces, fails a
    bundle without them.

    Fix: add each missing key, "false" where the operator does not support the feature.

    Bad:
        features.operators.openshift.io/disconnected: "true"
        (the other six keys missing)
    Good:
        features.operators.openshift.io/disconnected: "true"
        features.operators.openshift.io/fips-compliant: "false"
        features.operators.openshift.io/proxy-aware: "false"
        features.operators.openshift.io/tls-profiles: "false"
        features.operators.openshift.io/token-auth-aws: "false"
        features.operators.openshift.io/token-auth-azure: "false"
        features.operators.openshift.io/token-auth-gcp: "false"
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    fa = data()["feature_annotations"]
    prefix = fa["prefix"]
    present = {text(k) for k, _v in (ann.items() if ann is not None else ())}
    miss = [n for n in fa["required_certified"] if prefix + n not in present]
    if miss:
        md = csv.metadata
        at = ann if ann is not None else (md if md is not None else csv.root)
        lines = ", ".join(f'{prefix}{n}: "true|false"' for n in miss)
        names, _cut = _first_names(miss, 60)
        yield finding("feature-annotations-required", csv.file, at,
                      f"{len(miss)} infrastructure feature annotation{'s' if len(miss) > 1 else ''} certification requires "
                      f"{'is' if len(miss) == 1 else 'are'} missing: {names}.",
                      detail="Red Hat certification requires every infrastructure feature annotation to be set. Add under "
                      f"metadata.annotations: {lines} (\"false\" where the operator does not support it).")


def _feature_value(sf, key, v):
    FA = "feature-annotations"
    if isinstance(v, Scalar) and isinstance(v.value, str) and v.value in ("true", "false"):
        return
    if isinstance(v, Scalar) and isinstance(v.value, bool):
        want = "true" if v.value else "false"
        yield finding(FA, sf, v, f"{key} is the YAML boolean {clip(v.raw, 20)}, not a string.",
                      detail=f"Annotations are strings: the API server refuses the CSV. Quote it: \"{want}\".",
                      fix=fix_value(sf, v, dq(want), "quote the value"), kind="schema")
        return
    raw = v.value if isinstance(v, Scalar) else None
    want = _TRUTHY.get(str(raw).strip().strip("\"'\u201c\u201d\u2018\u2019").strip().lower()) if raw is not None else None
    yield finding(FA, sf, v, f"{key} is '{shown(v, 40)}', not \"true\" or \"false\".",
                  detail="The console shows every value but the exact string \"false\" as supported, and Red Hat certification "
                  "accepts only \"true\" and \"false\"." + (f" Write \"{want}\"." if want else " Write \"true\" or \"false\"."),
                  fix=fix_value(sf, v, dq(want), f"write \"{want}\"") if want and isinstance(v, Scalar) else None)


MAX_IMAGE_FINDINGS = 10  # per bundle; the rest are summed up in one finding (measured: up to 100+ per CSV)
_DIGEST = re.compile(r"@[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$")

# Sources of the disconnected facts (also named in refused_by below).
OPM_RELATED_IMAGES = "https://github.com/operator-framework/operator-registry/blob/master/alpha/action/render.go"
OPM_OPERATOR_IMAGES = "https://github.com/operator-framework/operator-registry/blob/master/pkg/registry/csv.go"
ISV_DIGEST_PINNING = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/ansible/roles/"
                      "operator-pipeline/templates/openshift/tasks/digest-pinning.yml")


def _claims_disconnected(ann) -> Optional[Scalar]:
    """The node that claims disconnected support, as the console reads it: the
    features.operators.openshift.io/disconnected annotation with any value but "false" (the
    console shows every other value as supported), or "disconnected" in the legacy
    infrastructure-features list."""
    if ann is None:
        return None
    fa = data()["feature_annotations"]
    key = fa["prefix"] + "disconnected"
    v = ann.get(key)
    if isinstance(v, Scalar) and v.value is not None and v.value is not False:
        if not (isinstance(v.value, str) and v.value.strip() in ("false", "")):
            return v
    inf = ann.get(data()["infrastructure_features"]["key"])
    if isinstance(inf, Scalar) and isinstance(inf.value, str):
        try:
            lst = json.loads(inf.value)
        except ValueError:
            return None
        if isinstance(lst, list) and any(isinstance(x, str) and x.strip().lower() in ("disconnected", key) for x in lst):
            return inf
    return None


def _image_refs(csv):
    """(kind, what, node, where) for each image reference of the CSV: kind "container" (a
    deployment's container or init container image), "env" (a RELATED_IMAGE_* environment value
    of such a container; what starts with the variable's name), "related" (a spec.relatedImages
    entry). ``what`` names it for a one-sentence message, in full (the name is what tells two
    findings apart); ``where`` is a sentence for the detail with the deployment or container it
    is in ("" when ``what`` says it all)."""
    sp = csv.spec()
    if sp is None:
        return
    inst = sp.get("install")
    ispec = inst.get("spec") if isinstance(inst, Mapping) else None
    deps = ispec.get("deployments") if isinstance(ispec, Mapping) else None
    for d in deps if isinstance(deps, Sequence) else ():
        if not isinstance(d, Mapping):
            continue
        dn = d.str("name") or "?"
        ds = d.get("spec")
        tpl = ds.get("template") if isinstance(ds, Mapping) else None
        ps = tpl.get("spec") if isinstance(tpl, Mapping) else None
        if not isinstance(ps, Mapping):
            continue
        for field in ("initContainers", "containers"):
            cs = ps.get(field)
            for c in cs if isinstance(cs, Sequence) else ():
                if not isinstance(c, Mapping):
                    continue
                cn = c.str("name") or "?"
                img = c.get("image")
                if isinstance(img, Scalar) and isinstance(img.value, str) and img.value.strip():
                    yield ("container", f"the image of container '{cn}'", img,
                           f"Container '{cn}' is in deployment '{dn}'. ")
                env = c.get("env")
                for e in env if isinstance(env, Sequence) else ():
                    if isinstance(e, Mapping):
                        en = e.str("name") or ""
                        ev = e.get("value")
                        if en.startswith("RELATED_IMAGE_") and isinstance(ev, Scalar) and isinstance(ev.value, str) and ev.value.strip():
                            yield "env", en, ev, f"{en} is set in container '{cn}'. "
    ri = sp.get("relatedImages")
    for r in ri if isinstance(ri, Sequence) else ():
        if isinstance(r, Mapping):
            img = r.get("image")
            if isinstance(img, Scalar) and isinstance(img.value, str) and img.value.strip():
                rn = r.str("name") or "?"
                yield ("related", f"relatedImages entry '{rn}'", img, "")


def _one_of(full: str, short: str) -> str:
    """``full`` when it fits a one-sentence message (120 characters), else ``short``: a value
    is said whole or not at all (the detail says it whole), never cut in half."""
    return full if len(full) <= 120 else short


def _repo_and_digest(ref: str) -> tuple:
    """(repository, digest or None) of a pull spec in the form mirroring tools compare."""
    full = _same_image(ref)
    if "@" in full:
        repo, digest = full.split("@", 1)
        last = repo.rsplit("/", 1)[-1]
        if ":" in last:  # repo:tag@digest
            repo = repo[: len(repo) - len(last)] + last.split(":", 1)[0]
        return repo, digest
    head, last = full.rsplit("/", 1)
    return f"{head}/{last.split(':', 1)[0]}", None


def _same_image(ref: str) -> str:
    """A reference in the form mirroring tools compare: Docker Hub's implicit domain and
    library/ path written out, ':latest' where neither tag nor digest is given (local helper:
    csv_common has no reference normalisation)."""
    ref = ref.strip()
    domain, remainder = split_docker_domain(ref)
    last = remainder.rsplit("/", 1)[-1]
    if "@" not in last and ":" not in last:
        remainder += ":latest"
    return f"{domain}/{remainder}"


@rule("disconnected-requirements", "warning",
      "Disconnected support is claimed, but a RELATED_IMAGE_* operand image is not in relatedImages, relatedImages is empty, or an image is referenced by tag",
      category="csv", mixed=True, refused_by=[
          refusal("certification", "the certified pipelines' digest-pinning task (operator-hosted-pipeline.yml, when "
                  "cert_project_required; enforce_pinning defaults to true) fails a bundle with an image it had to pin (a "
                  "tag), and a CSV whose relatedImages is missing or lists fewer images than the CSV references",
                  ISV_DIGEST_PINNING),
      ])
def disconnected_requirements(bundle: Bundle, ctx):
    """
    What: when the CSV claims disconnected support
    (`features.operators.openshift.io/disconnected` with any value but "false" — the console
    shows every other value as "Disconnected" — or `disconnected` in the deprecated
    `operators.openshift.io/infrastructure-features`):

    - a `RELATED_IMAGE_*` environment value (an operand image the operator starts) that a
      non-empty `spec.relatedImages` does not list, and that is not a deployment's container
      image either; when it pulls a tag of a repository that relatedImages lists only by
      digest, the finding gives that digest to pin the environment value to;
    - an empty `spec.relatedImages`, a deployment container image missing from a non-empty
      one, and every image referenced by tag rather than digest (in the containers, in
      `RELATED_IMAGE_*` values, in relatedImages).

    OLM's install succeeds in every case (it reads relatedImages for nothing); what breaks is
    the operand's image pull, later, on a disconnected cluster: **warnings**, except where the
    certified pipelines' digest-pinning task refuses the bundle (certified, marketplace): an
    image by tag (verify-pinning fails a reference it had to pin) and a missing
    spec.relatedImages (verify-related-images) are **errors** there.

    Why: opm builds a bundle's image list in the catalog from `spec.relatedImages` plus the
    install deployments' container and init container images (operator-registry
    `GetOperatorImages`); oc-mirror and `oc adm catalog mirror` copy exactly that list. A
    `RELATED_IMAGE_*` operand image missing from it is never mirrored, so on a disconnected
    cluster the operator starts but its operand pods cannot pull their image. The deployments'
    own images are mirrored even when relatedImages omits them. Red Hat's restricted-network
    guidance asks for digests: ImageDigestMirrorSet and ImageContentSourcePolicy redirect only
    pulls by digest; since OpenShift 4.13 an ImageTagMirrorSet can mirror tags too, so nothing
    refuses a tag in the community catalog. The certified pipelines' digest-pinning task
    (operator-hosted-pipeline.yml, when cert_project_required; tasks/digest-pinning.yml,
    enforce_pinning true by default) pins the references, fails the pull request when it had
    to, and fails a CSV whose relatedImages is missing or lists fewer images than the CSV
    references (a count: it does not check which images).

    Fix: list every image the operator runs or starts under spec.relatedImages, pinned by
    digest; or set the annotation to "false".

    Bad:
        features.operators.openshift.io/disconnected: "true"
        ...
        env:
          - name: RELATED_IMAGE_WIDGET
            value: quay.io/example/widget@sha256:9f0c...   # not in relatedImages
        relatedImages:
          - {name: operator, image: quay.io/example/operator@sha256:4b8e...f001}
    Good:
        relatedImages:
          - {name: operator, image: quay.io/example/operator@sha256:4b8e...f001}
          - {name: widget, image: quay.io/example/widget@sha256:9f0c...}
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    claim = _claims_disconnected(csv.annotations())
    if claim is None:
        return
    DR = "disconnected-requirements"
    sf = csv.file
    sp = csv.spec()
    ri = sp.get("relatedImages") if sp is not None else None
    refs = list(_image_refs(csv))
    listed = {_same_image(n.value) for k, _w, n, _d in refs if k == "related"}
    # repository -> the digests relatedImages pins it to (with the entry naming it)
    pinned: dict = {}
    for k, w, n, _d in refs:
        if k == "related":
            repo, digest = _repo_and_digest(n.value)
            if digest:
                pinned.setdefault(repo, []).append((digest, w))
    containers = {_same_image(n.value) for k, _w, n, _d in refs if k == "container"}
    reported = set()
    if not listed:
        operands = [d.split(" ")[0] for k, _w, _n, d in refs if k == "env"]  # the whole names
        if not (isinstance(ri, Sequence) and len(ri)) and operands:
            names = ", ".join(operands[:5]) + (", ..." if len(operands) > 5 else "")
            n = len(operands)
            yield finding(DR, sf, claim,
                          "the CSV claims disconnected support but spec.relatedImages is empty, so "
                          f"{n} operand image{' is' if n == 1 else 's are'} not mirrored.", kind="related-images-empty-operands",
                          detail="opm lists only relatedImages and the deployments' own images in the catalog (what mirroring "
                          f"tools copy), so the operand images ({names}) are not mirrored and a disconnected cluster cannot pull "
                          "them. List every image, pinned by digest, under spec.relatedImages, or set the annotation to \"false\".")
        elif not (isinstance(ri, Sequence) and len(ri)):
            yield finding(DR, sf, claim, "the CSV claims disconnected support but spec.relatedImages is empty.",
                          kind="related-images-empty",
                          detail="opm adds the deployments' images to the catalog itself, so mirroring works today, but the "
                          "documentation asks for the list (and any image the operator starts later must be in it). List the "
                          "images, pinned by digest, under spec.relatedImages.")
    else:
        for kind, what, img, where in refs:
            if kind != "env":
                continue
            same = _same_image(img.value)
            if same in listed or same in containers or (img.line, img.col) in reported:
                continue
            if image_reference_problem(img.value.strip()) is not None:
                continue  # not a pull spec (some operators pass versions or flags this way): nothing to mirror
            reported.add((img.line, img.col))
            ref = img.value.strip()
            repo, digest = _repo_and_digest(ref)
            if digest is None and repo in pinned:
                # the repository is listed by digest and the env var pulls a tag of it
                listed_digest, entry = pinned[repo][0]
                others = f" ({len(pinned[repo])} digests of it are listed; this is the first)" if len(pinned[repo]) > 1 else ""
                tag = _same_image(ref)[len(repo) + 1:]
                yield finding(DR, sf, img,
                              _one_of(f"{what} pulls '{ref}' by tag; relatedImages lists that repository only by digest.",
                                      f"{what} uses tag '{tag}' of an image relatedImages pins by digest."),
                              kind="tag-of-listed-digest",
                              detail=f"{where}It is '{ref}'; {entry} is {repo}@{listed_digest}{others}. The CSV claims "
                              f"disconnected support (line {claim.line}), and mirroring tools copy only the listed digest: "
                              f"the tag '{tag}' is never mirrored, and ImageDigestMirrorSet redirects only pulls by digest, so "
                              "the operand cannot start on a disconnected cluster. Pin the env var to that digest: "
                              f"{repo}@{listed_digest} (if the tag names another image, add that image to relatedImages by "
                              "digest instead).")
                continue
            yield finding(DR, sf, img,
                          _one_of(f"{what} is '{ref}', not listed in spec.relatedImages.",
                                  f"the image of {what} is not listed in spec.relatedImages."),
                          kind="operand-not-listed",
                          detail=f"{where}It is an operand image, '{ref}', and the CSV claims disconnected support (line "
                          f"{claim.line}); opm lists only relatedImages and the deployments' container images in the catalog, "
                          "and mirroring tools (oc-mirror, oc adm catalog mirror) copy only those, so this image is never "
                          "mirrored and the operand cannot start on a disconnected cluster. Add it to spec.relatedImages "
                          f"(name: ..., image: {ref}), pinned by digest.")
        missing = [(what, img, where) for kind, what, img, where in refs
                   if kind == "container" and _same_image(img.value) not in listed]
        if missing:
            what, img, where = missing[0]
            ref = img.value.strip()
            more = f" and {len(missing) - 1} more container image{'s' if len(missing) > 2 else ''}" if len(missing) > 1 else ""
            yield finding(DR, sf, img, f"{what}{more} {'are' if more else 'is'} not listed in spec.relatedImages.",
                          kind="container-not-listed",
                          detail=where + f"The image is {ref}. "
                          + "opm adds the deployments' images to the catalog itself, so they are mirrored, but the "
                          "restricted-network guidance (and Red Hat's certification pipeline) asks relatedImages to list every "
                          "image. Add them.")
    by_tag = []
    for _kind, what, img, where in refs:
        ref = img.value.strip()
        if _DIGEST.search(ref) or (img.line, img.col) in reported:
            continue
        reported.add((img.line, img.col))
        by_tag.append((what, img, ref, where))
    for what, img, ref, where in by_tag[:MAX_IMAGE_FINDINGS]:
        msg = _one_of(f"{what} is '{ref}', referenced by tag, not digest.",
                      f"{what} references its image by tag, not digest.")
        yield finding(DR, sf, img, msg, kind="by-tag",
                      detail=where + (f"The image is {ref}. " if ref not in msg else "")
                      + f"The CSV claims disconnected support (line {claim.line}), and Red Hat's restricted-network guidance "
                      "asks for digests: ImageDigestMirrorSet (and ImageContentSourcePolicy) redirects only pulls by digest, and "
                      "a tag reaches the mirror only where the cluster has an ImageTagMirrorSet (OpenShift 4.13 and later). Pin "
                      "it by digest (image@sha256:...).")
    rest = by_tag[MAX_IMAGE_FINDINGS:]
    if rest:
        lines = ", ".join(str(img.line) for _w, img, _r, _d in rest[:20]) + (", ..." if len(rest) > 20 else "")
        yield finding(DR, sf, rest[0][1],
                      f"{len(rest)} more images are referenced by tag although the CSV claims disconnected support.", kind="by-tag",
                      detail=f"They are at lines {lines}. Pin every one by digest (image@sha256:...).")


@rule("arch-os-labels", "warning", "operatorframework.io/arch.* / os.* label with an unknown value or key; non-default arch/os without the defaults",
      category="csv")
def arch_os_labels(bundle: Bundle, ctx):
    """
    What: the CSV's multi-architecture labels `operatorframework.io/arch.<arch>: supported`
    and `operatorframework.io/os.<os>: supported` use an architecture OpenShift runs (amd64,
    arm64, ppc64le, s390x) or operating system (linux, zos), and the value `supported`
    (`unsupported` is accepted too: it states non-support explicitly; a valid Go GOARCH/GOOS
    that OpenShift does not run, such as windows, is not reported in the `operatorhub`
    profile). A CSV that adds a non-default architecture or OS must list the defaults
    (`arch.amd64`, `os.linux`) explicitly if it supports them. The labels belong in
    `metadata.labels`, not annotations. Every finding is a warning: OLM's package server and
    the console only filter OperatorHub by these labels, and nothing refuses the bundle
    (operator-sdk's multiarch validator errors only when an image lacks a listed platform,
    which needs the images and is not checked here).

    Why: OLM treats a CSV without arch labels as amd64-only and without os labels as
    linux-only; once any arch label is present, only the listed ones count, so adding
    `arch.arm64` alone makes the operator disappear from amd64 clusters' OperatorHub. A label
    with another value, or an unknown architecture, matches no filter.

    Fix: list every supported architecture and OS with the value `supported`.

    Bad:
        labels:
          operatorframework.io/arch.arm64: "true"
    Good:
        labels:
          operatorframework.io/arch.amd64: supported
          operatorframework.io/arch.arm64: supported
          operatorframework.io/os.linux: supported
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    ma = data()["multiarch"]
    md = csv.metadata
    labels = md.get("labels") if md is not None else None
    AO = "arch-os-labels"
    kinds = (("arch", ma["arch_prefix"], ma["arch"], ma["other_arch"], ma["default_arch"]),
             ("os", ma["os_prefix"], ma["os"], ma["other_os"], ma["default_os"]))
    if isinstance(labels, Mapping):
        for what, prefix, known, other, default in kinds:
            found = []
            for k, v in labels.items():
                ks = text(k)
                if ks is None or not ks.startswith(prefix):
                    continue
                name = ks[len(prefix):]
                found.append((name, k))
                if name not in known:
                    if name in other:
                        # a target without OpenShift releases (OperatorHub.io) does not report it (verdicts.yaml)
                        yield finding(AO, sf, k, f"'{name}' is a valid {what} but OpenShift does not run on it.",
                                      kind="not-openshift",
                                      detail=f"OpenShift {what}es: {', '.join(known)}; the label only matters for upstream "
                                      "OperatorHub. Remove it for OpenShift catalogs.")
                    else:
                        close = difflib.get_close_matches(name.lower(), known + other, n=1, cutoff=0.6)
                        g = close[0] if close else None
                        yield finding(AO, sf, k, f"'{clip(ks)}' names an unknown {what} '{clip(name, 30)}'.",
                                      detail=f"No cluster or OperatorHub filter matches it. Known: {', '.join(known)}."
                                      + (f" Did you mean '{prefix}{g}'?" if g else ""),
                                      fix=fix_key(sf, k, prefix + g, f"rename to {prefix}{g}") if g else None)
                if not (isinstance(v, Scalar) and v.value in (ma["value"], ma["value_not"])):
                    yield finding(AO, sf, v, f"'{clip(ks)}' is '{shown(v, 30)}', not 'supported'.",
                                  detail="OLM and the console only match the value 'supported' (anything else means not "
                                  "supported). Write 'supported', or remove the label.",
                                  fix=fix_value(sf, v, ma["value"], "write supported") if isinstance(v, Scalar) else None)
            names = [n for n, _ in found]
            if found and default not in names:
                k = found[0][1]
                listed, _cut = _first_names(names, 40)
                yield finding(AO, sf, k, f"the CSV lists {what} labels ({listed}) but not {prefix}{default}.", severity="warning",
                              detail=(f"It lists {', '.join(names)}. " if _cut else "")
                              + f"Without any {what} label OLM assumes {default}, but once one is present only the listed ones "
                              f"count, so the operator no longer shows on {default} clusters. Add '{prefix}{default}: supported' "
                              "if it runs there.")
    ann = csv.annotations()
    for k, _v in (ann.items() if ann is not None else ()):
        ks = text(k)
        if ks and (ks.startswith(ma["arch_prefix"]) or ks.startswith(ma["os_prefix"])):
            yield finding(AO, sf, k, f"'{clip(ks)}' is an annotation, but OLM and the console read it from metadata.labels.",
                          severity="warning", detail="As an annotation it has no effect on architecture and OS support. Move it "
                          "under metadata.labels.")


SUGGESTED = "operatorframework.io/suggested-namespace"
SUGGESTED_T = "operatorframework.io/suggested-namespace-template"


@rule("suggested-namespace", "warning", "suggested-namespace is not a valid namespace name, or the template is not a JSON Namespace",
      category="csv")
def suggested_namespace(bundle: Bundle, ctx):
    """
    What: `operatorframework.io/suggested-namespace` is a valid namespace name (a DNS-1123
    label: lower-case letters, digits and '-', at most 63 characters), and
    `operatorframework.io/suggested-namespace-template` is a JSON Namespace object
    (`apiVersion: v1`, `kind: Namespace`, a valid `metadata.name`). Setting both with
    different names is a warning: the console uses the template's name and ignores the plain
    one (openshift/console, operator-hub-subscribe.tsx: `suggestedNamespaceTemplateName ||
    suggestedNamespace`). Both naming the same namespace is info: nothing changes.

    Why: the console creates this namespace when a user installs the operator; an invalid
    name makes that step fail in the install form, and a template that is not valid JSON is
    silently ignored (the console JSON.parses it), so the namespace is created without the
    labels and annotations it carried. Only the console's install form is affected and
    nothing refuses the bundle: warnings.

    Fix: write a valid name, or a complete Namespace in JSON.

    Bad:
        operatorframework.io/suggested-namespace: My_Operator
    Good:
        operatorframework.io/suggested-namespace: my-operator
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    if ann is None:
        return
    sf = csv.file
    SN = "suggested-namespace"
    ns = ann.get(SUGGESTED)
    if ns is not None and not is_blank(ns):
        s = text(ns)
        p = dns_label_problem(s) if s is not None else f"is {ns.type_name()}"
        if p:
            yield finding(SN, sf, ns, f"the suggested namespace '{shown(ns)}' {p}.",
                          detail=f"{DNS1123_LABEL_RULE[:1].upper()}{DNS1123_LABEL_RULE[1:]}; the console cannot create it when "
                          "users install the operator. Write a namespace name such as 'my-operator'.")
    elif ns is not None:
        yield finding(SN, sf, ns, f"{SUGGESTED} is empty.",
                      detail="The console would suggest no namespace. Write a namespace name or remove the annotation.")
    tpl = ann.get(SUGGESTED_T)
    if tpl is None:
        return
    if not (isinstance(tpl, Scalar) and isinstance(tpl.value, str)) or is_blank(tpl):
        yield finding(SN, sf, tpl, f"{SUGGESTED_T} is {tpl.type_name()}, not a string holding a JSON Namespace object.",
                      detail="Write the Namespace as JSON text, e.g. '{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", "
                      "\"metadata\": {\"name\": \"my-operator\"}}'.")
        return
    doc, err = load_json(sf, tpl)
    if err is not None:
        yield finding(SN, sf, None, f"{SUGGESTED_T} is not valid JSON: {err.reason}.",
                      detail=err.at() + "The console JSON.parses it and silently ignores it, so the namespace is not created from the "
                      "template (nor with its labels and annotations). Fix the JSON at this position.",
                      line=err.line, column=err.column)
        return
    problems = []
    if not isinstance(doc, dict):
        problems.append(f"it is {json_type(doc)}, not a Namespace object")
    else:
        if doc.get("apiVersion") != "v1":
            problems.append("apiVersion must be \"v1\"")
        if doc.get("kind") != "Namespace":
            problems.append("kind must be \"Namespace\"")
        m = doc.get("metadata")
        name = m.get("name") if isinstance(m, dict) else None
        if not isinstance(name, str) or not name:
            problems.append("metadata.name is missing")
        else:
            p = dns_label_problem(name)
            if p:
                problems.append(f"metadata.name '{clip(name, 40)}' {p}")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        yield finding(SN, sf, tpl, f"{SUGGESTED_T} is not a valid Namespace: {problems[0]}{more}.",
                      detail=(f"All: {'; '.join(problems)}. " if more else "")
                      + (f"{DNS1123_LABEL_RULE[:1].upper()}{DNS1123_LABEL_RULE[1:]}. " if any("DNS-1123" in p for p in problems) else "")
                      + "The console creates this object when users install the operator. Write e.g. {\"apiVersion\": \"v1\", "
                      "\"kind\": \"Namespace\", \"metadata\": {\"name\": \"my-operator\"}}.")
    elif ns is not None and not is_blank(ns):
        tname = doc["metadata"]["name"]
        plain = ns.value.strip() if isinstance(ns, Scalar) and isinstance(ns.value, str) else None
        if plain == tname:
            # the console takes the template's name, the same one: nothing changes (info)
            yield finding(SN, sf, ann.key_node(SUGGESTED_T), f"both {SUGGESTED} and {SUGGESTED_T} are set, naming '{clip(tname, 40)}'.",
                          severity="info", detail="The console uses the template's namespace, the same one, so nothing is lost; a "
                          "console without template support reads the plain name. Nothing to change.")
        else:
            yield finding(SN, sf, ann.key_node(SUGGESTED_T),
                          f"{SUGGESTED} names '{clip(plain or '', 40)}' but {SUGGESTED_T} names '{clip(tname, 40)}'.",
                          detail=f"The console uses the template and ignores the plain name, so it suggests '{clip(tname, 40)}'. "
                          "Make both name the same namespace, or keep only the template.")


INTERNAL = "operators.operatorframework.io/internal-objects"


def _json_string_array(sf, node, key, rule_id):
    """(items [(offset, value)], findings) for an annotation that must be a JSON array of
    strings. A value that is not a string is an error (annotations are strings: the CSV
    cannot be decoded); the rest only makes the console ignore the annotation (warnings: the
    console JSON.parses it and drops a value that is not an array of strings)."""
    out = []
    if not (isinstance(node, Scalar) and isinstance(node.value, str)):
        out.append(finding(rule_id, sf, node, f"{key} is {node.type_name()}, not a string holding a JSON array of strings.",
                           kind="schema", detail="Annotations are strings: the API server refuses the CSV. Write it as "
                           "'[\"a\", \"b\"]' in quotes."))
        return None, out
    doc, err = load_json(sf, node)
    if err is not None:
        out.append(finding(rule_id, sf, None, f"{key} is not valid JSON: {err.reason}.",
                           detail=err.at() + "The console JSON.parses it and ignores the whole annotation. Write a JSON array of strings "
                           "such as '[\"a\", \"b\"]'.", line=err.line, column=err.column))
        return None, out
    if not isinstance(doc, list):
        out.append(finding(rule_id, sf, node, f"{key} holds {json_type(doc)}, not a JSON array of strings.",
                           detail="The console ignores it. Write a JSON array of strings such as '[\"a\", \"b\"]'."))
        return None, out
    items = json_array_items(node.value)
    for off, v in items:
        if not isinstance(v, str):
            ln, col = pos_in(sf, node, off)
            out.append(finding(rule_id, sf, None, f"an entry of {key} is {json_type(v)}, not a string.",
                               detail="Every entry must be a string: the console ignores the whole annotation otherwise.",
                               line=ln, column=col))
    return [(o, v) for o, v in items if isinstance(v, str)], out


@rule("internal-objects", "warning", "internal-objects is not a JSON array of strings, or names a CRD the CSV does not own",
      category="csv", mixed=True, supersedes=("manifest-invalid",), refused_by=_not_a_string("list or mapping"))
def internal_objects(bundle: Bundle, ctx):
    """
    What: `operators.operatorframework.io/internal-objects` is a string holding a JSON array
    of CRD names (`<plural>.<group>`) the CSV owns. Invalid JSON, something else than an
    array of strings, or a name the CSV does not own are warnings; a YAML list instead of a
    string is an error.

    Why: the console hides these CRDs from users (no "Create" tile). It JSON.parses the value
    and silently ignores a malformed one, so nothing is hidden; nothing refuses the bundle
    for that (a warning). A YAML list instead of a JSON string cannot be decoded at all
    (annotations are strings): the API server refuses the CSV. A name that matches no owned
    CRD hides nothing (often a kind written where the CRD name belongs).

    Fix: write a JSON array of owned CRD names.

    Bad:
        operators.operatorframework.io/internal-objects: WidgetState
    Good:
        operators.operatorframework.io/internal-objects: '["widgetstates.example.com"]'
    """
    csv, node = csv_annotation(bundle, INTERNAL)
    if node is None or is_blank(node):
        return
    sf = csv.file
    items, problems = _json_string_array(sf, node, INTERNAL, "internal-objects")
    yield from problems
    if items is None:
        return
    owned = {name: kind for name, _g, _v, kind, _e in owned_crds(csv)}
    by_kind = {kind: name for name, kind in owned.items()}
    for off, name in items:
        if name in owned:
            continue
        ln, col = pos_in(sf, node, off)
        hint = f" The owned CRD of kind {name} is '{by_kind[name]}': write that." if name in by_kind else ""
        yield finding("internal-objects", sf, None, f"'{clip(name, 40)}' in {INTERNAL} is not a CRD this CSV owns.",
                      detail=f"The console hides nothing for it. Use the owned CRD's name (<plural>.<group>).{hint}",
                      severity="warning", line=ln, column=col)


INIT = "operatorframework.io/initialization-resource"


@rule("initialization-resource", "warning", "initialization-resource is not a JSON object the console can read, or its kind is not an owned CRD",
      category="csv", mixed=True, supersedes=("manifest-invalid",), refused_by=_not_a_string("mapping"))
def initialization_resource(bundle: Bundle, ctx):
    """
    What: `operatorframework.io/initialization-resource` is a string holding one JSON object
    with `apiVersion` and `kind` of a CRD the CSV owns and a `metadata.name`. Text written as
    YAML rather than JSON, invalid JSON, an object without metadata.name or of a kind the
    CSV does not own are warnings; a YAML mapping instead of a string is an error.

    Why: after install the console offers to create this resource (the operator needs it to
    start working). The console `JSON.parse`s the value and keeps it only when it has a
    metadata.name: YAML, invalid JSON or a nameless object are silently dropped, and the
    user is never offered the resource. Nothing refuses the bundle for that (a warning). A
    kind the operator does not own has no CRD to create it with. A YAML mapping as the
    annotation's value cannot be decoded at all (annotations are strings): the API server
    refuses the CSV.

    Fix: write the object as JSON with the apiVersion/kind of an owned CRD and a name.

    Bad:
        operatorframework.io/initialization-resource: '{"kind": "Widget"'
    Good:
        operatorframework.io/initialization-resource: '{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "default"}}'
    """
    csv, node = csv_annotation(bundle, INIT)
    if node is None:
        return
    sf = csv.file
    IR = "initialization-resource"
    if not (isinstance(node, Scalar) and isinstance(node.value, str)):
        yield finding(IR, sf, node, f"{INIT} is {node.type_name()}, not a string holding the object as JSON.", kind="schema",
                      detail="Annotations are strings: the API server refuses the CSV. Write the object as JSON text in a "
                      "block: '|-' followed by the JSON.")
        return
    if is_blank(node):
        yield finding(IR, sf, node, f"{INIT} is empty.",
                      detail="The console has no resource to offer. Write the object as JSON, or remove the annotation.")
        return
    doc, err = load_json(sf, node)
    if err is not None:
        try:
            doc = yaml.safe_load(node.value)
        except yaml.YAMLError:
            doc = None
        if not isinstance(doc, dict):
            yield finding(IR, sf, None, f"{INIT} is not valid JSON: {err.reason}.",
                          detail=err.at() + "The console JSON.parses it and silently drops it, so users are never offered the resource. "
                          "Fix the JSON at this position.", line=err.line, column=err.column)
            return
        try:
            as_json = json.dumps(doc, separators=(", ", ": "), default=str)
        except (TypeError, ValueError):
            as_json = None
        shown_json = f" Write it as JSON: {as_json}" if as_json and len(as_json) <= 300 else " Write it as JSON."
        yield finding(IR, sf, node, f"{INIT} is written as YAML, not JSON.",
                      detail="The console JSON.parses it and silently drops it, so users are never offered the "
                      f"{doc.get('kind') or 'resource'} after install.{shown_json}")
    if not isinstance(doc, dict):
        yield finding(IR, sf, node, f"{INIT} holds {json_type(doc)}, not one object.",
                      detail="It must be one object with apiVersion, kind and metadata.")
        return
    av, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(av, str) or not isinstance(kind, str) or not av or not kind:
        yield finding(IR, sf, node, f"the {INIT} object has no apiVersion or kind.",
                      detail="The console cannot tell what to create. Add them.")
        return
    md = doc.get("metadata")
    if err is None and not (isinstance(md, dict) and md.get("name")):
        yield finding(IR, sf, node, f"the {INIT} object has no metadata.name.",
                      detail="The console keeps the resource only when it has a name and silently drops it otherwise. Add "
                      "\"metadata\": {\"name\": \"...\"}.")
    g, v = _gv(av)
    owned = [(og, ov, ok) for _n, og, ov, ok, _e in owned_crds(csv)]
    if (g, v, kind) in owned:
        return
    same = [f"{og}/{ov}" for og, ov, ok in owned if ok == kind]
    hint = f" The CSV owns {kind} as {', '.join(same)}: use that apiVersion." if same else ""
    yield finding(IR, sf, node, f"the {INIT} is a {clip(kind, 30)} ({clip(av, 30)}), not a CRD this CSV owns.",
                  detail=f"The console cannot create it for the operator.{hint or ' Use the apiVersion and kind of an owned CRD.'}")


VALID_SUB = "operators.openshift.io/valid-subscription"


@rule("valid-subscription", "warning", "valid-subscription is not a non-empty JSON array of unique strings", category="csv",
      mixed=True, supersedes=("manifest-invalid",), refused_by=_not_a_string("list"))
def valid_subscription(bundle: Bundle, ctx):
    """
    What: `operators.openshift.io/valid-subscription` is a string holding a JSON array of
    unique, non-empty strings naming the subscriptions that entitle use of the operator,
    e.g. '["OpenShift Container Platform", "OpenShift Platform Plus"]'.

    Why: the console shows these on the operator's page ("Valid subscriptions") and filters
    OperatorHub by them; it JSON.parses the value and silently ignores anything but an array
    of strings, so a malformed value shows nothing. Nothing refuses the bundle for that:
    a warning. An empty value, an empty list or a bare 'none' is info: the console shows '-',
    exactly as without the annotation (openshift/console, operator-hub-utils.ts
    `getValidSubscription`); Red Hat certification requires the annotation, so in the
    `certified` profile an empty value or list stays a warning. A YAML
    list instead of a JSON string cannot be decoded at all (annotations are strings): the
    API server refuses the CSV (an error).

    Fix: write a JSON array of strings in quotes.

    Bad:
        operators.openshift.io/valid-subscription: OpenShift Container Platform
    Good:
        operators.openshift.io/valid-subscription: '["OpenShift Container Platform"]'
    """
    csv, node = csv_annotation(bundle, VALID_SUB)
    if node is None:
        return
    sf = csv.file
    VS = "valid-subscription"
    # empty or "none": the console shows '-', as without the annotation; only Red Hat's
    # certification documentation asks for a non-empty list (kind "empty": a warning for the
    # certified targets, info elsewhere; verdicts.yaml)
    empty_why = ("The console shows '-' under Valid subscriptions, as without the annotation, and Red Hat's certification "
                 "documentation asks for the subscriptions that entitle use")
    if is_blank(node) and isinstance(node, Scalar):
        yield finding(VS, sf, node, f"{VALID_SUB} is empty.", kind="empty",
                      detail=f"{empty_why}. List the subscriptions, e.g. '[\"OpenShift Container Platform\"]', or remove the annotation.")
        return
    items, problems = _json_string_array(sf, node, VALID_SUB, VS)
    if problems and items is None and isinstance(node, Scalar) and isinstance(node.value, str) and not node.value.strip().startswith("["):
        # a bare name: offer the JSON form
        p = problems[0]
        p.line, p.column = node.line, node.col
        if node.value.strip().lower() in ("none", "n/a", "na", "-", "null", "no"):
            p.message = f"{VALID_SUB} is '{shown(node, 40)}', not a JSON array."
            p.detail = ("The console ignores it and shows '-' under Valid subscriptions, as without the annotation, so "
                        "nothing is lost on the console; Red Hat's certification documentation asks for the subscriptions "
                        "that entitle use. An operator that needs no subscription does not set the annotation: remove it.")
            p.severity, p.kind = None, "empty"
            yield p
            return
        want = "'" + json.dumps([x.strip() for x in node.value.split(",") if x.strip()]).replace("'", "''") + "'"
        p.message = f"{VALID_SUB} is '{shown(node, 40)}', not a JSON array."
        p.detail = f"The console ignores it, so the operator's page shows no subscription. Write {want}."
        p.fix = fix_value(sf, node, want, "write a JSON array")
        yield p
        return
    yield from problems
    if items is None:
        return
    if not items and not problems:
        yield finding(VS, sf, node, f"{VALID_SUB} is an empty list.", kind="empty",
                      detail=f"{empty_why}. List the subscriptions, e.g. '[\"OpenShift Container Platform\"]', or remove the annotation.")
        return
    seen = set()
    for off, s in items:
        ln, col = pos_in(sf, node, off)
        if not s.strip():
            yield finding(VS, sf, None, f"{VALID_SUB} has an empty entry.", detail="Name a subscription or remove it.",
                          line=ln, column=col)
        elif s in seen:
            yield finding(VS, sf, None, f"'{clip(s, 50)}' is listed twice in {VALID_SUB}.",
                          detail="The items must be unique. Remove the repetition.", line=ln, column=col)
        seen.add(s)
