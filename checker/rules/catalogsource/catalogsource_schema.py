"""
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
"""
from __future__ import annotations

from functools import lru_cache

from ...context import Context
from ...model import Repository
from ...nodes import Mapping, Scalar, Sequence, to_py
from ...upstream.docker_reference import image_reference_problem
from ...versions import clip
from .. import default_detail, define, refusal
from ..lib.catalogsource import BLOCK_FIELDS, BLOCKS, CS_CRD, KNOWN_SPEC, OVERRIDE_FIELDS, catalog_sources, is_set, source_of
from ..lib.tables import table

RULE = define("catalogsource-schema", "A CatalogSource value has the wrong shape", __doc__, category="catalogsource", refused_by=[
                  refusal("api-server", "the CatalogSource CRD's schema: spec required, priority an integer, icon with "
                          "base64data and mediatype, memoryTarget a quantity, securityContextConfig legacy or restricted, "
                          "extractContent with catalogDir", CS_CRD),
              ])
WHY = default_detail(RULE.id)
_RENAMED = {"image": "catalogImage", "grpcPodConfig": "podSpecOverrides"}


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator

    return Draft202012Validator(table("catalogsource.schema.json"))


@RULE.check(scope="repo")
def catalogsource_schema(repo: Repository, ctx: Context):
    for sf, root, spec in catalog_sources(repo):
        if spec is None:
            yield RULE.at(sf, root, "the CatalogSource has no spec",
                          detail="The API server requires one with a source (sourceType: grpc and image, for example).")
            continue
        if not isinstance(spec, Mapping):
            yield RULE.at(sf, spec, f"spec must be a mapping (sourceType, image or configMap, ...), not {spec.type_name()}",
                          detail="The API server rejects the object.")
            continue
        yield from _shapes(sf, spec)
        yield from _source_values(sf, spec)


def _shapes(sf, spec):
    data = to_py(spec)
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        node = _node_at(spec, list(err.absolute_path))
        sch = err.schema if isinstance(err.schema, dict) else {}
        # the schema's x-message says what is wrong, its x-detail (when it has one) why
        tail = ""
        if err.validator == "required":
            missing = err.message.split("'")[1] if "'" in err.message else "a required field"
            what, why = sch.get("x-message") or f"'{missing}' is required here", sch.get("x-detail")
            tail = f" (missing: {missing})"
        else:
            src = sch if sch.get("x-message") is not None else (_parent_schema(err) or {})
            what, why = src.get("x-message"), src.get("x-detail")
            if what is None:
                what = err.message
        if isinstance(node, Scalar) and err.validator != "required":
            tail += f" (found {node.type_name()}: {node.raw})" if node.raw not in ("", None) else f" (found {node.type_name()})"
        elif node is not None and err.validator == "type":
            tail += f" (found {node.type_name()})"
        # a polling interval the API server accepts (any string) and OLM replaces by its default
        kind = "poll-interval" if list(err.absolute_path)[-2:] == ["registryPoll", "interval"] and err.validator != "type" else ""
        where = _where(err.absolute_path)
        tok = what.split(" ", 1)[0]
        message = where + what[len(tok):] if tok and (where == tok or where.endswith("." + tok)) else f"{where}: {what}"
        if why:
            yield RULE.at(sf, node, message, detail=f"{why}{tail}.", kind=kind)
        else:
            yield RULE.at(sf, node, f"{message}{tail}", detail=WHY, kind=kind)
    for k, _v in spec.items():
        kv = k.value if isinstance(k, Scalar) else None
        if kv not in KNOWN_SPEC:
            yield RULE.at(sf, k, f"spec.{kv} is not a CatalogSource field",
                          detail="The API server drops unknown fields, so it has no effect. Check the spelling (fields: "
                          f"{', '.join(sorted(KNOWN_SPEC - set(BLOCKS)))}).", kind="unknown-field")


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


def _source_values(sf, spec):
    """The values of the source the spec configures: the keys of the proposal's block, the
    image and the address."""
    src = source_of(spec)
    if src.shape == "block":
        block = src.blocks[0]
        b = spec.get(block)
        if not isinstance(b, Mapping):
            return
        yield from _undefined_keys(sf, b, block)
        if block == "catalogImageSource":
            yield from _image_ref(sf, b.get("catalogImage"), f"{block}.catalogImage")
        if block == "catalogServiceSource":
            yield from _address(sf, b.get("address"), f"{block}.address")
    elif src.shape == "grpc":
        img, addr = spec.get("image"), spec.get("address")
        if is_set(img):
            yield from _image_ref(sf, img, "spec.image")
        elif is_set(addr):
            yield from _address(sf, addr, "spec.address")


def _undefined_keys(sf, b, block):
    """Keys of a proposal block (and of its podSpecOverrides) the proposal does not define."""
    known = BLOCK_FIELDS[block]
    for k, _v in b.items():
        kv = k.value if isinstance(k, Scalar) else None
        if kv in known:
            continue
        hint = f" (its name there is {_RENAMED[kv]})" if block == "catalogImageSource" and kv in _RENAMED else ""
        yield RULE.at(sf, k, f"{block}.{kv} is not in the proposal{hint}",
                      detail=f"The catalogsource-spec-update proposal's {block} has {', '.join(known)}; its schema would "
                      "drop any other key, so this one has no effect.", kind="not-in-proposal")
    po = b.get("podSpecOverrides") if block == "catalogImageSource" else None
    if isinstance(po, Mapping):
        for k, _v in po.items():
            kv = k.value if isinstance(k, Scalar) else None
            if kv not in OVERRIDE_FIELDS:
                yield RULE.at(sf, k, f"podSpecOverrides.{kv} is not in the proposal",
                              detail=f"The proposal's podSpecOverrides has {', '.join(OVERRIDE_FIELDS)}; its schema would "
                              "drop any other key, so this one has no effect.", kind="not-in-proposal")


def _image_ref(sf, node, where):
    """An image OLM runs the registry pod from: a reference the container runtime can pull."""
    if not (isinstance(node, Scalar) and isinstance(node.value, str) and node.value.strip()):
        return
    problem = image_reference_problem(node.value)
    if problem:
        yield RULE.at(sf, node, f"{where} '{clip(node.value, 60)}' is not an image reference",
                      detail=f"The container runtime refuses it ({problem}), so the catalog pod never pulls it and the "
                      "catalog never serves. Write registry/namespace/name:tag or @sha256:digest.")


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
        yield RULE.at(sf, node, f"{where} '{clip(v, 60)}' is not host:port",
                      detail=f"The address of a registry is host:port, e.g. {clip(v.split(':')[0], 40)}:50051. Without a "
                      "port OLM's gRPC connection does not reach the registry (it listens on 50051), and the catalog "
                      "never becomes ready.", kind="address-no-port")
