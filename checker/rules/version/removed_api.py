"""
What: a manifest (its apiVersion/kind), an owned CRD's `resources` entry, or an
`alm-examples` object uses an API version that the Kubernetes of an OpenShift release in
the bundle's range no longer serves. With no range information at all the range is every
release with a catalog (4.6 and later). The range is where the bundle is published (its
label, or its file-based catalogs), whatever its maxOpenShiftVersion: OLM reads that only
to block cluster upgrades, so a bundle published above its max installs there. RBAC rules are never flagged: they name groups and
resources, not versions. An `alm-examples` object is a warning: the console's "create"
form starts from it. An owned CRD's `resources` entry is info: it only tells the console
which kinds to list on the resource's Resources tab, and the console looks a built-in kind
up by its kind and lists it at the version it knows (openshift/console,
operator-lifecycle-manager's k8s-resource.tsx and `modelFor`), so a stale version there
breaks nothing.

Why: the install fails on those releases ("no matches for kind ... in version ...").

Refused by: the API server of those releases (see the Kubernetes deprecated API migration
guide), so OLM's install plan fails; the community catalog CI's operator-sdk validation.

Fix: move to the replacement API the message names, or close the range before the release.

Bad:  apiVersion: policy/v1beta1 / kind: PodDisruptionBudget with com.redhat.openshift.versions "v4.10"
Good: apiVersion: policy/v1 / kind: PodDisruptionBudget
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import vstr
from .. import define, refusal
from ..lib.versions_apis import api_range, uses
from ..lib.versions_common import API_REMOVED_APIS, K8S_DEPRECATION_GUIDE, max_note, range_note, rels

RULE = define("removed-api", "The bundle uses a Kubernetes API removed in a release it targets",
              __doc__, category="version", refused_by=[
    refusal("api-server", "the Kubernetes API server of that release no longer serves the API version, so OLM's InstallPlan "
            "fails to create the manifest (\"no matches for kind\")",
            K8S_DEPRECATION_GUIDE),
    refusal("catalog-ci", "operator-sdk's deprecated-API validator, run by the community CI against the newest release's "
            "Kubernetes, fails a manifest using an API removed there",
            API_REMOVED_APIS),
])


@RULE.check
def removed_api(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    table = ctx.ocp
    ar = api_range(bundle, table)
    if ar is None:
        return
    for u in uses(bundle, ctx.apis):
        e = u.entry
        if e is None or e.removed is None:
            continue
        ga_gone = [r for r in ar.rng if r.kube_key >= e.removed and r.ga]
        if not ga_gone:
            continue
        first_rm = table.first_with_kube(e.removed)
        gone_in = f"Kubernetes {vstr(e.removed)} (OpenShift {first_rm.ocp if first_rm else '?'})"
        if u.where == "resources":
            # a hint for the console's Resources tab: it finds a built-in kind by its kind and lists
            # it at the version it knows, so the stale version breaks nothing (info)
            yield RULE.at(u.file, u.node,
                          f"the owned CRD's resources entry names {u.kind} {u.v}, which {gone_in} no longer serves",
                          kind="resources", ocp=ga_gone,
                          detail=f"On OpenShift {rels(ga_gone)}{range_note(vi)} nothing breaks: the entry only tells the "
                          "console which kinds to list on the resource's Resources tab, and the console looks a built-in "
                          f"kind up by its kind, not this version. Update the entry to {e.use}.")
        elif u.where == "alm-examples":
            yield RULE.at(u.file, u.node,
                          f"{u.what} uses an API that {gone_in} no longer serves", kind="alm-examples", ocp=ga_gone,
                          detail=f"On OpenShift {rels(ga_gone)}{range_note(vi)}, the console's 'create' form for it fails. "
                          f"Use {e.use} instead.")
        else:
            yield RULE.at(u.file, u.node,
                          f"{u.what} is removed in {gone_in}, so it cannot install on OpenShift {rels(ga_gone)}",
                          ocp=ga_gone, detail=f"The API server of OpenShift {rels(ga_gone)}{range_note(vi)} no longer "
                          f"serves it{max_note(vi, ga_gone)}. Use {e.use} instead.")
