"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...nodes import Mapping
from .. import define
from ..lib.catalogsource import LEGACY_SOURCE_FIELDS, catalog_sources, key_at, new_equivalent, source_of

RULE = define("catalogsource-deprecated-fields", "With catalogsource_schema: proposed, legacy top-level source fields",
              __doc__, category="catalogsource")


@RULE.check(scope="repo")
def catalogsource_deprecated_fields(repo: Repository, ctx: Context):
    if ctx.config.catalogsource_schema != "proposed":
        return
    for sf, _root, spec in catalog_sources(repo):
        if not isinstance(spec, Mapping):
            continue
        src = source_of(spec)
        if src.shape not in ("grpc", "configmap"):
            continue  # the proposal's blocks, or no source OLM knows: catalogsource-source says which
        first = next((k for k in LEGACY_SOURCE_FIELDS if k in spec), "sourceType")
        yield RULE.at(sf, key_at(spec, first),
                      f"the top-level source fields ({', '.join(k for k in LEGACY_SOURCE_FIELDS if k in spec)}) are "
                      "legacy under catalogsource_schema: proposed",
                      detail=f"Write instead: {new_equivalent(spec, src.st)}.")
