"""
What: fields the CSV documentation requires, by consequence.
Errors (OLM, the console or catalog CI cannot do without them): `metadata.name`,
`spec.version`, `spec.displayName`, `spec.description`, `spec.provider.name`,
`spec.maintainers` (at least one), the install strategy (`spec.install` with
`strategy: deployment` and at least one deployment), `spec.installModes`; in the
`community` and `operatorhub` profiles also `spec.icon` and `spec.links` (the catalogs'
CI fails without them); in the `certified` profile also the annotations Red Hat's
certification requires (`categories`, `description`, `containerImage`, `createdAt`,
`support`, `operators.openshift.io/valid-subscription`).
Warnings (documented as required, but nothing refuses the bundle): `spec.keywords` and
the `capabilities` annotation. `spec.labels`, also documented as required but read by
nothing and absent from 87% of the community catalog's bundles, is `info`.
`maturity`, `replaces` and `selector` are optional. An empty value (`""`, `[]`) counts as
missing. A value that is there but malformed is `csv-metadata-format`. A catalog that
does not want a documented-only field can name it in `.olm-check.yaml`:
`options: {csv-required-fields: {optional: [spec.labels, spec.keywords, capabilities]}}`.

Why: OLM cannot install a CSV without its install strategy or install modes; the console
shows the name, description, provider and maintainers on the OperatorHub tile and page.
Refused by: the API server (the CSV CRD requires spec.displayName and spec.install),
the community catalog CI (`check_required_fields`, and operator-sdk's validator for
installModes), OLM (no install strategy) and, in `certified`, Red Hat certification. A
`spec` that is null or not a mapping is one error at the `spec` key naming them all.

Fix: add the field (the finding's detail gives the expected shape).

Bad:
    spec:
      version: 1.0.0
      install: {strategy: deployment, spec: {deployments: [...]}}
Good:
    spec:
      displayName: My Operator
      description: Deploys and manages My Application on Kubernetes.
      version: 1.0.0
      provider: {name: Example Inc.}
      maintainers: [{name: Example Team, email: team@example.com}]
      installModes: [{type: AllNamespaces, supported: true}]
      install: {strategy: deployment, spec: {deployments: [...]}}
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.csv_metadata import CSV_CRD, CSV_GO, PIPE_COMMUNITY
from ..lib.text import is_blank, mapping, shown, text

RULE = define("csv-required-fields",
              "A field the CSV documentation requires is missing (error when OLM, the console or catalog CI needs it)", __doc__,
              category="csv", refused_by=[
          refusal("api-server", "the ClusterServiceVersion CRD requires metadata, spec, spec.displayName and spec.install; "
                  "every object needs metadata.name", CSV_CRD),
          refusal("catalog-ci", "check_required_fields fails a CSV without spec.displayName, description, icon, version, "
                  "maintainers, provider.name or links", PIPE_COMMUNITY),
          refusal("catalog-ci", "operator-sdk bundle validate (operator-framework/api's CSV validator) fails a CSV without "
                  "installModes or without the install strategy's required fields", CSV_GO),
          refusal("olm-install", "OLM installs nothing without an install strategy with deployments",
                  "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/install/resolver.go"),
          refusal("certification", "Red Hat certification requires the categories, description, containerImage, createdAt, "
                  "support and operators.openshift.io/valid-subscription annotations (certified profile)",
                  "https://docs.redhat.com/en/documentation/red_hat_software_certification/2026/plan-operator_requirements"),
      ])


@RULE.check
def csv_required_fields(bundle: Bundle, ctx: Context):
    optional = {str(x) for x in (ctx.option("csv-required-fields", "optional") or [])}
    for field_name, f in _required(bundle, ctx):
        if f is not None and field_name not in optional:
            yield f


def _required(bundle: Bundle, ctx):
    """(the missing field's name as ``options: {csv-required-fields: {optional: [...]}}`` names
    it, e.g. "spec.labels" or "capabilities", or None for a malformed value; the finding)."""
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    root = csv.root
    assert isinstance(root, Mapping)  # the_csv's CSV is a mapping
    md = csv.metadata

    def missing(parent, value, what, why, how, kind, name=None):
        # the finding at the value when the key is there but blank ("is empty"), else at its
        # parent ("is missing"); name: the field as the optional option names it (what, unless
        # what says more); kind: which gates refuse it (verdicts.yaml: community-operators'
        # check_required_fields, OLM's install, Red Hat's certification documentation, ...)
        node, state = (parent, "missing") if value is None else (value, "empty")
        return (name or what, RULE.at(sf, node, f"{what} is {state}.", kind=kind,
                                      detail=f"{why[:1].upper()}{why[1:]}. {how}"))

    if md is not None and md.get("name") is None and md.get("generateName") is not None:
        yield missing(md, None, "metadata.name", "OLM identifies the CSV, its upgrade edges and everything it installs by it "
                      "(generateName is not enough)", "Add 'name: <package>.v<version>'.", "crd")
    spn = root.get("spec")
    if spn is None:
        yield None, RULE.at(sf, root, "the CSV has no spec.", kind="crd",
                            detail="The API server refuses a CSV without spec.displayName and spec.install, and OLM has no "
                            "version, install strategy or install modes to work with. Add spec (operator-sdk generate "
                            "bundle writes it).")
        return
    sp = mapping(spn)
    if sp is None:
        # null, a scalar or a list: every required field is missing (manifest-invalid reports the type at the value)
        what = "empty (null)" if isinstance(spn, Scalar) and spn.value is None else spn.type_name()
        needed = ["version", "displayName", "description", "provider.name", "maintainers", "install", "installModes", "icon", "links"]
        yield None, RULE.at(sf, root.key_node("spec") or spn,
                            f"spec is {what}, so the CSV has none of the fields it requires.", kind="crd",
                            detail=f"It requires {', '.join('spec.' + n for n in needed)}; the API server refuses a CSV "
                            "without spec.displayName and spec.install, and OLM has nothing to install. Write spec as a "
                            "mapping with these fields (operator-sdk generate bundle writes it).")
        return

    def need(key, what, why, how, kind="community"):
        v = sp.get(key)
        if is_blank(v):
            return missing(sp, v, what, why, how, kind)
        return None, None

    checks = [
        ("version", "spec.version", "OLM orders bundles and resolves upgrades by it", "Add 'version: 1.2.3' (a semantic version)."),
        ("displayName", "spec.displayName", "the console and OperatorHub show it as the operator's name, and catalog CI fails without it",
         "Add 'displayName: <Product> Operator' (3 to 50 characters)."),
        ("description", "spec.description", "the console's operator page shows it, and catalog CI fails without it",
         "Add a description (Markdown, at least 20 characters) of what the operator manages and how to use it."),
        ("maintainers", "spec.maintainers", "users and catalog maintainers need someone to contact, and catalog CI fails without it",
         "Add 'maintainers: [{name: <team>, email: <address>}]'."),
        ("installModes", "spec.installModes", "OLM cannot tell which OperatorGroups the operator supports and refuses to install it",
         "Add the four install modes with 'supported: true/false', e.g. '- {type: AllNamespaces, supported: true}'."),
    ]
    for key, what, why, how in checks:
        if key == "installModes" and isinstance(sp.get(key), Sequence):
            continue  # an empty list is install-modes' finding
        f = need(key, what, why, how, {"installModes": "install", "displayName": "crd", "version": "hub"}.get(key, "community"))
        if f[1]:
            yield f
    prov = sp.get("provider")
    if is_blank(prov):
        yield missing(sp, prov, "spec.provider", "the console shows who provides the operator, and catalog CI fails without it",
                      "Add 'provider: {name: <company or project>}'.", "hub")
    elif isinstance(prov, Mapping) and is_blank(prov.get("name")):
        pn = prov.get("name")
        yield missing(prov, pn, "spec.provider.name", "the console shows who provides the operator, and catalog CI fails without it",
                      "Add 'name: <company or project>' under provider.", "hub")
    inst = sp.get("install")
    if is_blank(inst):
        yield missing(sp, inst, "spec.install (the install strategy)", "OLM has no deployment to create",
                      "Add 'install: {strategy: deployment, spec: {deployments: [...], permissions: [...]}}'.", "install", name="spec.install")
    elif not isinstance(inst, Mapping):
        yield None, RULE.at(sf, inst, f"spec.install is {inst.type_name()}, not a mapping with 'strategy: deployment' and "
                            "'spec.deployments'.", kind="install",
                            detail="OLM cannot install the operator. Write 'install: {strategy: deployment, spec: "
                            "{deployments: [...], permissions: [...]}}'.")
    else:
        st = inst.get("strategy")
        if is_blank(st):
            yield missing(inst, st, "spec.install.strategy", "OLM only knows the 'deployment' strategy and refuses a CSV without one",
                          "Add 'strategy: deployment'.", "install")
        elif text(st) != "deployment":
            yield None, RULE.at(sf, st, f"spec.install.strategy is '{shown(st)}', not 'deployment'.", kind="install",
                                detail="OLM only supports 'deployment' and cannot install anything else. Write 'strategy: deployment'.")
        ispec = inst.get("spec")
        if is_blank(ispec):
            yield missing(inst, ispec, "spec.install.spec", "it holds the deployments and permissions OLM creates",
                          "Add 'spec: {deployments: [...]}' under install.", "install")
        elif not isinstance(ispec, Mapping):
            yield None, RULE.at(sf, ispec, f"spec.install.spec is {ispec.type_name()}, not a mapping with deployments.", kind="install",
                                detail="It holds the deployments and permissions OLM creates. Write 'spec: {deployments: [...]}' "
                                "under install.")
        else:
            deps = ispec.get("deployments")
            if is_blank(deps):
                yield missing(ispec, deps, "spec.install.spec.deployments", "OLM has no operator deployment to create",
                              "Add at least one deployment: '- name: <operator>-controller-manager' with its 'spec'.", "install")
            elif not isinstance(deps, Sequence):
                yield None, RULE.at(sf, deps, f"spec.install.spec.deployments is {deps.type_name()}, not a list of deployments.", kind="install",
                                    detail="OLM has no operator deployment to create. Write a list: '- name: "
                                    "<operator>-controller-manager' with its 'spec'.")
    f = need("icon", "spec.icon", "community-operators' CI (check_required_fields) fails without it and the console shows a "
             "placeholder", "Add 'icon: [{base64data: <base64 of a PNG/SVG>, mediatype: image/png}]'.", "listing")
    if f[1]:
        yield f
    f = need("links", "spec.links", "community-operators' CI (check_required_fields) fails without at least one link",
             "Add 'links: [{name: Documentation, url: https://...}]'.", "listing")
    if f[1]:
        yield f
    f = need("keywords", "spec.keywords", "the documentation requires them and OperatorHub search uses them",
             "Add 'keywords: [<word>, ...]'.", "documented")
    if f[1]:
        yield f
    f = need("labels", "spec.labels", "the CSV documentation lists it as required, though nothing reads it (info: 87% of the "
             "community catalog's bundles have none)", "Add 'labels: {operated-by: <operator>}' if you want to follow the documentation.",
             "labels")
    if f[1]:
        yield f
    ann = csv.annotations()
    anchor = ann if ann is not None else (md if md is not None else root)
    cap = ann.get("capabilities") if ann is not None else None
    if is_blank(cap):
        yield missing(anchor, cap, "the capabilities annotation",
                      "the console shows the operator's capability level from it (and assumes Basic Install without it)",
                      f"Add 'capabilities: Basic Install' (one of {', '.join(data()['capabilities'])}) under metadata.annotations.",
                      "documented", name="capabilities")
    # Red Hat's certification documentation lists these (kind "certification": a warning for the
    # certified targets, not reported elsewhere; no gate reads them)
    for key, why in (("categories", "the Red Hat Ecosystem Catalog files the operator by it"),
                     ("description", "the OperatorHub tile shows this short description"),
                     ("containerImage", "certification records the operator image from it"),
                     ("createdAt", "certification requires the creation time"),
                     ("support", "certification requires the name of the vendor supporting the product"),
                     ("operators.openshift.io/valid-subscription", "certification requires the subscriptions that entitle use")):
        v = ann.get(key) if ann is not None else None
        if is_blank(v):
            yield missing(anchor, v, f"the {key} annotation", why + " (Red Hat's certification documentation lists it; no pipeline or preflight check reads it)",
                          f"Add '{key}: ...' under metadata.annotations.", "certification", name=key)
