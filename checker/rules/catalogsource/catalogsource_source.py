"""
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
"""
from __future__ import annotations

from ...context import Context
from ...finding import Fix
from ...model import Repository
from ...nodes import Mapping, Scalar
from .. import define, refusal
from ..lib.catalogsource import CS_CRD, CS_REGISTRY, catalog_sources, is_set, key_at, source_of

RULE = define("catalogsource-source", "A CatalogSource has no usable source, or more than one", __doc__,
              category="catalogsource", refused_by=[
                  refusal("api-server", "the CatalogSource CRD requires spec.sourceType", CS_CRD),
                  refusal("olm-install", "the catalog operator serves nothing from a CatalogSource without a usable source "
                          "(unknown sourceType, grpc without image or address, configmap without configMap)", CS_REGISTRY),
              ])


@RULE.check(scope="repo")
def catalogsource_source(repo: Repository, ctx: Context):
    proposed = ctx.config.catalogsource_schema == "proposed"
    for sf, _root, spec in catalog_sources(repo):
        if isinstance(spec, Mapping):
            yield from _source(sf, spec, proposed)


def _source(sf, spec, proposed):
    src = source_of(spec)
    blocks, st_node, st = src.blocks, src.st_node, src.st
    if src.shape == "blocks":
        yield RULE.at(sf, key_at(spec, blocks[1]), f"the CatalogSource configures {len(blocks)} sources ({', '.join(blocks)})",
                      detail="A catalog has exactly one source. Keep one block.")
    elif src.shape == "mixed":
        yield RULE.at(sf, key_at(spec, src.legacy_present[0]),
                      f"the CatalogSource configures two sources: spec.{blocks[0]} and the top-level "
                      f"{', '.join(src.legacy_present)}",
                      detail="OLM uses the top-level fields and the proposal would refuse both together. Keep one: "
                      f"{'move them into ' + blocks[0] if proposed else 'remove ' + blocks[0]}.")
    elif src.shape == "untyped":
        guess = "grpc" if is_set(spec.get("image")) or is_set(spec.get("address")) else ("configmap" if is_set(spec.get("configMap")) else "grpc")
        yield RULE.at(sf, spec, "spec.sourceType is missing",
                      detail="today's API requires it (the API server rejects the object) and the catalog operator picks "
                      f"the source from it. Add 'sourceType: {guess}'.")
    elif src.shape == "unknown":
        shown = st_node.raw if isinstance(st_node, Scalar) else st_node.type_name()
        yield RULE.at(sf, st_node, f"sourceType '{shown}' is not a source OLM knows",
                      detail="The catalog operator refuses the CatalogSource. Write 'grpc' (image or address) or 'configmap'.")
    elif src.shape in ("grpc", "configmap"):
        if st == "internal":
            line = sf.line_text(st_node.line)
            fix = Fix(st_node.line, line.replace("internal", "configmap", 1), "use the current name of the source type") if "internal" in line else None
            yield RULE.at(sf, st_node, "sourceType 'internal' is a deprecated alias of 'configmap'",
                          detail="OLM still treats it as configmap, but write 'configmap'.", kind="internal-alias", fix=fix)
        if st == "grpc":
            if not is_set(spec.get("image")) and not is_set(spec.get("address")):
                yield RULE.at(sf, st_node, "sourceType is grpc but neither image nor address is set: OLM has no registry to "
                              "serve the catalog from",
                              detail="Add 'image: <catalog image>' (OLM runs the registry pod) or 'address: <host:port>' "
                              "(a registry you run).")
        elif not is_set(spec.get("configMap")):
            yield RULE.at(sf, st_node, f"sourceType is {st} but configMap is not set: OLM has no ConfigMap to build the "
                          "registry from",
                          detail="Add 'configMap: <ConfigMap name>'.")
