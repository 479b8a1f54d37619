"""
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
"""
from __future__ import annotations

from ...context import Context
from ...finding import Fix
from ...model import Repository
from ...nodes import Mapping, Scalar
from .. import define
from ..lib.catalogsource import catalog_sources, is_set, key_at, source_of

RULE = define("catalogsource-ignored-fields", "A CatalogSource sets fields the catalog operator ignores for its source",
              __doc__, category="catalogsource")


@RULE.check(scope="repo")
def catalogsource_ignored_fields(repo: Repository, ctx: Context):
    for sf, _root, spec in catalog_sources(repo):
        if isinstance(spec, Mapping):
            yield from _ignored_fields(sf, spec)


def _ignored_fields(sf, spec):
    src = source_of(spec)
    if src.shape == "block":
        block = src.blocks[0]
        if not isinstance(spec.get(block), Mapping):
            return
        for k in ("image", "address", "configMap", "grpcPodConfig", "updateStrategy"):
            if k in spec:
                yield RULE.at(sf, key_at(spec, k), f"spec.{k} next to spec.{block}: the source is configured by {block}",
                              detail=f"Remove the top-level {k}.")
        return
    img, addr = spec.get("image"), spec.get("address")
    if src.shape == "grpc":
        if is_set(img) and "address" in spec:
            yield _ignored(sf, spec, "address", "spec.address is ignored: image is set",
                           "OLM runs a registry pod from the image and never connects to address. Remove address (or "
                           "image, if you meant to use a running registry).")
        if "configMap" in spec:
            yield _ignored(sf, spec, "configMap", "spec.configMap is ignored on a grpc source (only configmap sources read it)",
                           "Remove it, or switch to sourceType: configmap.")
        if not is_set(img) and is_set(addr):
            for k in ("grpcPodConfig", "updateStrategy"):
                if k in spec:
                    yield _ignored(sf, spec, k, f"spec.{k} is ignored: only an address is set",
                                   "OLM then runs no registry pod, so there is nothing to configure or poll. Remove it, or "
                                   "use image.")
    elif src.shape == "configmap":
        for k in ("image", "address"):
            if k in spec:
                yield _ignored(sf, spec, k, f"spec.{k} is ignored on a configmap source (the registry is built from the "
                               "ConfigMap)", "Remove it, or switch to sourceType: grpc.")
        if "updateStrategy" in spec:
            yield _ignored(sf, spec, "updateStrategy", "spec.updateStrategy is ignored on a configmap source: OLM polls "
                           "only grpc sources with an image (a configmap source follows its ConfigMap)", "Remove it.")


def _ignored(sf, spec, key, message, detail):
    k = spec.key_node(key)
    fix = None
    v = spec.get(key)
    if k is not None and isinstance(v, Scalar) and k.line == v.line:
        fix = Fix(k.line, "", f"remove the ignored {key}")
    return RULE.at(sf, k if k is not None else spec, message, detail=detail, fix=fix)
