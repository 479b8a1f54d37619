"""
What: every document in manifests/ must be a Kubernetes object: a mapping with
`apiVersion` (a group/version such as `apps/v1`), `kind` and `metadata.name` as strings,
and `metadata`/`spec` as mappings.

Why: opm and the API server reject objects without them; a `spec: "text"` or a list where
a mapping belongs fails the install. OLM decodes Secrets, ConfigMaps, Services,
ServiceAccounts and the RBAC kinds (Role, RoleBinding, ClusterRole, ClusterRoleBinding)
by their kind alone and never reads their apiVersion, so a missing or malformed apiVersion
on those is a warning (nothing refuses it; write it anyway); on any other kind OLM looks
the group/version up in the cluster's API discovery and the InstallPlan fails.

Key spelling: opm's bundle parser (operator-registry pkg/registry/parse.go addManifests)
decodes each file into an unstructured object, which needs the exact key `kind`; a file
with `Kind:` fails to decode and is left out of the bundle (an error). A CSV whose
`apiVersion` is spelled otherwise (`ApiVersion`) is read: opm tells the CSV by its kind,
and OLM decodes it with encoding/json, which matches field names case-insensitively
(operator-lifecycle-manager pkg/controller/operators/catalog/operator.go, ExecutePlan):
a warning (kind `key-case-csv`), and its value is still checked. On any other kind the
misspelt apiVersion is not read (the unstructured object has none).

Fix: add the missing field, or give the field the shape Kubernetes expects.

A `features.operators.openshift.io/*` annotation that is not a string (an unquoted
`true`) is reported once, by feature-annotations, with its fix, when that rule is on.

Bad:
    apiVersion: v1
    kind: ConfigMap
    metadata: my-config
Good:
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: my-config
"""
from __future__ import annotations

import re
from typing import Optional

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar
from .. import define, refusal

OPM_VALIDATE = "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/validate.go"
OLM_CATALOG = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/catalog/operator.go"

RULE = define("manifest-invalid", "A manifest lacks apiVersion, kind or metadata.name, or has the wrong shape", __doc__,
              category="format", refused_by=[
    refusal("olm-install", "OLM cannot decode an object without kind, refuses a CSV without apiVersion, and finds no "
            "API for the group/version of any kind it does not decode by kind", OLM_CATALOG),
    refusal("opm", "`opm alpha bundle validate` decodes each manifest (kind required) and validates the metadata "
            "(name required) of every object but CSVs and CRDs", OPM_VALIDATE),
    refusal("api-server", "metadata labels and annotations must be strings, metadata and spec mappings",
            "https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go"),
])

# Kinds OLM's InstallPlan decodes by kind alone into their typed objects (Secret, ConfigMap,
# Service, ServiceAccount and the RBAC kinds): their apiVersion is never read.
BY_KIND = frozenset(("Secret", "ConfigMap", "Service", "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"))
_GV_PART = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")


def _bad_api_version(v: str) -> Optional[str]:
    """Why ``v`` cannot be an apiVersion (``group/version`` or ``version``), or None."""
    if not v.isprintable() or not v.isascii():
        return "holds bytes that are not printable ASCII"
    parts = v.split("/")
    if len(parts) > 2:
        return "has more than one '/'"
    if any(not p for p in parts):
        return "has an empty group or version"
    if any(_GV_PART.fullmatch(p) is None for p in parts):
        return "is not a lowercase group/version name"
    return None



# apimachinery pkg/util/validation/validation.go IsValidLabelValue (LabelValueMaxLength 63)
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def _bad_label_value(v: str) -> Optional[str]:
    """Why ``v`` is no valid label value, in a few words, or None."""
    if len(v) > 63:
        return f"is {len(v)} characters long, more than 63"
    if _LABEL_VALUE.fullmatch(v) is None:
        if " " in v:
            return "contains spaces"
        return "is not a valid label value"
    return None


@RULE.check
def manifest_invalid(bundle: Bundle, ctx: Context):
    for m in bundle.manifests:
        root = m.root
        sf = m.file
        if not isinstance(root, Mapping):
            yield RULE.at(sf, root, f"this document is {root.type_name()}, not a Kubernetes object",
                          detail="opm and OLM expect a mapping with apiVersion, kind and metadata. Remove it or write the object.")
            continue
        kind = root.get("kind")
        by_kind = isinstance(kind, Scalar) and kind.value in BY_KIND
        for key in ("apiVersion", "kind"):
            v = root.get(key)
            by_kind_api = "by-kind" if key == "apiVersion" and by_kind else ""  # kind: nothing refuses it
            why = (f"OLM installs a {kind.value} by its kind and ignores apiVersion, but kubectl and other tools need it"
                   if by_kind_api else "opm and the API server cannot tell what it is")
            if v is None:
                slip = next((k for k, _ in root.items() if isinstance(k, Scalar) and isinstance(k.value, str)
                             and k.value != key and k.value.lower() == key.lower()), None)
                if slip is not None and key == "apiVersion" and isinstance(kind, Scalar) and kind.value == "ClusterServiceVersion":
                    # OLM decodes the CSV with encoding/json (case-insensitive field names) and opm tells
                    # the CSV by its kind alone: the misspelt key is read; its value is still checked
                    sv = root.get(slip.value)
                    yield RULE.at(sf, slip, f"the CSV's apiVersion is spelled '{slip.value}'",
                                  kind="key-case-csv",
                                  detail="OLM decodes the CSV into its Go type with encoding/json, which matches field names "
                                  "case-insensitively (operator-lifecycle-manager catalog/operator.go ExecutePlan), and opm "
                                  "tells the CSV by its kind alone, so it is read; tools that read manifests as unstructured objects "
                                  "(kubectl, and opm and OLM for every other kind) see no apiVersion. Write 'apiVersion'.")
                    if isinstance(sv, Scalar) and isinstance(sv.value, str) and sv.value:
                        bad = _bad_api_version(sv.value)
                        if bad is not None:
                            shown = sv.value.encode("unicode_escape").decode("ascii")[:60]
                            yield RULE.at(sf, sv, f"apiVersion '{shown}' {bad}",
                                          detail="It is not a group/version such as 'v1' or 'apps/v1'; OLM finds no such API in "
                                          "the cluster, so the InstallPlan fails. Write 'operators.coreos.com/v1alpha1'.")
                    continue
                if slip is not None:
                    yield RULE.at(sf, slip, f"the object has no {key}: it is spelled '{slip.value}'",
                                  kind=by_kind_api, detail=f"Kubernetes' keys are case-sensitive: opm and OLM read manifests as "
                                  f"unstructured objects, whose '{key}' is an exact key (a '{slip.value}' is not read); {why}. "
                                  + ("opm's bundle parser cannot decode an object without 'kind' and leaves the file out of "
                                     "the bundle (operator-registry pkg/registry/parse.go addManifests). " if key == "kind" else "")
                                  + f"Write '{key}'.")
                    continue
                yield RULE.at(sf, root, f"the object has no {key}", kind=by_kind_api,
                              detail=f"Without {key}, {why}. Add {key}.")
            elif not (isinstance(v, Scalar) and isinstance(v.value, str) and v.value):
                yield RULE.at(sf, v, f"{key} is {v.type_name()}, not a non-empty string", kind=by_kind_api,
                              detail=f"Without a string {key}, {why}. Write it as a string.")
            elif key == "apiVersion":
                bad = _bad_api_version(v.value)
                if bad is not None:
                    shown = v.value.encode("unicode_escape").decode("ascii")[:60]
                    consequence = (f"OLM installs a {kind.value} by its kind and ignores it, but no other tool accepts it" if by_kind_api else
                                   "OLM finds no such API in the cluster, so the InstallPlan fails, and the API server refuses it")
                    yield RULE.at(sf, v, f"apiVersion '{shown}' {bad}", kind=by_kind_api,
                                  detail=f"It is not a group/version such as 'v1' or 'apps/v1'; {consequence}. Write the "
                                  "object's real apiVersion.")
        md = root.get("metadata")
        if md is None:
            yield RULE.at(sf, root, "the object has no metadata",
                          detail="opm validates every object's metadata, and OLM cannot create an object without a name. "
                          "Add metadata with a name.")
        elif not isinstance(md, Mapping):
            yield RULE.at(sf, md, f"metadata is {md.type_name()}, not a mapping",
                          detail="The API server refuses the object. Write metadata as a mapping with name, labels and annotations.")
        else:
            n = md.get("name")
            if n is None:
                if md.get("generateName") is None:
                    yield RULE.at(sf, md, "metadata has no name",
                                  detail="OLM cannot create an object without one. Add metadata.name.")
            elif not (isinstance(n, Scalar) and isinstance(n.value, str) and n.value):
                yield RULE.at(sf, n, f"metadata.name is {n.type_name()}, not a non-empty string",
                              detail="The API server refuses the object. Write the name as a string.")
            for key in ("labels", "annotations"):
                v = md.get(key)
                if v is not None and not isinstance(v, Mapping) and not (isinstance(v, Scalar) and v.value is None):
                    yield RULE.at(sf, v, f"metadata.{key} is {v.type_name()}, not a mapping of strings",
                                  detail="The API server refuses the object. Write a mapping of string keys to string values.")
                elif isinstance(v, Mapping):
                    for k, val in v.items():
                        if not isinstance(val, Scalar):
                            yield RULE.at(sf, val,
                                          f"{key[:-1]} '{k.value if isinstance(k, Scalar) else '?'}' is {val.type_name()}, not a string",
                                          detail="Kubernetes requires a string here and rejects the object. Write it as a "
                                          "quoted string (JSON text for structured values).")
                        elif val.value is not None and not isinstance(val.value, str):
                            yield RULE.at(sf, val,
                                          f"{key[:-1]} '{k.value if isinstance(k, Scalar) else '?'}' is {val.type_name()} ({val.raw}), "
                                          "not a string",
                                          detail=f"Kubernetes requires strings here and rejects the object. Quote it: \"{val.raw}\".")
                        elif key == "labels" and isinstance(val.value, str) and (label_problem := _bad_label_value(val.value)):
                            yield RULE.at(sf, val, f"the value of label '{k.value if isinstance(k, Scalar) else '?'}' {label_problem}",
                                          kind="label-value",
                                          detail="The API server refuses the object: a label value has at most 63 characters, "
                                          "letters, digits, '-', '_' and '.', and starts and ends with a letter or digit "
                                          "(apimachinery IsValidLabelValue; operator-sdk bundle validate checks the same). "
                                          "Put free text in an annotation instead.")
        spec = root.get("spec")
        if spec is not None and not isinstance(spec, Mapping) and not (isinstance(spec, Scalar) and spec.value is None):
            yield RULE.at(sf, spec, f"spec is {spec.type_name()}, not a mapping",
                          detail="The API server rejects the object. Write spec as a mapping.")
