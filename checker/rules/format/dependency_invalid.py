"""
What: an entry of the bundle's dependencies file (`metadata/dependencies.yaml`) that opm's
bundle format validation refuses: an `olm.package` dependency without a `packageName`, or
whose `version` is missing or not a semver range (`>=1.2.0`, `>=1.0.0 <2.0.0`); an `olm.gvk`
dependency without `group`, `version` or `kind`; a dependency whose type is not `olm.gvk`,
`olm.package`, `olm.label` or `olm.constraint`, or whose value does not decode (a number
where a string belongs).

Why: `operator-sdk bundle validate`, which the community pipeline runs
(check_osdk_bundle_validate_*), validates the bundle's format with operator-registry's
ValidateBundleFormat first, and fails on any of them ("Invalid semver format version", "API
Group is empty", "couldn't parse dependency of type ..."). OLM matches dependencies by these
fields: a dependency it cannot read is one it cannot resolve.

Fix: give every `olm.package` dependency its `packageName` and a semver range as `version`;
give every `olm.gvk` dependency its `group`, `version` and `kind`.

Bad:
    dependencies:
      - type: olm.package
        value: {packageName: etcd, version: latest}
      - type: olm.gvk
        value: {kind: EtcdCluster, version: v1beta2}
Good:
    dependencies:
      - type: olm.package
        value: {packageName: etcd, version: ">=0.9.0"}
      - type: olm.gvk
        value: {group: etcd.database.coreos.com, kind: EtcdCluster, version: v1beta2}
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...upstream.blangsemver import SemverError, parse_range
from .. import define, refusal

# operator-sdk v1.36.1 (37d2f287) internal/cmd/operator-sdk/bundle/validate/validate.go runs
# operator-registry v1.39.0's ValidateBundleFormat: pkg/lib/bundle/validate.go
# validateDependencies, pkg/registry/types.go (GetTypeValue, GVKDependency.Validate,
# PackageDependency.Validate: blang/semver v4 ParseRange)
OPM_VALIDATE = "https://github.com/operator-framework/operator-registry/blob/v1.39.0/pkg/lib/bundle/validate.go"
OPM_TYPES = "https://github.com/operator-framework/operator-registry/blob/v1.39.0/pkg/registry/types.go"
KNOWN_TYPES = ("olm.gvk", "olm.package", "olm.label", "olm.constraint")

RULE = define("dependency-invalid", "A dependency in metadata/dependencies.yaml is one opm's format validation refuses",
              __doc__, category="format", refused_by=[
                  refusal("catalog-ci", "operator-sdk bundle validate (the community pipeline's check_osdk_bundle_validate_*) "
                          "runs operator-registry's ValidateBundleFormat, which refuses a package dependency whose version is "
                          "no semver range and a GVK dependency without group, version or kind", OPM_TYPES),
              ])

_FIX = "Write the dependency as operator-registry reads it (type olm.package: packageName and a semver range as version; " \
       "type olm.gvk: group, version and kind)."


def _deps_file(bundle: Bundle):
    """The dependencies file and its entries, as ValidateBundleFormat finds it: the first file
    of metadata/ (by name) other than the annotations file with a non-empty ``dependencies``."""
    for sf in sorted(bundle.metadata_files, key=lambda f: f.rel):
        if sf is bundle.annotations_file or not sf.readable or not sf.documents:
            continue
        doc = sf.documents[0]
        deps = doc.get("dependencies") if isinstance(doc, Mapping) else None
        if isinstance(deps, Sequence) and len(deps) > 0:
            return sf, deps
    return None, None


def _str_field(value: Mapping, key: str):
    """(node, string or None, decodes): a field of a dependency's value as Go's json.Unmarshal
    into a string field reads it: absent or null is "", a non-string fails the decoding."""
    n = value.get(key)
    if n is None or (isinstance(n, Scalar) and n.value is None):
        return n, "", True
    if isinstance(n, Scalar) and isinstance(n.value, str):
        return n, n.value, True
    return n, None, False


@RULE.check
def dependency_invalid(bundle: Bundle, ctx: Context):
    sf, deps = _deps_file(bundle)
    if sf is None or deps is None:
        return
    for d in deps:
        if not isinstance(d, Mapping):
            yield RULE.at(sf, d, f"this dependency is {d.type_name()}, not a mapping with type and value",
                          detail="operator-registry cannot decode the dependencies file. " + _FIX)
            continue
        tn = d.get("type")
        t = tn.value if isinstance(tn, Scalar) and isinstance(tn.value, str) else None
        if t not in KNOWN_TYPES:
            shown = tn.raw if isinstance(tn, Scalar) else ("missing" if tn is None else tn.type_name())
            yield RULE.at(sf, tn if tn is not None else d, f"the dependency type '{shown}' is not one opm knows "
                          f"({', '.join(KNOWN_TYPES)})",
                          detail="opm's format validation refuses it (\"couldn't parse dependency of type\"), and OLM "
                          "ignores it. " + _FIX)
            continue
        if t not in ("olm.package", "olm.gvk"):
            continue
        v = d.get("value")
        if not isinstance(v, Mapping):
            yield RULE.at(sf, v if v is not None else d, f"the {t} dependency has no value mapping",
                          detail=f"opm's format validation cannot decode it (\"couldn't parse dependency of type {t}\"). " + _FIX)
            continue
        keys = ("packageName", "version") if t == "olm.package" else ("group", "version", "kind")
        fields = {k: _str_field(v, k) for k in keys}
        bad = [k for k in keys if not fields[k][2]]
        if bad:
            node = fields[bad[0]][0]
            yield RULE.at(sf, node, f"the {t} dependency's {bad[0]} is {node.type_name()}, not a string",
                          detail=f"opm's format validation cannot decode it (\"couldn't parse dependency of type {t}\"). "
                          "Quote the value.")
            continue
        for k in keys:
            node, s, _ok = fields[k]
            if s == "":
                yield RULE.at(sf, node if node is not None else v, f"the {t} dependency has no {k}",
                              detail="opm's format validation refuses it (\"" + {
                                  ("olm.package", "packageName"): "Package name is empty",
                                  ("olm.package", "version"): "Package version is empty",
                                  ("olm.gvk", "group"): "API Group is empty",
                                  ("olm.gvk", "version"): "API Version is empty",
                                  ("olm.gvk", "kind"): "API Kind is empty"}[(t, k)]
                              + "\"), and OLM cannot match the dependency without it. " + _FIX)
        if t == "olm.package":
            node, s, _ok = fields["version"]
            if s:
                try:
                    parse_range(s)
                except SemverError as e:
                    yield RULE.at(sf, node, f"the olm.package dependency's version '{s}' is not a semver range ({e})",
                                  detail="opm's format validation refuses it (\"Invalid semver format version\"), and OLM "
                                  "cannot match it to any version. Write a range such as '>=1.2.0' or '>=1.0.0 <2.0.0'.")
