"""
What: compared with the bundle this one replaces (`spec.replaces`, when that bundle is in
the same repository), for each CRD both ship:
- error: the version the old bundle stores objects in (`storage: true`) is gone from the
  new CRD's `spec.versions`. On every cluster that ran the old bundle that version is in
  the CRD's `status.storedVersions` (the API server records the storage version there).
- warning: a version the old bundle served (but did not store in) is gone without first
  being shipped with `served: false`.

Why: OLM's catalog operator checks the new CRD against the one on the cluster
(`SafeStorageVersionUpgrade`, operator-lifecycle-manager pkg/lib/crd/storage.go): every
version in `status.storedVersions` must still be in the new spec, or it refuses the
update ("risk of data loss ... new CRD removes version ... that is listed as a stored
version on the existing CRD"), the install plan fails and the upgrade is stuck. A
served-only version that vanishes is not refused by anything: clients, manifests and
GitOps repositories still using it break on upgrade, and the documented path is to ship
it with `served: false` first.

Fix: keep the stored version in `spec.versions` (served: false, storage: false) until
stored objects have been migrated to the new storage version and `status.storedVersions`
no longer lists it; ship a served version with `served: false` for a release before
removing it.

Bad:
    # 1.0.0: versions v1alpha1 (served, storage)
    # 1.1.0 (replaces 1.0.0): versions v1 (served, storage) only
Good:
    # 1.1.0: v1alpha1 {served: false, storage: false}, v1 {served: true, storage: true}
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from .. import define, refusal

_OLM = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/"

RULE = define("crd-version-removal", "A CRD version the previous bundle stored in is removed (error), or one it served (warning)", __doc__, category="format", refused_by=[
    refusal("olm-upgrade", "OLM refuses to update a CRD whose new spec lacks a version in the cluster's status.storedVersions "
            "(\"risk of data loss\"); the install plan fails and the upgrade is stuck",
            _OLM + "controller/operators/catalog/step.go"),
])


@RULE.check(scope="repo")
def crd_version_removal(repo: Repository, ctx: Context):
    facts = list(repo.facts)
    by_csv: dict = {}
    for f in facts:
        if f.csv_name:
            by_csv.setdefault(f.csv_name, []).append(f)
    for f in facts:
        if not f.checked or not f.replaces or not f.crds:
            continue
        olds = [g for g in by_csv.get(f.replaces, []) if g is not f
                and (g.operator == f.operator if f.operator else g.package == f.package)]
        if not olds:
            continue
        old = olds[0]
        for name, new in f.crds.items():
            prev = old.crds.get(name)
            if prev is None:
                continue
            listed = set(new.get("versions") or (list(new.get("served") or []) + list(new.get("storage") or [])))
            pos = new.get("pos")
            done = set()
            for v in prev.get("storage") or []:
                if v in listed:
                    continue
                done.add(v)
                fd = RULE.at(pos.path, None,
                             f"the CRD {name} no longer has version {v}, which {old.csv_name} stores objects in",
                             line=pos.line, column=pos.column,
                             detail=f"{old.csv_name} ({old.rel}) has it with storage: true, so on clusters upgrading from it the "
                             "version is in the CRD's storedVersions: OLM refuses to update the CRD (\"risk of data loss\") and the "
                             f"upgrade is stuck. Keep {v} in spec.versions (served: false, storage: false) until stored objects are migrated.")
                fd.bundle = f.rel
                yield fd
            for v in prev.get("served") or []:
                if v in listed or v in done:
                    continue
                fd = RULE.at(pos.path, None,
                             f"the CRD {name} drops version {v}, which {old.csv_name} still serves",
                             kind="served-only", line=pos.line, column=pos.column,
                             detail=f"{old.csv_name} ({old.rel}) does not store objects in it, so OLM lets the upgrade through; "
                             f"clients and manifests using {v} break at once on upgrade. Ship {v} with served: false in this "
                             "release first, and remove it in a later one.")
                fd.bundle = f.rel
                yield fd
