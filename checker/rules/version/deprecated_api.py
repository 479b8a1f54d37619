"""
What: an API version deprecated (still served) in a release of the range, or one whose
removal is known only for an upcoming release. Info when every release of the range still
serves it and the bundle's maxOpenShiftVersion stops clusters before the removal.

Why: it will be removed; the message says when.

Fix: move to the replacement API the message names.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import vstr
from .. import define
from ..lib.versions_apis import api_range, uses
from ..lib.versions_common import rels

RULE = define("deprecated-api", "The bundle uses a deprecated Kubernetes API", __doc__, category="version")


@RULE.check
def deprecated_api(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    table = ctx.ocp
    ar = api_range(bundle, table)
    if ar is None:
        return
    mx = ar.mx
    for u in uses(bundle, ctx.apis):
        e = u.entry
        if e is None:
            continue
        gone = [r for r in ar.rng if e.removed is not None and r.kube_key >= e.removed]
        if any(r.ga for r in gone):
            continue  # removed-api's
        up_gone = [r for r in gone if not r.ga]
        first_rm = table.first_with_kube(e.removed) if e.removed else None
        if up_gone:
            assert e.removed is not None  # up_gone is empty without it
            yield RULE.at(u.file, u.node,
                          f"{u.what} will be removed in Kubernetes {vstr(e.removed)}, i.e. the upcoming OpenShift {rels(up_gone)} "
                          "that the range includes", ocp=up_gone, detail=f"Use {e.use} instead.")
        elif e.deprecated is not None:
            dep = [r for r in ar.rng if r.kube_key >= e.deprecated]
            if dep:
                # every release in range still serves it: when maxOpenShiftVersion also stops
                # clusters before the removal, the bundle never meets it (info)
                stopped = mx is not None and first_rm is not None and mx < first_rm.key and not vi.explicit_target
                # an .olm-check.yaml apis entry may give `deprecated` without `removed`
                removal = (f" and removed in {vstr(e.removed)} (OpenShift {first_rm.ocp if first_rm else '?'})"
                        if e.removed is not None else " (no removal announced)")
                yield RULE.at(u.file, u.node,
                              f"{u.what} is deprecated since Kubernetes {vstr(e.deprecated)}{removal}", kind="stopped" if stopped else "", ocp=dep,
                              detail=f"It is deprecated on OpenShift {rels(dep)}"
                              + (f", and maxOpenShiftVersion {vi.max_ocp} keeps clusters running this bundle from upgrading to "
                                 f"{first_rm.ocp}, so it is served wherever the bundle runs" if stopped and first_rm is not None else "")
                              + f". Use {e.use} instead.")
