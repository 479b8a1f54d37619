"""
What: a ServiceAccount object in manifests/ has the same name as the `serviceAccountName`
of a deployment in the CSV's install strategy.

Why: OLM creates and owns the operator's service account itself, from the CSV (with the
permissions and clusterPermissions given to it); a second definition in the bundle is
either a leftover of `make bundle` or a different account by accident, and operator-sdk's
bundle validation ("invalid service account found in bundle"), run by catalog CI,
rejects the bundle.

Fix: delete the ServiceAccount manifest (OLM creates the account), or, if a separate
account was intended, rename one of them.

Bad:
    # manifests/example-operator_v1_serviceaccount.yaml
    apiVersion: v1
    kind: ServiceAccount
    metadata:
      name: example-operator      # also the CSV deployment's serviceAccountName
Good:
    (no ServiceAccount manifest; the CSV's deployment names serviceAccountName: example-operator)
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from ...nodes import Mapping, Scalar, Sequence
from .. import define, refusal

API_BUNDLE = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/bundle.go"

MAX_BUNDLE_SIZE = 1 << 20  # operator-framework/api pkg/validation/internal/bundle.go max_bundle_size
WARN_PERCENT = 0.85  # same file: validateBundleSize warnPercent


def deployment_service_accounts(csv) -> dict:
    """serviceAccountName of each CSV deployment: name -> (deployment name, value node)."""
    out: dict[str, tuple[str, Scalar]] = {}
    spec = csv.spec() if csv is not None else None
    inst = spec.get("install") if spec is not None else None
    ispec = inst.get("spec") if isinstance(inst, Mapping) else None
    deps = ispec.get("deployments") if isinstance(ispec, Mapping) else None
    if not isinstance(deps, Sequence):
        return out
    for d in deps:
        if not isinstance(d, Mapping):
            continue
        tspec = d.get("spec")
        tmpl = tspec.get("template") if isinstance(tspec, Mapping) else None
        pspec = tmpl.get("spec") if isinstance(tmpl, Mapping) else None
        sa = pspec.get("serviceAccountName") if isinstance(pspec, Mapping) else None
        if isinstance(sa, Scalar) and isinstance(sa.value, str) and sa.value:
            out.setdefault(sa.value, (d.str("name") or "?", sa))
    return out


RULE = define("service-account-conflict", "A ServiceAccount manifest duplicates a CSV deployment's service account", __doc__, refused_by=[
    refusal("catalog-ci", "operator-sdk's bundle validation (operator-framework/api validateServiceAccounts) fails "
            "with \"invalid service account found in bundle\"", API_BUNDLE),
], category="format")


@RULE.check
def service_account_conflict(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return
    csv = bundle.csv
    if csv is None:
        return
    accounts = deployment_service_accounts(csv)
    if not accounts:
        return
    for m in bundle.manifests:
        if m.kind != "ServiceAccount" or m.api_version != "v1":
            continue
        name = m.name
        if name not in accounts:
            continue
        dep, node = accounts[name]
        yield RULE.at(m.file, m.metadata.get("name"),
                      f"OLM already creates the ServiceAccount '{name}' for the CSV's deployment '{dep}'",
                      detail=f"OLM creates and owns that account from the CSV ({csv.file.rel}:{node.line}), and "
                      "operator-sdk's bundle validation (run by catalog CI) rejects a bundle that defines it again. Delete "
                      "this manifest, or rename the account here or in the CSV if a separate account was intended.")


