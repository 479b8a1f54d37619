"""
What: the label closes the range (`v4.6-v4.8`), but a cluster that installed this bundle
can upgrade to a later release where an API it uses is removed, because no
maxOpenShiftVersion stops the upgrade (or it is set at or above that release). An
`alm-examples` object is a warning (the console's create form) and an owned CRD's
`resources` entry info (the console lists the kind at the version it knows); a removal
known only for an upcoming release is a warning.

Why: the label decides which catalogs list the bundle, not where it runs: once installed,
the operator stays while the cluster upgrades — and breaks there.

Refused by: the cluster upgrade itself — OLM blocks it only with a maxOpenShiftVersion
below the removal (operator-lifecycle-manager, pkg/controller/operators/openshift/helpers.go).
operator-framework/api's community validator (now run by the external
ocp-olm-catalog-validator, not by operator-sdk) asks for the same maxOpenShiftVersion for
the Kubernetes 1.22 removals.

Fix: migrate to the replacement API; or set maxOpenShiftVersion to the release before the
removal (metadata/properties.yaml: `properties: [{type: olm.maxOpenShiftVersion, value: "4.8"}]`).
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import vstr
from .. import define, refusal
from ..lib.versions_apis import api_range, uses
from ..lib.versions_common import OLM_MAX

RULE = define("removed-api-on-upgrade", "A cluster can upgrade into a release that removed an API the bundle uses",
              __doc__, category="version", refused_by=[
    refusal("cluster-upgrade", "with no maxOpenShiftVersion below the removal, OLM lets the cluster upgrade into the release whose "
            "API server no longer serves the API, and the installed operator breaks there",
            OLM_MAX),
])


@RULE.check
def removed_api_on_upgrade(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    table = ctx.ocp
    ar = api_range(bundle, table)
    if ar is None:
        return
    upper, mx = ar.upper, ar.mx
    if upper is None:
        return
    for u in uses(bundle, ctx.apis):
        e = u.entry
        if e is None or e.removed is None:
            continue
        gone = [r for r in ar.rng if r.kube_key >= e.removed]
        first_rm = table.first_with_kube(e.removed)
        if not gone and first_rm is not None and first_rm.key > upper and (mx is None or first_rm.key <= mx):
            reach = [r for r in table.releases if r.key >= first_rm.key and (mx is None or r.key <= mx)]
            before = next((r for r in reversed(table.releases) if r.key < first_rm.key), None)
            # the owned CRD's resources entry and alm-examples only inform the console; an
            # upcoming release's removal is a warning
            kind = "" if first_rm.ga and u.where == "manifest" else u.where if u.where != "manifest" else "upcoming"
            verb = "can upgrade" if first_rm.ga else "will be able to upgrade"
            yield RULE.at(u.file, u.node,
                          f"{u.what} is removed in OpenShift {first_rm.label()}, which clusters from the {vstr(upper)} catalog {verb} to",
                          kind=kind, ocp=reach,
                          detail=f"Installed from the {vstr(upper)} catalog, a cluster {verb} to OpenShift {first_rm.label()} "
                          f"(Kubernetes {first_rm.kube}), where "
                          f"{'the operator breaks' if u.where == 'manifest' else 'the console lists the kind at the version it knows (nothing breaks)' if u.where == 'resources' else 'the console cannot use it'}"
                          f"{f' (maxOpenShiftVersion {vi.max_ocp} does not stop it)' if mx else ' (no maxOpenShiftVersion stops the upgrade)'}. "
                          f"Migrate to {e.use}; or set maxOpenShiftVersion to \"{before.ocp if before else vstr(upper)}\" in metadata/properties.yaml "
                          f"(properties: [{{type: olm.maxOpenShiftVersion, value: \"{before.ocp if before else vstr(upper)}\"}}]).")
