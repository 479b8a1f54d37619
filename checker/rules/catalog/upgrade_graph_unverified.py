"""
What: a bundle that is not in `operators/<name>/<version>/` of a catalog repository (a
bundle directory on its own) declares upgrade edges (`spec.replaces`, `spec.skips`,
`olm.skipRange`). olm-check has no other bundle of its operator to compare them with, so
`replaces-missing`, `dangling-bundle` and `upgrade-graph-loop` cannot be decided: it
says so here, once per bundle, instead of guessing. Information only: nothing refuses it.

Why: a bundle is checked with its operator around it (the operator's other bundles, its
ci.yaml and catalogs), found by walking up to `operators/<name>/`; without one, a missing
replaced bundle or a loop would go unnoticed until the catalog is built.

Fix: nothing to fix in the bundle; check it inside its catalog repository (its directory
at `operators/<name>/<version>/`) to have its upgrade graph checked.

Bad:
    bundle/manifests/foo.clusterserviceversion.yaml (no operators/foo/ around it):
      replaces: foo.v1.0.0
Good:
    operators/foo/1.1.0/manifests/foo.clusterserviceversion.yaml:
      replaces: foo.v1.0.0
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...versions import clip
from .. import define

RULE = define("upgrade-graph-unverified", "A bundle checked without its operator: its upgrade edges are not verified", __doc__,
              category="catalog")


@RULE.check(scope="repo")
def upgrade_graph_unverified(repo: Repository, ctx: Context):
    for f in repo.facts:
        if not f.checked or f.operator is not None:
            continue
        edges = ([f"spec.replaces {f.replaces}"] if f.replaces else []) + \
                ([f"spec.skips {', '.join(n for n, _p in f.skips)}"] if f.skips else []) + \
                ([f"olm.skipRange '{f.skip_range}'"] if f.skip_range else [])
        if not edges:
            continue
        p = f.replaces_pos if f.replaces else (f.skips[0][1] if f.skips else f.skip_range_pos)
        path, line, col = (p.path, p.line, p.column) if p else (f.rel, 1, 1)
        listed = "; ".join(edges)
        yield RULE.at(path, None,
                      f"the upgrade edges of this bundle ({clip(listed, 70)}) are not verified: it is checked without its operator",
                      line=line, column=col,
                      detail=f"{'Its upgrade edges: ' + listed + '. ' if len(listed) > 70 else ''}The bundle is checked on its own, "
                      "not in operators/<name>/<version>/ of a catalog repository, so its edges are not compared with other bundles "
                      "of its operator: whether the bundles they name exist, and whether the graph dangles or loops, is not verified. "
                      "Check it at operators/<name>/<version>/ of its catalog repository to have them checked.")
