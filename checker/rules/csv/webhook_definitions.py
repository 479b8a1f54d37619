"""
What: each entry of `spec.webhookdefinitions` must have a `type` of
ValidatingAdmissionWebhook, MutatingAdmissionWebhook or ConversionWebhook, a unique
`generateName`, and a `deploymentName` that is one of the CSV's deployments. Its rules
must not cover all API groups (`*`), the OLM group `operators.coreos.com`, or, in group
`admissionregistration.k8s.io`, the resources `*`, `MutatingWebhookConfiguration` or
`ValidatingWebhookConfiguration` (OLM compares these literally). The real resource names
`mutatingwebhookconfigurations` / `validatingwebhookconfigurations` pass OLM's check but
are still a warning: such a webhook polices the cluster's webhook configurations.
A ConversionWebhook must list `conversionCRDs`, each an owned CRD whose manifest does not
preserve unknown fields (an `apiextensions.k8s.io/v1beta1` CRD without
`preserveUnknownFields: false` preserves them by default), and the CSV must support the
AllNamespaces install mode and no other. Two conversion webhooks for one CRD are a
warning: a CRD has one conversion webhook, and OLM, which refuses nothing there, writes
each into the CRD in turn, so only the last is called.

Why: OLM fails the CSV on a repeated generateName and on these rules ("webhook rules
cannot include all groups"...), never finishes a webhook whose deployment does not exist
(the CSV loops back to Pending), and refuses conversion webhooks on CRDs it does not own,
that preserve unknown fields, or in operators that are not cluster-wide singletons.

Refused by: OLM's install code (the CSV fails or never succeeds) and, for the shape of the
list and its `type` and `generateName`, the API server (the CSV CRD's schema). The real
resource names of webhook configurations are only a warning: OLM accepts them.

Fix: give the field OLM accepts, as the message says.

Bad:
    webhookdefinitions:
      - type: ValidatingAdmissionWebhook
        generateName: vwidget.example.com
        deploymentName: webhook-server     # not a CSV deployment
        rules:
          - apiGroups: ["*"]
Good:
    webhookdefinitions:
      - type: ValidatingAdmissionWebhook
        generateName: vwidget.example.com
        deploymentName: example-operator
        rules:
          - apiGroups: ["example.com"]
            apiVersions: ["v1"]
            operations: ["CREATE", "UPDATE"]
            resources: ["widgets"]
"""
from __future__ import annotations

from ...context import Context

# `webhook-definitions`: the CSV's `spec.webhookdefinitions` as OLM installs them.
#
# Sources: OLM's CSV sync (pkg/controller/operators/olm/operator.go: a repeated generateName or
# rules refused by ``install.ValidWebhookRules`` fail the CSV), pkg/controller/install/webhook.go
# (``ValidWebhookRules``; conversion webhooks: ``isSingletonOperator``, conversionCRDs owned,
# ``crd.Spec.PreserveUnknownFields`` must be false), the CSV CRD's enum for ``type``.
# (`admissionReviewVersions` is checked by `webhook-admission-review-versions`.)
from ...model import Bundle, Manifest
from ...nodes import Mapping, Scalar, Sequence
from ...versions import clip
from .. import define, refusal
from ..lib.csv import csv_spec, deployment_names, install_modes
from ..lib.fixes import fix_value
from ..lib.text import lacking, show, strings, stripped

TYPES = ("ValidatingAdmissionWebhook", "MutatingAdmissionWebhook", "ConversionWebhook")
OLM_GROUP = "operators.coreos.com"
ADMISSION_GROUP = "admissionregistration.k8s.io"
# OLM compares these literally (kind names, not resource names) - pkg/controller/install/webhook.go
OLM_REFUSED_ADMISSION_RESOURCES = ("*", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
REAL_ADMISSION_RESOURCES = ("mutatingwebhookconfigurations", "validatingwebhookconfigurations")

_OLM = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/"


RULE = define("webhook-definitions", "A webhook description OLM refuses or can never finish installing", __doc__, category="csv", refused_by=[
    refusal("olm-install", "OLM fails the CSV on a repeated generateName and on rules covering all groups, the OLM group or "
            "webhook configurations (ValidWebhookRules)", _OLM + "operators/olm/operator.go"),
    refusal("olm-install", "OLM refuses conversion webhooks without conversionCRDs, on CRDs the CSV does not own, on CRDs that "
            "preserve unknown fields, and in CSVs supporting an install mode other than AllNamespaces",
            _OLM + "install/webhook.go"),
    refusal("olm-install", "OLM serves a webhook from its deploymentName's deployment (service and certificate); a name that "
            "is not a CSV deployment never gets them and the CSV does not succeed", _OLM + "install/certresources.go"),
    refusal("api-server", "the ClusterServiceVersion CRD's schema requires webhookdefinitions to be a list of objects with "
            "generateName and a type among ValidatingAdmissionWebhook, MutatingAdmissionWebhook, ConversionWebhook",
            "https://github.com/operator-framework/api/blob/master/crds/operators.coreos.com_clusterserviceversions.yaml"),
])


@RULE.check
def webhook_definitions(bundle: Bundle, ctx: Context):
    cs = csv_spec(bundle)
    if cs is None:
        return
    csv, spec = cs
    sf = csv.file
    whs = spec.get("webhookdefinitions")
    if whs is None or (isinstance(whs, Scalar) and whs.value is None):
        return
    if not isinstance(whs, Sequence):
        yield RULE.at(sf, whs, f"spec.webhookdefinitions is {whs.type_name()}, not a list of webhook descriptions", detail="The API server rejects the CSV.")
        return
    deps = deployment_names(spec)
    seen_names: dict[str, int] = {}
    owned = _owned_crd_names(spec)
    crds: dict[str, Manifest] = {}
    for m in bundle.crds:
        if m.name:
            crds.setdefault(m.name, m)
    modes_checked = False
    converted: dict[str, tuple[str, int]] = {}  # CRD name -> (the conversion webhook's label, its line)
    for wh in whs:
        if not isinstance(wh, Mapping):
            yield RULE.at(sf, wh, f"this webhook description is {wh.type_name()}, not a mapping (type, generateName, deploymentName, rules, ...)", detail="The API server rejects the CSV.")
            continue
        gn_node = wh.get("generateName")
        gn = stripped(gn_node)
        label = clip(gn or "(no generateName)")
        # type
        t_node = wh.get("type")
        wtype = stripped(t_node)
        if t_node is None:
            yield RULE.at(sf, wh, f"webhook '{label}' has no type",
                          detail=f"The API server rejects the CSV. Set type to one of {', '.join(TYPES)}.")
        elif wtype not in TYPES:
            close = [t for t in TYPES if wtype and t.lower() == wtype.lower()]
            hint = f" (letter case: write '{close[0]}')" if close else ""
            fix = fix_value(sf, t_node, close[0], f"type: {close[0]}") if close else None
            yield RULE.at(sf, t_node, f"webhook '{label}' has type {show(t_node)}, not a webhook type{hint}", fix=fix, detail=f"The type must be one of {', '.join(TYPES)}; the API server rejects the CSV.")
        # generateName: required and unique
        if gn is None:
            yield RULE.at(sf, wh if gn_node is None else gn_node,
                          f"this webhook description has {lacking(gn_node, 'generateName')}",
                          detail="The field is required (OLM names the webhook configuration and its Service after it) and the API "
                          "server rejects the CSV. Add a unique generateName, e.g. vwidget.kb.io.")
        elif gn in seen_names:
            yield RULE.at(sf, gn_node,
                          f"generateName '{label}' is used by an earlier webhook description too (line {seen_names[gn]})",
                          detail="OLM fails the CSV (\"CSV contains repeated WebhookDescription name\"). Give each webhook its own generateName.")
        else:
            seen_names[gn] = gn_node.line
        # deploymentName
        dn_node = wh.get("deploymentName")
        dn = stripped(dn_node)
        if dn is None:
            yield RULE.at(sf, wh if dn_node is None else dn_node,
                          f"webhook '{label}' has {lacking(dn_node, 'deploymentName')}",
                          detail="OLM serves the webhook from that deployment (it mounts the serving certificate into it), so the webhook "
                          f"never works and the CSV does not succeed. Set deploymentName to one of the CSV's deployments ({', '.join(deps) or 'none defined'}).")
        elif dn not in deps:
            yield RULE.at(sf, dn_node,
                          f"deploymentName '{clip(dn)}' of webhook '{label}' is not a deployment of this CSV",
                          detail=f"The CSV's install strategy has {', '.join(deps) or 'no deployment'}; OLM cannot install the webhook's "
                          "certificate and the CSV goes back to Pending over and over. Use one of the CSV's deployment names.")
        # rules (OLM v0 checks the rules of every webhook description, whatever its type)
        yield from _rules(sf, wh, label)
        # conversion webhooks
        if wtype == "ConversionWebhook":
            yield from _conversion(bundle, sf, spec, wh, label, owned, crds, not modes_checked)
            modes_checked = True
            for name, nnode in strings(wh.get("conversionCRDs")):
                if name in converted and converted[name][0] != label:
                    yield RULE.at(sf, nnode,
                                  f"the CRD '{clip(name)}' has a conversion webhook already ('{converted[name][0]}', line {converted[name][1]})",
                                  kind="conversion-repeated",
                                  detail="A CRD has one conversion webhook (spec.conversion.webhook), and the CSV documentation says so "
                                  "(\"There can only be one conversion webhook on the entire cluster for a given CRD\"). OLM refuses "
                                  "nothing: it writes each conversion webhook into the CRD in turn (install/webhook.go "
                                  "createOrUpdateConversionWebhook), so only one of them is ever called. Keep one conversion webhook "
                                  "per CRD.")
                else:
                    converted.setdefault(name, (label, nnode.line))


def _owned_crd_names(spec) -> set:
    crds = spec.get("customresourcedefinitions")
    owned = crds.get("owned") if isinstance(crds, Mapping) else None
    out = set()
    if isinstance(owned, Sequence):
        for e in owned:
            if isinstance(e, Mapping) and stripped(e.get("name")):
                out.add(stripped(e.get("name")))
    return out


def _rules(sf, wh, label):
    rules = wh.get("rules")
    if not isinstance(rules, Sequence):
        return
    for r in rules:
        if not isinstance(r, Mapping):
            continue
        groups = strings(r.get("apiGroups"))
        resources = strings(r.get("resources"))
        for g, gnode in groups:
            if g == "*":
                yield RULE.at(sf, gnode,
                              f"webhook '{label}' has a rule on all API groups ('*')",
                              detail="OLM refuses it (\"webhook rules cannot include all groups\") and fails the CSV, because such a "
                              "webhook could block OLM itself. List the API groups the webhook really handles.")
            elif g == OLM_GROUP:
                yield RULE.at(sf, gnode,
                              f"webhook '{label}' has a rule on the OLM API group {OLM_GROUP}",
                              detail="OLM refuses it (\"webhook rules cannot include the OLM group\") and fails the CSV, so a broken "
                              "webhook can never lock OLM's own objects. Remove this group from the rule.")
            elif g == ADMISSION_GROUP:
                for res, rnode in resources:
                    if res in OLM_REFUSED_ADMISSION_RESOURCES:
                        yield RULE.at(sf, rnode,
                                      f"webhook '{label}' has a rule on '{res}' of {ADMISSION_GROUP}",
                                      detail="OLM refuses it (\"webhook rules cannot include MutatingWebhookConfiguration or "
                                      "ValidatingWebhookConfiguration resources\") and fails the CSV. Remove it from the rule.")
                    elif res.split("/", 1)[0].lower() in REAL_ADMISSION_RESOURCES:
                        yield RULE.at(sf, rnode,
                                      f"webhook '{label}' intercepts '{clip(res)}' of {ADMISSION_GROUP}", kind="webhook-configurations",
                                      detail="OLM only refuses the literal kind names (MutatingWebhookConfiguration...), so it lets this "
                                      "through, but a webhook on webhook configurations can lock administrators out of repairing a broken "
                                      "webhook. Remove it unless the operator truly must police webhook configurations.")


def _conversion(bundle, sf, spec, wh, label, owned, crds, check_modes):
    cnode = wh.get("conversionCRDs")
    names = strings(cnode)
    if not names:
        yield RULE.at(sf, wh if cnode is None else cnode,
                      f"conversion webhook '{label}' lists no conversionCRDs",
                      detail="conversionCRDs is a list of CRD names; OLM refuses a conversion webhook without one (\"conversion webhook "
                      "must have at least one CRD specified\") and the install fails. List the owned CRDs (by metadata.name) whose "
                      "versions this webhook converts.")
    for name, nnode in names:
        if name not in owned:
            yield RULE.at(sf, nnode,
                          f"conversion webhook '{label}' names the CRD '{clip(name)}', which the CSV does not own",
                          detail=f"OLM refuses it (\"csv ... does not own CRD {name}\") and the install fails. Convert only owned CRDs "
                          "(spec.customresourcedefinitions.owned), by their metadata.name.")
            continue
        crd = crds.get(name)
        if crd is None:
            continue  # owned-crd-missing reports it
        cspec = crd.spec()
        if cspec is None:
            continue
        puf = cspec.get("preserveUnknownFields")
        if isinstance(puf, Scalar) and puf.value is True:
            yield RULE.at(crd.file, puf,
                          f"the CRD '{clip(name)}' sets preserveUnknownFields: true, but it is converted by the webhook '{label}'",
                          detail="OLM refuses it (\"PreserveUnknownFields must be false to let API Server call webhook to do the "
                          "conversion\") and the install fails. Set preserveUnknownFields: false (and give every version a structural schema).")
        elif puf is None and crd.api_version == "apiextensions.k8s.io/v1beta1":
            yield RULE.at(crd.file, cspec,
                          f"the v1beta1 CRD '{clip(name)}', converted by the webhook '{label}', does not set preserveUnknownFields: false",
                          detail="An apiextensions.k8s.io/v1beta1 CRD without preserveUnknownFields defaults it to true, and OLM refuses "
                          "that for a converted CRD (\"PreserveUnknownFields must be false...\"). Add preserveUnknownFields: false under "
                          "spec, or better, move the CRD to apiextensions.k8s.io/v1.")
    if not check_modes:
        return
    modes = install_modes(spec)
    if modes is None:
        return  # install-modes reports it
    others = [(t, node) for t, (sup, node) in modes.items() if sup and t != "AllNamespaces"]
    all_ns = modes.get("AllNamespaces")
    if all_ns is not None and not all_ns[0]:
        yield RULE.at(sf, all_ns[1],
                      f"the CSV has a conversion webhook ('{label}') but does not support AllNamespaces",
                      detail="OLM installs conversion webhooks only for operators that support AllNamespaces and nothing else (a "
                      "CRD's conversion is cluster-wide), and the install fails. Support AllNamespaces only.")
    for t, node in others:
        yield RULE.at(sf, node,
                      f"the CSV has a conversion webhook ('{label}') and supports the {t} install mode",
                      detail="OLM refuses that (\"CSVs with conversion webhooks must support only AllNamespaces\") because a CRD's "
                      f"conversion is cluster-wide. Set supported: false for {t}.")

