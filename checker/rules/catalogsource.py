"""CatalogSource manifests (operators.coreos.com/v1alpha1) anywhere in the checked tree.

Today's API (the default) requires ``spec.sourceType`` and has no proposal blocks; the
catalog operator's reconciler picks the source: ``grpc`` with ``image`` (a registry pod;
``address`` is then ignored), ``grpc`` with only ``address`` (no pod), ``configmap``
(``internal`` is its deprecated alias) with ``configMap`` (a registry pod built from the
ConfigMap). With ``catalogsource_schema: proposed`` in .olm-check.yaml the provisional
catalogsource-spec-update structure (``catalogImageSource`` / ``catalogServiceSource`` /
``configMapSource``) is the target and the legacy top-level fields warn.

Value shapes come from ``checker/data/catalogsource.schema.json`` (JSON Schema), turned
into one readable message per wrong value (never a bare "oneOf" failure).
"""
from __future__ import annotations

import json
import os
from functools import lru_cache

from ..finding import Fix
from ..nodes import Mapping, Scalar, Sequence, to_py
from ..versions import clip
from . import check, define, refusal, said
from ..upstream.docker_reference import image_reference_problem

CS_CRD = "https://github.com/operator-framework/api/blob/master/crds/operators.coreos.com_catalogsources.yaml"
CS_REGISTRY = ("https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/"
               "operators/catalog/operator.go")

CATEGORY = "catalogsource"
DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "catalogsource.schema.json")

LEGACY_SOURCE_FIELDS = ("sourceType", "image", "address", "configMap", "grpcPodConfig", "updateStrategy")
BLOCKS = ("catalogImageSource", "catalogServiceSource", "configMapSource")
KNOWN_SPEC = set(LEGACY_SOURCE_FIELDS) | set(BLOCKS) | {"priority", "secrets", "displayName", "description", "publisher", "icon"}

define("catalogsource-source", "error", "A CatalogSource has no usable source, or more than one", category=CATEGORY, mixed=True, refused_by=[
    refusal("api-server", "the CatalogSource CRD requires spec.sourceType", CS_CRD),
    refusal("olm-install", "the catalog operator serves nothing from a CatalogSource without a usable source "
            "(unknown sourceType, grpc without image or address, configmap without configMap)", CS_REGISTRY),
], explanation="""
    What: a CatalogSource needs exactly one source. Today's API: `sourceType: grpc` with
    `image` (OLM runs a registry pod) or `address` (OLM connects to a running registry), or
    `sourceType: configmap` with `configMap`. `sourceType` is required by today's API;
    `internal` is a deprecated alias of `configmap` (warning). The proposal's blocks
    (`catalogImageSource`, `catalogServiceSource`, `configMapSource`) count as a source too
    (`catalogsource-proposed-schema` reports them), but two blocks, or a block next to legacy
    source fields, are two sources.

    Why: without a usable source the catalog operator marks the CatalogSource invalid and no
    operator from it can be installed; with two, what you read is not what OLM uses.

    Fix: keep one source.

    Bad:
        spec:
          sourceType: grpc
          displayName: My catalog
    Good:
        spec:
          sourceType: grpc
          image: quay.io/example/catalog:latest
    """)

define("catalogsource-ignored-fields", "warning", "A CatalogSource sets fields the catalog operator ignores for its source", category=CATEGORY, explanation="""
    What: fields OLM's catalog operator does not use for the configured source, each
    reported at its line: `address` next to `image` (the image wins); `configMap` on a grpc
    source; `image`/`address` on a configmap source; on a grpc source with only an
    `address` (no pod is run), `grpcPodConfig` and `updateStrategy`; `updateStrategy` on a
    configmap source (polling needs a grpc image). Not reported, because OLM uses them:
    `grpcPodConfig` on configmap sources (their registry pod applies it), `secrets` (used by
    bundle-unpack jobs for every source).

    Why: the ignored value looks like configuration but changes nothing, which misleads the
    next person who edits it (the catalogsource-spec-update proposal's motivation).

    Fix: remove the field, or switch to the source it belongs to.

    Bad:
        spec:
          sourceType: grpc
          image: quay.io/example/catalog:latest
          address: catalog.example.svc:50051
    Good:
        spec:
          sourceType: grpc
          image: quay.io/example/catalog:latest
    """)

define("catalogsource-proposed-schema", "warning", "A CatalogSource uses the provisional proposal's source blocks", category=CATEGORY, explanation="""
    What: `catalogImageSource`, `catalogServiceSource` or `configMapSource` (the
    catalogsource-spec-update proposal, still provisional). The message shows the
    equivalent spec in today's API. Off with `catalogsource_schema: proposed`.

    Why: clusters serve today's API, which has no such fields: the API server drops or
    rejects them and, without `sourceType`, rejects the object.

    Fix: write the equivalent legacy spec shown in the message.

    Bad:
        spec:
          catalogImageSource:
            catalogImage: quay.io/example/catalog:latest
    Good:
        spec:
          sourceType: grpc
          image: quay.io/example/catalog:latest
    """)

define("catalogsource-deprecated-fields", "warning", "With catalogsource_schema: proposed, legacy top-level source fields", category=CATEGORY, explanation="""
    What: only with `catalogsource_schema: proposed` in .olm-check.yaml: the legacy
    top-level source fields (`sourceType`, `image`, `address`, `configMap`, `grpcPodConfig`,
    `updateStrategy`). The message spells out the equivalent new structure.

    Why: the proposal moves each source's settings into its own block so no field can be
    superfluous; the legacy fields are what it deprecates.

    Fix: move the fields into the block shown.

    Bad:
        spec:
          sourceType: grpc
          image: quay.io/example/catalog:latest
    Good:
        spec:
          catalogImageSource:
            catalogImage: quay.io/example/catalog:latest
    """)

define("catalogsource-schema", "error", "A CatalogSource value has the wrong shape", category=CATEGORY, mixed=True, refused_by=[
    refusal("api-server", "the CatalogSource CRD's schema: spec required, priority an integer, icon with base64data and "
            "mediatype, memoryTarget a quantity, securityContextConfig legacy or restricted, extractContent with catalogDir",
            CS_CRD),
], explanation="""
    What: the values of a CatalogSource spec, checked against a JSON Schema of the API
    (checker/data/catalogsource.schema.json), one readable message per wrong value:
    `priority` an int32; `updateStrategy.registryPoll.interval` a Go duration (`45m`,
    `1h30m`); `icon` with `base64data` and `mediatype`; `secrets` a list of names;
    tolerations, `nodeSelector` (string values), `grpcPodConfig.memoryTarget` (a quantity),
    `securityContextConfig` (`legacy` or `restricted`), `extractContent` (`catalogDir`
    required). A field the API does not know is a warning (the API server drops it).
    The proposal's blocks (seed 003, in both modes) use its own names: `catalogImageSource`
    has `catalogImage` and `podSpecOverrides` (`nodeSelector`, `tolerations`,
    `priorityClassName`), `catalogServiceSource` has `address`, `configMapSource` has
    `configMap`; any other key there is a warning (the proposal's schema would drop it). In
    both modes, an image that is no image reference is an error (the catalog pod cannot pull
    it) and a grpc address that is not host:port a warning (operator-framework/api
    catalogsource_types.go documents `<registry-host or ip>:<port>`; the seed's own
    catalogServiceSource example has no port, so nothing proves a refusal).

    Why: the API server rejects most wrong shapes (errors); a bad polling interval it accepts,
    and OLM then silently polls every 15 minutes instead (InvalidIntervalError): nothing
    refuses it, so that one is a warning.

    Fix: write the value in the shape the message gives.

    Bad:
        updateStrategy:
          registryPoll:
            interval: 45 minutes
    Good:
        updateStrategy:
          registryPoll:
            interval: 45m
    """)


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator

    with open(DATA, encoding="utf-8") as fh:
        schema = json.load(fh)
    return Draft202012Validator(schema)


def _set(n) -> bool:
    """A field counts as set when present with a non-empty value (Go omitempty)."""
    if n is None:
        return False
    if isinstance(n, Scalar):
        return n.value not in (None, "")
    if isinstance(n, (Mapping, Sequence)):
        return len(n) > 0
    return True


def _at(m, key):
    """(node to point at, value) for key in mapping m: the key node's position."""
    k = m.key_node(key)
    return k if k is not None else m


def _yaml_inline(n) -> str:
    v = to_py(n)
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(", ", ": "))


@check("repo")
def catalogsources(repo, ctx):
    proposed = ctx.config.catalogsource_schema == "proposed"
    for m in repo.catalog_sources:
        sf = m.file
        root = m.root
        if not isinstance(root, Mapping):
            continue
        spec = root.get("spec")
        if spec is None:
            yield said("catalogsource-schema", sf, root, "the CatalogSource has no spec; the API server requires one with a source (sourceType: grpc and image, for example).")
            continue
        if not isinstance(spec, Mapping):
            yield said("catalogsource-schema", sf, spec, f"spec must be a mapping (sourceType, image or configMap, ...), not {spec.type_name()}; the API server rejects the object.")
            continue
        yield from _shapes(sf, spec)
        yield from _sources(sf, spec, proposed)


def _shapes(sf, spec):
    data = to_py(spec)
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        node = _node_at(spec, list(err.absolute_path))
        msg = None
        sch = err.schema if isinstance(err.schema, dict) else {}
        if err.validator == "required":
            missing = err.message.split("'")[1] if "'" in err.message else "a required field"
            msg = sch.get("x-message") or f"'{missing}' is required here"
            msg = f"{msg} (missing: {missing})"
        else:
            msg = sch.get("x-message")
            if msg is None:
                parent = _parent_schema(err)
                msg = parent.get("x-message") if parent else None
            if msg is None:
                msg = err.message
        shown = ""
        if isinstance(node, Scalar) and err.validator != "required":
            shown = f" (found {node.type_name()}: {node.raw})" if node.raw not in ("", None) else f" (found {node.type_name()})"
        elif node is not None and err.validator == "type":
            shown = f" (found {node.type_name()})"
        # a polling interval the API server accepts (any string) and OLM replaces by its default
        sev = "warning" if list(err.absolute_path)[-2:] == ["registryPoll", "interval"] and err.validator != "type" else None
        where = _where(err.absolute_path)
        tok = msg.split(" ", 1)[0]
        said_where = where + msg[len(tok):] if tok and (where == tok or where.endswith("." + tok)) else f"{where}: {msg}"
        yield said("catalogsource-schema", sf, node, f"{said_where}{shown}.", severity=sev)
    for k, _v in spec.items():
        kv = k.value if isinstance(k, Scalar) else None
        if kv not in KNOWN_SPEC:
            yield said("catalogsource-schema", sf, k,
                          f"spec.{kv} is not a CatalogSource field; the API server drops unknown fields, so it has no effect. Check the spelling "
                          f"(fields: {', '.join(sorted(KNOWN_SPEC - set(BLOCKS)))}).", severity="warning")


def _parent_schema(err):
    try:
        path = list(err.schema_path)
    except Exception:  # pragma: no cover - jsonschema internals
        return None
    # walk the schema along schema_path and keep the last x-message seen
    schema = _validator().schema
    cur, last = schema, None
    for p in path[:-1]:
        if isinstance(cur, dict) and "$ref" in cur and p not in cur:
            cur = _resolve(cur["$ref"])
        if isinstance(cur, dict):
            cur = cur.get(p)
        elif isinstance(cur, list) and isinstance(p, int) and p < len(cur):
            cur = cur[p]
        else:
            break
        if isinstance(cur, dict) and "x-message" in cur:
            last = cur
    return last


def _resolve(ref: str):
    cur = _validator().schema
    for part in ref.lstrip("#/").split("/"):
        cur = cur.get(part, {}) if isinstance(cur, dict) else {}
    return cur


def _where(path) -> str:
    out = "spec"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _node_at(spec, path):
    n = spec
    for p in path:
        if isinstance(n, Mapping):
            nxt = n.get(p)
            if nxt is None:
                return n
            n = nxt
        elif isinstance(n, Sequence) and isinstance(p, int) and p < len(n):
            n = n[p]
        else:
            return n
    return n


def _legacy_equivalent(spec, block) -> str:
    b = spec.get(block)
    parts = []
    if block == "catalogImageSource":
        parts.append("sourceType: grpc")
        keys = (("catalogImage", "image"), ("podSpecOverrides", "grpcPodConfig"))
    elif block == "catalogServiceSource":
        parts.append("sourceType: grpc")
        keys = (("address", "address"),)
    else:
        parts.append("sourceType: configmap")
        keys = (("configMap", "configMap"),)
    if isinstance(b, Mapping):
        for k, legacy in keys:
            v = b.get(k)
            if v is not None:
                parts.append(f"{legacy}: {_yaml_inline(v)}")
            elif legacy in ("image", "address", "configMap"):
                parts.append(f"{legacy}: <{legacy}>")
    return "; ".join(parts)


# the proposal's blocks and the fields it defines for each (seed 003: CatalogImageSource,
# CatalogServiceSource, ConfigMapSource; podSpecOverrides replaces grpcPodConfig)
BLOCK_FIELDS = {"catalogImageSource": ("catalogImage", "podSpecOverrides"), "catalogServiceSource": ("address",),
                "configMapSource": ("configMap",)}
OVERRIDE_FIELDS = ("nodeSelector", "tolerations", "priorityClassName")
_RENAMED = {"image": "catalogImage", "grpcPodConfig": "podSpecOverrides"}


def _undefined_keys(sf, spec, block):
    """Keys of a proposal block (and of its podSpecOverrides) the proposal does not define."""
    b = spec.get(block)
    if not isinstance(b, Mapping):
        return
    known = BLOCK_FIELDS[block]
    for k, _v in b.items():
        kv = k.value if isinstance(k, Scalar) else None
        if kv in known:
            continue
        hint = f" (its name there is {_RENAMED[kv]})" if block == "catalogImageSource" and kv in _RENAMED else ""
        yield said("catalogsource-schema", sf, k,
                   f"{block}.{kv} is not in the proposal{hint}. The catalogsource-spec-update proposal's {block} has "
                   f"{', '.join(known)}; its schema would drop any other key, so this one has no effect.", severity="warning")
    po = b.get("podSpecOverrides") if block == "catalogImageSource" else None
    if isinstance(po, Mapping):
        for k, _v in po.items():
            kv = k.value if isinstance(k, Scalar) else None
            if kv not in OVERRIDE_FIELDS:
                yield said("catalogsource-schema", sf, k,
                           f"podSpecOverrides.{kv} is not in the proposal. The proposal's podSpecOverrides has {', '.join(OVERRIDE_FIELDS)}; "
                           "its schema would drop any other key, so this one has no effect.", severity="warning")


def _new_equivalent(spec, st) -> str:
    img, addr, cm = spec.get("image"), spec.get("address"), spec.get("configMap")
    if st == "grpc" and _set(img):
        inner = [f"catalogImage: {_yaml_inline(img)}"]
        gpc = spec.get("grpcPodConfig")
        if isinstance(gpc, Mapping):
            over = [f"{k}: {_yaml_inline(gpc.get(k))}" for k in OVERRIDE_FIELDS if gpc.get(k) is not None]
            if over:
                inner.append("podSpecOverrides: {" + ", ".join(over) + "}")
        return "catalogImageSource: {" + ", ".join(inner) + "}"
    if st == "grpc" and _set(addr):
        return "catalogServiceSource: {address: " + _yaml_inline(addr) + "}"
    if st in ("configmap", "internal") and _set(cm):
        return "configMapSource: {configMap: " + _yaml_inline(cm) + "}"
    return "one of catalogImageSource: {catalogImage: ...}, catalogServiceSource: {address: ...}, configMapSource: {configMap: ...}"


def _sources(sf, spec, proposed):
    blocks = [b for b in BLOCKS if b in spec]
    st_node = spec.get("sourceType")
    st = st_node.value if isinstance(st_node, Scalar) and isinstance(st_node.value, str) else None
    legacy_present = [k for k in ("image", "address", "configMap") if _set(spec.get(k))]
    # the proposal's blocks
    for b in blocks:
        if not proposed:
            yield said("catalogsource-proposed-schema", sf, _at(spec, b),
                          f"spec.{b} is from the provisional catalogsource-spec-update proposal; clusters serve today's API, which has no such field "
                          f"(the API server drops or rejects it, and requires sourceType). Write the equivalent spec instead: {_legacy_equivalent(spec, b)}.")
    if len(blocks) > 1:
        yield said("catalogsource-source", sf, _at(spec, blocks[1]),
                      f"the CatalogSource configures {len(blocks)} sources ({', '.join(blocks)}); a catalog has exactly one source. Keep one block.")
        return
    if blocks and legacy_present:
        yield said("catalogsource-source", sf, _at(spec, legacy_present[0]),
                      f"the CatalogSource configures two sources: spec.{blocks[0]} and the top-level {', '.join(legacy_present)}; OLM uses the top-level fields "
                      f"and the proposal would refuse both together. Keep one: {'move them into ' + blocks[0] if proposed else 'remove ' + blocks[0]}.")
        return
    if blocks:
        yield from _block_ignored(sf, spec, blocks[0])
        return
    # legacy source
    if st_node is None:
        guess = "grpc" if _set(spec.get("image")) or _set(spec.get("address")) else ("configmap" if _set(spec.get("configMap")) else "grpc")
        yield said("catalogsource-source", sf, spec,
                      f"spec.sourceType is missing; today's API requires it (the API server rejects the object) and the catalog operator picks the "
                      f"source from it. Add 'sourceType: {guess}'.")
        return
    if st not in ("grpc", "configmap", "internal"):
        shown = st_node.raw if isinstance(st_node, Scalar) else st_node.type_name()
        yield said("catalogsource-source", sf, st_node,
                      f"sourceType '{shown}' is not a source OLM knows; the catalog operator refuses the CatalogSource. Write 'grpc' (image or address) or 'configmap'.")
        return
    if st == "internal":
        line = sf.line_text(st_node.line)
        fix = Fix(st_node.line, line.replace("internal", "configmap", 1), "use the current name of the source type") if "internal" in line else None
        yield said("catalogsource-source", sf, st_node,
                      "sourceType 'internal' is a deprecated alias of 'configmap'; OLM still treats it as configmap, but write 'configmap'.",
                      severity="warning", fix=fix)
    if proposed:
        first = next((k for k in LEGACY_SOURCE_FIELDS if k in spec), "sourceType")
        yield said("catalogsource-deprecated-fields", sf, _at(spec, first),
                      f"the top-level source fields ({', '.join(k for k in LEGACY_SOURCE_FIELDS if k in spec)}) are legacy under "
                      f"catalogsource_schema: proposed; write instead: {_new_equivalent(spec, st)}.")
    img, addr, cm = spec.get("image"), spec.get("address"), spec.get("configMap")
    if st == "grpc":
        if _set(img):
            yield from _image_ref(sf, img, "spec.image")
        elif _set(addr):
            yield from _address(sf, addr, "spec.address")
        if not _set(img) and not _set(addr):
            yield said("catalogsource-source", sf, st_node,
                          "sourceType is grpc but neither image nor address is set: OLM has no registry to serve the catalog from. Add "
                          "'image: <catalog image>' (OLM runs the registry pod) or 'address: <host:port>' (a registry you run).")
        if _set(img) and "address" in spec:
            yield _ignored(sf, spec, "address", "spec.address is ignored: image is set. OLM runs a registry pod from the image and never connects to address. Remove address (or image, if you meant to use a running registry).")
        if "configMap" in spec:
            yield _ignored(sf, spec, "configMap", "spec.configMap is ignored on a grpc source (only configmap sources read it). Remove it, or switch to sourceType: configmap.")
        if not _set(img) and _set(addr):
            for k in ("grpcPodConfig", "updateStrategy"):
                if k in spec:
                    yield _ignored(sf, spec, k, f"spec.{k} is ignored: only an address is set. OLM then runs no registry pod, so there is nothing to configure or poll. Remove it, or use image.")
    else:
        if not _set(cm):
            yield said("catalogsource-source", sf, st_node,
                          f"sourceType is {st} but configMap is not set: OLM has no ConfigMap to build the registry from. Add 'configMap: <ConfigMap name>'.")
        for k in ("image", "address"):
            if k in spec:
                yield _ignored(sf, spec, k, f"spec.{k} is ignored on a configmap source (the registry is built from the ConfigMap). Remove it, or switch to sourceType: grpc.")
        if "updateStrategy" in spec:
            yield _ignored(sf, spec, "updateStrategy", "spec.updateStrategy is ignored on a configmap source: OLM polls only grpc sources with an image (a configmap source follows its ConfigMap). Remove it.")


def _block_ignored(sf, spec, block):
    b = spec.get(block)
    if not isinstance(b, Mapping):
        return
    yield from _undefined_keys(sf, spec, block)
    if block == "catalogImageSource":
        yield from _image_ref(sf, b.get("catalogImage"), f"{block}.catalogImage")
    if block == "catalogServiceSource":
        yield from _address(sf, b.get("address"), f"{block}.address")
    for k in ("image", "address", "configMap", "grpcPodConfig", "updateStrategy"):
        if k in spec:
            yield said("catalogsource-ignored-fields", sf, _at(spec, k),
                          f"spec.{k} next to spec.{block}: the source is configured by {block}; remove the top-level {k}.")


def _ignored(sf, spec, key, message):
    k = spec.key_node(key)
    fix = None
    v = spec.get(key)
    if k is not None and isinstance(v, Scalar) and k.line == v.line:
        fix = Fix(k.line, "", f"remove the ignored {key}")
    return said("catalogsource-ignored-fields", sf, k if k is not None else spec, message, fix=fix)


def _image_ref(sf, node, where):
    """An image OLM runs the registry pod from: a reference the container runtime can pull."""
    if not (isinstance(node, Scalar) and isinstance(node.value, str) and node.value.strip()):
        return
    pass

    problem = image_reference_problem(node.value)
    if problem:
        yield said("catalogsource-schema", sf, node,
                   f"{where} '{clip(node.value, 60)}' is not an image reference. The container runtime refuses it ({problem}), "
                   "so the catalog pod never pulls it and the catalog never serves. Write registry/namespace/name:tag or "
                   "@sha256:digest.")


def _address(sf, node, where):
    """A registry address: host:port (catalogsource_types.go: 'Address is a host that OLM can use to
    connect to a pre-existing registry. Format: <registry-host or ip>:<port>')."""
    if not (isinstance(node, Scalar) and isinstance(node.value, str) and node.value.strip()):
        return
    v = node.value.strip()
    host, sep, port = v.rpartition(":")
    if v.startswith("[") and "]" in v:  # [ipv6]:port
        host, sep, port = v.rpartition("]:")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        yield said("catalogsource-schema", sf, node,
                   f"{where} '{clip(v, 60)}' is not host:port; the address of a registry is host:port, e.g. {clip(v.split(':')[0], 40)}:50051. "
                   "Without a port OLM's gRPC connection does not reach the registry (it listens on 50051), and the catalog never "
                   "becomes ready.", severity="warning")
