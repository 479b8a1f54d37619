"""
What: an API version that appeared in a Kubernetes release newer than the one of the
range's first release (e.g. `policy/v1` PodDisruptionBudget, Kubernetes 1.21, with a label
starting at 4.7 / Kubernetes 1.20). Releases before 4.6 (no per-release catalog) are not
counted; a bundle without a range is not reported. A warning when the releases come from a
ci.yaml catalog_mapping whose templates target different catalogs (see
`min-kube-version-range`).

Why: the bundle cannot install on its oldest declared releases.

Refused by: the API server of those releases (the API version is not served yet).

Fix: raise the label's lower bound to the first release that serves the API, or use the
older API version there.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import vstr
from .. import define, refusal
from ..lib.versions_apis import api_range, uses
from ..lib.versions_common import K8S_DEPRECATION_GUIDE, rels, uncertain, uncertain_note

RULE = define("api-not-yet-available", "The bundle uses an API version that does not exist yet at the start of its range",
              __doc__, category="version", refused_by=[
    refusal("api-server", "the API server of those releases does not serve the API version yet, so OLM's InstallPlan fails to "
            "create the manifest",
            K8S_DEPRECATION_GUIDE),
])


@RULE.check
def api_not_yet_available(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    table = ctx.ocp
    ar = api_range(bundle, table)
    if ar is None or vi.publication_source == "all-known":
        return
    lo = ar.lo
    for u in uses(bundle, ctx.apis):
        if u.g is None:
            continue
        intro = ctx.apis.introduced_in(u.g, u.v, u.kind)
        early = [r for r in ar.rng if intro is not None and r.kube_key < intro.since]
        if not vi.explicit_target:
            early = table.with_catalog(early)  # 4.1-4.5 had no per-release catalog: not reported
        if early:
            assert intro is not None  # early is empty without it
            first_ok = table.first_with_kube(intro.since)
            yield RULE.at(u.file, u.node,
                          f"{u.what} exists only from Kubernetes {vstr(intro.since)} (OpenShift {first_ok.ocp if first_ok else '?'}), "
                          f"so the bundle cannot install on {rels(early)}", kind="uncertain" if uncertain(bundle) else "", ocp=early,
                          detail=f"The range starts at OpenShift {lo.ocp} (Kubernetes {lo.kube}). Start the range at "
                          f"{first_ok.ocp if first_ok else 'a newer release'}, or use the older API version there"
                          f"{uncertain_note(bundle)}.")
