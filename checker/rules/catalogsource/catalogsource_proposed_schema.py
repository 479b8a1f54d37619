"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...nodes import Mapping
from .. import define
from ..lib.catalogsource import BLOCKS, catalog_sources, key_at, legacy_equivalent

RULE = define("catalogsource-proposed-schema", "A CatalogSource uses the provisional proposal's source blocks", __doc__,
              category="catalogsource")


@RULE.check(scope="repo")
def catalogsource_proposed_schema(repo: Repository, ctx: Context):
    if ctx.config.catalogsource_schema == "proposed":
        return
    for sf, _root, spec in catalog_sources(repo):
        if not isinstance(spec, Mapping):
            continue
        for b in BLOCKS:
            if b in spec:
                yield RULE.at(sf, key_at(spec, b), f"spec.{b} is from the provisional catalogsource-spec-update proposal",
                              detail="Clusters serve today's API, which has no such field (the API server drops or rejects "
                              "it, and requires sourceType). Write the equivalent spec instead: "
                              f"{legacy_equivalent(spec, b)}.")
