"""ClusterServiceVersion content: names, version, required fields and their format,
capabilities, categories, install modes.

Sources: the OpenShift documentation's CSV fields table (required / optional fields),
operator-framework/api's validators (csv.go, operatorhub.go, good_practices.go), and the
community catalog pipeline's `check_required_fields` (operator-pipelines). Facts live in
checker/data/csv.yaml.
"""
from __future__ import annotations

import base64
import binascii
import difflib
import re
import string
from functools import lru_cache
from typing import Optional
from urllib.parse import urlsplit

from ..blangsemver import is_strict as is_semver
from ..model import Bundle
from ..nodes import Mapping, Scalar, Sequence
from . import finding, refusal, rule
from ..upstream.go_parsers import go_mail_address_error, go_request_uri_error
from ..upstream.k8s_names import DNS1123_SUBDOMAIN
from .lib.csv import data, the_csv
from .lib.fixes import dq, fix_value
from .lib.text import clip, is_blank, mapping, shown, text

# ---------------------------------------------------------------------------------------
# names and version


def _name_problem(s: str) -> Optional[tuple]:
    """(what is wrong, in a few words; why it is wrong, a sentence) for a CSV name, or None."""
    if len(s) > 63:
        return (f"is {len(s)} characters long, more than 63",
                "OLM also uses the CSV name as a label value (olm.owner), which allows at most 63 characters.")
    if not DNS1123_SUBDOMAIN.fullmatch(s):
        return ("is not a valid Kubernetes object name (DNS-1123)",
                "A DNS-1123 name has lower-case letters, digits, '-' and '.', starting and ending with a letter or digit.")
    return None


_CSV_GO = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/csv.go"
_CSV_CRD = "https://github.com/operator-framework/api/blob/master/crds/operators.coreos.com_clusterserviceversions.yaml"
_PIPE_COMMON = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/common/bundle.py"
_PIPE_COMMUNITY = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/community/bundle.py"
_HUB_GO = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/operatorhub.go"


@rule("csv-name", "error", "metadata.name or spec.replaces is not a valid CSV name (DNS-1123, at most 63 characters)",
      category="csv", refused_by=[
          refusal("api-server", "an object name that is not a DNS-1123 subdomain", "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"),
          refusal("catalog-ci", "operator-sdk bundle validate (operator-framework/api's CSV validator) fails a metadata.name or spec.replaces "
                  "that is not a DNS-1123 subdomain and a valid label value (at most 63 characters)", _CSV_GO),
      ])
def csv_name(bundle: Bundle, ctx):
    """
    What: the CSV's `metadata.name` and `spec.replaces` must be DNS-1123 subdomain names
    (lower-case letters, digits, `-` and `.`, starting and ending with a letter or digit) of
    at most 63 characters.

    Why: the API server refuses objects with invalid names, and OLM writes the CSV name into
    the `olm.owner` label of everything it creates, and label values are limited to 63
    characters; operator-sdk's validator (run by catalog CI) fails such a bundle. A `replaces`
    that is not a valid name can never match a CSV, so the upgrade edge is lost.

    Refused by: the API server (object names) and operator-sdk's CSV validator, which the
    catalog CI runs.

    Fix: use `<package>.v<version>`, e.g. `my-operator.v1.2.3`, in lower case.

    Bad:
        metadata:
          name: My_Operator.v1.0.0
    Good:
        metadata:
          name: my-operator.v1.0.0
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    md = csv.metadata
    n = md.get("name") if md is not None else None
    if isinstance(n, Scalar) and isinstance(n.value, str) and n.value:
        p = _name_problem(n.value)
        if p:
            yield finding("csv-name", sf, n, f"the CSV name '{clip(n.value, 70)}' {p[0]}.",
                          detail=f"{p[1]} The API server and catalog CI refuse it. Use '<package>.v<version>' in lower case, "
                          "e.g. 'my-operator.v1.2.3'.")
    sp = csv.spec()
    r = sp.get("replaces") if sp is not None else None
    if isinstance(r, Scalar) and r.value is not None and not (isinstance(r.value, str) and not r.value.strip()):
        if not isinstance(r.value, str):
            yield finding("csv-name", sf, r, f"spec.replaces is {r.type_name()}, not the name of a CSV (a string).",
                          detail="spec.replaces is the name of the CSV this one replaces. Write the exact metadata.name of the "
                          "previous bundle's CSV.")
        else:
            p = _name_problem(r.value)
            if p:
                yield finding("csv-name", sf, r, f"spec.replaces '{clip(r.value)}' {p[0]}.",
                              detail=f"{p[1]} It can never match a CSV, so the upgrade edge is lost. Write the exact "
                              "metadata.name of the previous bundle's CSV.")


_CONVENTION = re.compile(r"(?P<op>.+?)\.v(?P<ver>\d.*)")
# operator-framework/api good_practices.go checkBundleName: a semantic version at the end of the name
_SDK_NAME_SEMVER = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+)?$")


def _sdk_accepts_name(name: str) -> bool:
    m = _SDK_NAME_SEMVER.search(name)
    return m is not None and is_semver(m.group(0))


@rule("csv-name-convention", "warning", "The CSV name is not <package>.v<semver>", category="csv")
def csv_name_convention(bundle: Bundle, ctx):
    """
    What: the CSV's `metadata.name` follows `<package>.v<semver>`, and its version part is
    the CSV's `spec.version` (e.g. `my-operator.v1.2.3` with `version: 1.2.3`).

    Why: `replaces` chains and people reading an upgrade graph rely on the convention; a name
    whose version differs from `spec.version` makes the graph misleading. operator-sdk's
    good-practices validator (`checkBundleName`, operator-framework/api
    pkg/validation/internal/good_practices.go, the same at v0.23.0 — operator-sdk v1.36.1, which
    the community catalog CI runs with `--select-optional suite=operatorframework` — and
    v0.45.0) warns on a name that does not end with a semantic version ("not following the
    versioning convention") and on one without exactly one `.v` (`len(strings.Split(name,
    ".v")) != 2`: "not following the recommended naming convention: <operator-name>.v<semver>
    e.g. memcached-operator.v0.0.1"), so `my-operator-1.2.3` draws that warning too: a
    warning. The CI reports the validator's warnings without failing, and OLM uses the name
    only as an identifier: nothing refuses either. Whether the prefix is the package name is
    checked by `operator-name`.

    Fix: rename the CSV to `<package>.v<spec.version>` (and update the next bundle's
    `replaces`).

    Bad:
        metadata:
          name: my-operator-1.2.3
        spec:
          version: 1.2.3
    Good:
        metadata:
          name: my-operator.v1.2.3
        spec:
          version: 1.2.3
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    md = csv.metadata
    n = md.get("name") if md is not None else None
    name = text(n)
    if not name or _name_problem(name):
        return
    sp = csv.spec()
    version = text(sp.get("version")) if sp is not None else None
    version = version if version and is_semver(version) else None
    pkg = bundle.package
    m = _CONVENTION.fullmatch(name)
    if m is None or not is_semver(m.group("ver")):
        prefix = pkg or (m.group("op") if m else re.sub(r"[.-]?v?\d+(\.\d+)*([-+].*)?$", "", name) or name)
        want = f"{prefix}.v{version}" if version else f"{prefix}.v<semver>"
        if _sdk_accepts_name(name):
            yield finding("csv-name-convention", csv.file, n,
                          f"the CSV name '{clip(name)}' has no '.v' before its version ('<package>.v<semver>').",
                          kind="no-dot-v",
                          detail="operator-sdk's good-practices check (checkBundleName in operator-framework/api, run by the "
                          "community catalog CI) warns that the name is 'not following the recommended naming convention: "
                          "<operator-name>.v<semver> e.g. memcached-operator.v0.0.1'. The CI does not fail on it and OLM uses "
                          f"the name only as an identifier. Name it '{want}' (and update the next bundle's replaces).")
        else:
            yield finding("csv-name-convention", csv.file, n,
                          f"the CSV name '{clip(name)}' does not end with a semantic version ('<package>.v<semver>').",
                          kind="no-semver",
                          detail="operator-sdk's good-practices check, run by the catalog CI, warns on it, and readers of the "
                          f"upgrade graph cannot tell the version from the name. Name it '{want}'.")
        return
    if version and m.group("ver") != version:
        yield finding("csv-name-convention", csv.file, n,
                      f"the CSV name '{clip(name)}' says version {clip(m.group('ver'), 30)} but spec.version is {clip(version, 30)}.",
                      detail=f"The upgrade graph then shows a version the bundle is not. Name it '{m.group('op')}.v{version}', "
                      "or fix spec.version.")


@rule("csv-version", "error", "spec.version is not a semantic version", category="csv", refused_by=[
    refusal("catalog-ci", "check_required_fields fails a spec.version that is not a strict semantic version", _PIPE_COMMUNITY),
    refusal("olm-install", "OLM decodes spec.version with semver.ParseTolerant: a value that is not a string, or not a version even "
            "tolerantly, makes the bundle's CSV undecodable",
            "https://github.com/operator-framework/api/blob/master/pkg/lib/version/version.go"),
])
def csv_version(bundle: Bundle, ctx):
    """
    What: `spec.version` must be a semantic version string (`MAJOR.MINOR.PATCH`, optionally
    `-prerelease` and `+build`), without a leading `v`. (A CSV without `spec.version` is
    reported by `csv-required-fields`.)

    Why: OLM parses it as semver to order bundles (semver-mode channels, skipRange). The
    catalog CI's required-fields check fails anything but a strict semantic version (OLM
    itself parses tolerantly: `v1.2` passes there); a number (an unquoted `1.0` is read by
    YAML as a float) or text that is no version at all makes the CSV undecodable for OLM.

    Fix: write the version as `1.2.3` (quoted if in doubt).

    Bad:
        spec:
          version: v1.2
    Good:
        spec:
          version: 1.2.0
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    v = sp.get("version") if sp is not None else None
    if v is None or is_blank(v):
        return
    sf = csv.file
    if not isinstance(v, Scalar):
        yield finding("csv-version", sf, v, f"spec.version is {v.type_name()}, not a semantic version string.",
                      detail="OLM reads the version as a string. Write a semantic version such as \"1.2.3\".")
        return
    if not isinstance(v.value, str):
        yield finding("csv-version", sf, v,
                      f"spec.version is {v.type_name()} ({clip(v.raw, 30)}): YAML reads an unquoted {clip(v.raw, 30)} as a number, "
                      "not a version string.",
                      detail=f"OLM needs a semantic version string. Write a full version such as \"{_semverish(v.raw)}\".",
                      fix=fix_value(sf, v, dq(_semverish(v.raw)), "write spec.version as a semver string"))
        return
    s = v.value
    if is_semver(s):
        return
    fix = None
    hint = ""
    what = ""
    if s[:1] in ("v", "V") and is_semver(s[1:]):
        what = f": it has a leading '{s[0]}'"
        hint = f" Drop the leading 'v': {s[1:]}."
        fix = fix_value(sf, v, s[1:] if v.style is None else dq(s[1:]), "drop the leading v")
    elif s.strip() != s and is_semver(s.strip()):
        what = ": it has spaces around it"
        hint = f" Remove the surrounding spaces: {s.strip()}."
        fix = fix_value(sf, v, s.strip(), "remove the spaces")
    else:
        hint = f" For example: {_semverish(s)}."
    yield finding("csv-version", sf, v, f"spec.version '{clip(s)}' is not a semantic version{what}.",
                  detail="A semantic version is MAJOR.MINOR.PATCH[-prerelease][+build], numbers without leading zeros; the "
                  f"catalog CI's semver check fails anything else and tools that order bundles strictly cannot place it.{hint}",
                  fix=fix)


def _semverish(s: str) -> str:
    parts = re.findall(r"\d+", s or "")[:3]
    parts = [str(int(p)) for p in parts] + ["0"] * (3 - len(parts[:3]))
    return ".".join(parts[:3])


@rule("csv-version-directory", "error", "In a catalog repository, the version directory differs from spec.version", category="csv",
      refused_by=[refusal("catalog-ci", "check_operator_version_directory_name fails a bundle whose directory name is not its CSV's "
                          "spec.version (added January 2026)", _PIPE_COMMON)])
def csv_version_directory(bundle: Bundle, ctx):
    """
    What: in a catalog repository (`operators/<name>/<version>/`), the version directory's
    name equals the CSV's `spec.version`.

    Why: catalog CI (`check_operator_version_directory_name`, since January 2026) fails the
    pull request otherwise, and people and tools find bundles by that directory. (A few
    bundles merged before the check, e.g. a directory 0.4.1 holding version 0.4.0, which
    duplicates the 0.4.0 bundle's version.)

    Fix: rename the directory to the version, or correct `spec.version`.

    Bad:  operators/my-operator/v1.2.3/ with `version: 1.2.3`
    Good: operators/my-operator/1.2.3/ with `version: 1.2.3`
    """
    if bundle.version_dir is None:
        return
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    v = sp.get("version") if sp is not None else None
    s = text(v)
    if s is None:
        if isinstance(v, Scalar) and v.value is not None and not isinstance(v.value, str):
            s = v.raw
        else:
            return
    if s != bundle.version_dir:
        yield finding("csv-version-directory", csv.file, v,
                      f"the bundle sits in the directory '{clip(bundle.version_dir, 40)}' but its spec.version is '{clip(s, 40)}'.",
                      detail=f"Catalog CI requires operators/{bundle.operator}/<spec.version>/. Rename the directory to '{s}', "
                      "or correct spec.version.")


# ---------------------------------------------------------------------------------------
# required fields and their format


@rule("csv-required-fields", "error", "A field the CSV documentation requires is missing (error when OLM, the console or catalog CI needs it)",
      category="csv", mixed=True, refused_by=[
          refusal("api-server", "the ClusterServiceVersion CRD requires metadata, spec, spec.displayName and spec.install; "
                  "every object needs metadata.name", _CSV_CRD),
          refusal("catalog-ci", "check_required_fields fails a CSV without spec.displayName, description, icon, version, "
                  "maintainers, provider.name or links", _PIPE_COMMUNITY),
          refusal("catalog-ci", "operator-sdk bundle validate (operator-framework/api's CSV validator) fails a CSV without "
                  "installModes or without the install strategy's required fields", _CSV_GO),
          refusal("olm-install", "OLM installs nothing without an install strategy with deployments",
                  "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/install/resolver.go"),
          refusal("certification", "Red Hat certification requires the categories, description, containerImage, createdAt, "
                  "support and operators.openshift.io/valid-subscription annotations (certified profile)",
                  "https://docs.redhat.com/en/documentation/red_hat_software_certification/2026/plan-operator_requirements"),
      ])
def csv_required_fields(bundle: Bundle, ctx):
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
    md = csv.metadata
    RF = "csv-required-fields"

    def missing(parent, value, what, why, how, kind, name=None):
        # the finding at the value when the key is there but blank ("is empty"), else at its
        # parent ("is missing"); name: the field as the optional option names it (what, unless
        # what says more); kind: which gates refuse it (verdicts.yaml: community-operators'
        # check_required_fields, OLM's install, Red Hat's certification documentation, ...)
        node, state = (parent, "missing") if value is None else (value, "empty")
        return (name or what, finding(RF, sf, node, f"{what} is {state}.", kind=kind,
                                      detail=f"{why[:1].upper()}{why[1:]}. {how}"))

    if md is not None and md.get("name") is None and md.get("generateName") is not None:
        yield missing(md, None, "metadata.name", "OLM identifies the CSV, its upgrade edges and everything it installs by it "
                      "(generateName is not enough)", "Add 'name: <package>.v<version>'.", "crd")
    spn = root.get("spec")
    if spn is None:
        yield None, finding(RF, sf, root, "the CSV has no spec.", kind="crd",
                            detail="The API server refuses a CSV without spec.displayName and spec.install, and OLM has no "
                            "version, install strategy or install modes to work with. Add spec (operator-sdk generate "
                            "bundle writes it).")
        return
    sp = mapping(spn)
    if sp is None:
        # null, a scalar or a list: every required field is missing (manifest-invalid reports the type at the value)
        what = "empty (null)" if isinstance(spn, Scalar) and spn.value is None else spn.type_name()
        needed = ["version", "displayName", "description", "provider.name", "maintainers", "install", "installModes", "icon", "links"]
        yield None, finding(RF, sf, root.key_node("spec") or spn,
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
        f = need(key, what, why, how, {"installModes": "install", "displayName": "crd"}.get(key, "community"))
        if f[1]:
            yield f
    prov = sp.get("provider")
    if is_blank(prov):
        yield missing(sp, prov, "spec.provider", "the console shows who provides the operator, and catalog CI fails without it",
                      "Add 'provider: {name: <company or project>}'.", "community")
    elif isinstance(prov, Mapping) and is_blank(prov.get("name")):
        pn = prov.get("name")
        yield missing(prov, pn, "spec.provider.name", "the console shows who provides the operator, and catalog CI fails without it",
                      "Add 'name: <company or project>' under provider.", "community")
    inst = sp.get("install")
    if is_blank(inst):
        yield missing(sp, inst, "spec.install (the install strategy)", "OLM has no deployment to create",
                      "Add 'install: {strategy: deployment, spec: {deployments: [...], permissions: [...]}}'.", "install", name="spec.install")
    elif not isinstance(inst, Mapping):
        yield None, finding(RF, sf, inst, f"spec.install is {inst.type_name()}, not a mapping with 'strategy: deployment' and "
                            "'spec.deployments'.", kind="install",
                            detail="OLM cannot install the operator. Write 'install: {strategy: deployment, spec: "
                            "{deployments: [...], permissions: [...]}}'.")
    else:
        st = inst.get("strategy")
        if is_blank(st):
            yield missing(inst, st, "spec.install.strategy", "OLM only knows the 'deployment' strategy and refuses a CSV without one",
                          "Add 'strategy: deployment'.", "install")
        elif text(st) != "deployment":
            yield None, finding(RF, sf, st, f"spec.install.strategy is '{shown(st)}', not 'deployment'.", kind="install",
                                detail="OLM only supports 'deployment' and cannot install anything else. Write 'strategy: deployment'.")
        ispec = inst.get("spec")
        if is_blank(ispec):
            yield missing(inst, ispec, "spec.install.spec", "it holds the deployments and permissions OLM creates",
                          "Add 'spec: {deployments: [...]}' under install.", "install")
        elif not isinstance(ispec, Mapping):
            yield None, finding(RF, sf, ispec, f"spec.install.spec is {ispec.type_name()}, not a mapping with deployments.", kind="install",
                                detail="It holds the deployments and permissions OLM creates. Write 'spec: {deployments: [...]}' "
                                "under install.")
        else:
            deps = ispec.get("deployments")
            if is_blank(deps):
                yield missing(ispec, deps, "spec.install.spec.deployments", "OLM has no operator deployment to create",
                              "Add at least one deployment: '- name: <operator>-controller-manager' with its 'spec'.", "install")
            elif not isinstance(deps, Sequence):
                yield None, finding(RF, sf, deps, f"spec.install.spec.deployments is {deps.type_name()}, not a list of deployments.", kind="install",
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


_EMAIL = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}")
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?")


def email_problem(s: str) -> Optional[str]:
    if s != s.strip():
        return "has spaces around it"
    if "<" in s or ">" in s:
        return "holds a display name or angle brackets"
    if not _EMAIL.fullmatch(s) or len(s) > 254 or len(s.split("@", 1)[0]) > 64:
        return "is not an e-mail address (local-part@domain.tld)"
    return None


def url_problem(s: str) -> Optional[str]:
    if s != s.strip() or any(c in s for c in " \t\n\"<>"):
        return "holds spaces or characters a URL cannot contain"
    try:
        u = urlsplit(s)
        host = u.hostname
        _ = u.port
    except ValueError:
        return "is not a URL"
    if u.scheme not in ("http", "https"):
        return "needs an http:// or https:// scheme" if not u.scheme or "." in u.scheme else f"uses the scheme '{clip(u.scheme, 20)}:', not http(s)"
    if not host:
        return "has no host name"
    if ":" not in host and not _HOST.fullmatch(host):
        return "has no valid host name"
    return None


# Go's url.ParseRequestURI reasons, told for people
_GO_URL_WHY = {
    "invalid URI for request": "no scheme such as https:// and not a path starting with /",
    "net/url: invalid control character in URL": "it holds a control character",
    "missing protocol scheme": "it starts with ':'",
    "empty url": "it is empty",
    "net/url: invalid userinfo": "invalid characters before '@'",
}

_MAGIC = (
    ("image/png", lambda b: b.startswith(b"\x89PNG\r\n\x1a\n")),
    ("image/jpeg", lambda b: b.startswith(b"\xff\xd8\xff")),
    ("image/gif", lambda b: b.startswith((b"GIF87a", b"GIF89a"))),
    ("image/svg+xml", lambda b: b"<svg" in b[:4096].lower()),
)


def _sniff(b: bytes) -> Optional[str]:
    for mt, test in _MAGIC:
        if test(b):
            return mt
    return None


@rule("csv-metadata-format", "error", "A CSV field is there but malformed (maintainers, links, icon, displayName, description, provider)",
      category="csv", mixed=True, refused_by=[
          refusal("catalog-ci", "check_required_fields fails a displayName whose first 3 characters are not there, a description under "
                  "20 characters, a provider.name under 3, an invalid icon (not base64, mediatype outside gif/jpeg/png/svg+xml), "
                  "maintainers or links that are not lists of {name, email} / {name, url} strings", _PIPE_COMMUNITY),
          refusal("catalog-ci", "operator-sdk bundle validate --select-optional name=operatorhub (run by the catalog CI, which fails on its "
                  "errors) fails a maintainer e-mail Go's mail.ParseAddress rejects, a link URL Go's url.ParseRequestURI rejects, a link "
                  "or maintainer without name, more than one icon", _HUB_GO),
          refusal("api-server", "the ClusterServiceVersion CRD's schema refuses values of the wrong type (a displayName that is not a "
                  "string, keywords that are not a list of strings, an icon entry without base64data or mediatype)", _CSV_CRD),
      ])
def csv_metadata_format(bundle: Bundle, ctx):
    """
    What: the values of the CSV's descriptive fields have the shape and format the console
    and catalog CI need: `maintainers` a list of `{name, email}` with an e-mail address;
    `links` a list of `{name, url}` with a URL; `icon` exactly one entry with `base64data`
    that decodes and a `mediatype` of image/gif, image/jpeg, image/png or image/svg+xml;
    `displayName` at least 3 characters (at most 50 reads best); `description` at least 20
    characters; `provider` a mapping whose `name` has at least 3 characters; `keywords` a
    list of strings; `selector` a label selector (`matchLabels` a map of strings,
    `matchExpressions` a list); `maturity` one of the levels the CSV documentation lists
    (planning, pre-alpha, alpha, beta, stable, mature, inactive, deprecated: another value is
    a warning, since the CSV CRD takes any string). (A missing field is `csv-required-fields`.)

    Errors are what something refuses: the community catalog CI's `check_required_fields`
    (a displayName without 3 characters, a description under 20, a provider name under 3,
    an icon that is not base64 or has another mediatype), operator-sdk's operatorhub
    validator run by that CI (an e-mail Go's `mail.ParseAddress` rejects, a URL Go's
    `url.ParseRequestURI` rejects: no scheme and no leading `/`, a control character, a bad
    %-escape, port or host character; more than one icon), and the API server (values of
    the wrong type). Warnings are what nothing refuses but readers notice: a URL Go accepts
    that is still not a working http(s) link (spaces in the path, no host, `mailto:`), an e-mail Go accepts that is unusual (a display name, no top-level domain),
    an icon labelled SVG whose data is a raster image or the reverse (browsers do not guess
    SVG), an empty keyword. Info: a `provider.url` that is not an http(s) URL (the OpenShift
    console shows only `provider.name`, never the URL), raster data
    under another raster mediatype (JPEG labelled image/png: browsers sniff raster images,
    so the icon shows). A displayName over 50 characters is info: the
    CI's pattern `.{3,50}` is matched as a prefix (only the minimum is enforced) and the
    community documentation asks only for "a short, readable name".

    Why: the console renders these on OperatorHub (a broken icon, a link that goes
    nowhere); the catalog's CI fails the pull request for the errors.

    Fix: correct the value as the finding's detail says.

    Bad:
        spec:
          displayName: X
          maintainers:
            - name: Example Team
              email: team at example.com
    Good:
        spec:
          displayName: Example Operator
          maintainers:
            - name: Example Team
              email: team@example.com
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    if sp is None:
        return
    sf = csv.file
    MF = "csv-metadata-format"
    lim = data()["limits"]

    dn = sp.get("displayName")
    if not is_blank(dn):
        s = text(dn)
        if s is None:
            yield finding(MF, sf, dn, f"spec.displayName is {dn.type_name()}, not a string.", kind="schema",
                          detail="It is the operator's name in the console; the API server refuses the CSV. Write the name as a string.")
        else:
            n = len(s.strip())
            lo, hi = lim["display_name"]["min"], lim["display_name"]["max"]
            if n > hi:
                yield finding(MF, sf, dn, f"spec.displayName is {n} characters long, more than {hi}.", severity="info",
                              detail=f"OperatorHub shows it as the operator's name. The catalog CI's pattern '.{{{lo},{hi}}}' is "
                              "matched as a prefix, so only the minimum is enforced, and the community documentation asks only "
                              "for \"a short, readable name\" (info). A shorter name, e.g. 'Example Operator', reads better; "
                              "the rest can go into the description.")
            elif not re.match(r".{%d}" % lo, s):
                yield finding(MF, sf, dn, f"spec.displayName '{shown(dn)}' is shorter than {lo} characters.", kind="required-fields",
                              detail="The catalog CI's required-fields check fails it. Write the operator's readable name.")
            elif n < lo:
                yield finding(MF, sf, dn, f"spec.displayName '{clip(s.strip())}' has fewer than {lo} characters besides spaces.",
                              severity="warning", detail="The catalog CI counts the spaces and accepts it, but the console shows an "
                              "unreadable name. Write the operator's readable name.")
    de = sp.get("description")
    if not is_blank(de):
        s = text(de)
        dmin = lim["description"]["min"]
        if s is None:
            yield finding(MF, sf, de, f"spec.description is {de.type_name()}, not a string (Markdown).", kind="schema",
                          detail="The API server refuses the CSV. Write the description as a string.")
        elif len(s) < dmin:
            yield finding(MF, sf, de, f"spec.description has {len(s)} characters; at least {dmin} are required.", kind="required-fields",
                          detail=f"The catalog CI's required-fields check requires at least {dmin}, and the console's operator page "
                          "shows little else. Describe what the operator manages and how to start.")
        elif len(s.strip()) < dmin:
            yield finding(MF, sf, de, f"spec.description has {len(s.strip())} characters besides surrounding spaces, fewer than {dmin}.",
                          severity="warning", detail="The catalog CI counts the spaces and accepts it, but the console's operator "
                          "page shows almost nothing. Describe what the operator manages and how to start.")
    prov = sp.get("provider")
    if not is_blank(prov):
        if not isinstance(prov, Mapping):
            yield finding(MF, sf, prov, f"spec.provider is {prov.type_name()}, not a mapping such as '{{name: Example Inc.}}'.",
                          kind="schema", detail="The API server refuses the CSV. Write 'provider: {name: <company or project>}'.")
        else:
            pn = prov.get("name")
            if not is_blank(pn):
                s = text(pn)
                pmin = lim["provider_name"]["min"]
                if s is None:
                    yield finding(MF, sf, pn, f"spec.provider.name is {pn.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write the company or project name as a string.")
                elif not re.match(r".{%d}" % pmin, s):
                    yield finding(MF, sf, pn, f"spec.provider.name '{shown(pn)}' is shorter than {pmin} characters.", kind="required-fields",
                                  detail="The catalog CI's required-fields check fails it. Write the company or project name.")
                elif len(s.strip()) < pmin:
                    yield finding(MF, sf, pn, f"spec.provider.name '{clip(s.strip())}' has fewer than {pmin} characters besides spaces.",
                                  severity="warning", detail="The catalog CI counts the spaces and accepts it. Write the company or "
                                  "project name.")
            pu = prov.get("url")
            if not is_blank(pu):
                s = text(pu)
                if s is None:
                    yield finding(MF, sf, pu, f"spec.provider.url is {pu.type_name()}, not a string.", kind="schema",
                                  detail="The ClusterServiceVersion CRD's schema types it as a string, so the API server refuses "
                                  "the CSV. Write the URL as a string such as https://example.com.")
                else:
                    p = url_problem(s)
                    if p:
                        yield finding(MF, sf, pu, f"spec.provider.url '{shown(pu)}' {p}.", severity="info",
                                      detail="Nothing refuses it and the OpenShift console does not show provider.url (its "
                                      "operator pages show only provider.name), hence info; other catalog readers may "
                                      "link it. Write a full URL such as https://example.com.",
                                      fix=fix_value(sf, pu, "https://" + s, "add https://")
                                      if s and p.startswith("needs an http") and "://" not in s else None)

    mt = sp.get("maintainers")
    if not is_blank(mt):
        if not isinstance(mt, Sequence):
            yield finding(MF, sf, mt, f"spec.maintainers is {mt.type_name()}, not a list of '{{name, email}}' entries.", kind="schema",
                          detail="The API server refuses the CSV and the catalog CI's required-fields check fails it. Write "
                          "'maintainers: [{name: <team>, email: <address>}]'.")
        else:
            for item in mt:
                if not isinstance(item, Mapping):
                    yield finding(MF, sf, item, f"a maintainer is {item.type_name()}, not a mapping with name and email.", kind="schema",
                                  detail="The API server refuses the CSV. Write '{name: <person or team>, email: <address>}'.")
                    continue
                nm, em = item.get("name"), item.get("email")
                if is_blank(nm):
                    yield finding(MF, sf, item if nm is None else nm, "this maintainer has no name.", kind="operatorhub",
                                  detail="operator-sdk's validator and the catalog CI require both name and email. Add "
                                  "'name: <person or team>'.")
                elif text(nm) is None:
                    yield finding(MF, sf, nm, f"the maintainer's name is {nm.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write the name as a string.")
                if is_blank(em):
                    yield finding(MF, sf, item if em is None else em, "this maintainer has no email.", kind="operatorhub",
                                  detail="operator-sdk's validator and the catalog CI require both name and email. Add "
                                  "'email: <address>'.")
                else:
                    s = text(em)
                    if s is None:
                        yield finding(MF, sf, em, f"the maintainer email is {em.type_name()}, not a string.", kind="schema",
                                      detail="The API server refuses the CSV. Write an address such as team@example.com.")
                        continue
                    goerr = go_mail_address_error(s)
                    if goerr:
                        yield finding(MF, sf, em, f"the maintainer email '{shown(em)}' is not an e-mail address Go's mail parser accepts.",
                                      kind="operatorhub", detail="operator-sdk's operatorhub validator, run by the catalog CI, fails it, "
                                      "and users cannot reach you. Write an address such as team@example.com.")
                        continue
                    p = email_problem(s)
                    if p:
                        yield finding(MF, sf, em, f"the maintainer email '{shown(em)}' {p}.", severity="warning",
                                      detail=("The name goes in 'name'. " if "display name" in p else "")
                                      + "Go's address parser, which operator-sdk's validator uses, accepts it (a warning), but "
                                      "mail clients and readers may not. Write a plain address such as team@example.com.")

    lk = sp.get("links")
    if not is_blank(lk):
        if not isinstance(lk, Sequence):
            yield finding(MF, sf, lk, f"spec.links is {lk.type_name()}, not a list of '{{name, url}}' entries.", kind="schema",
                          detail="The API server refuses the CSV and the catalog CI's required-fields check fails it. Write "
                          "'links: [{name: Documentation, url: https://...}]'.")
        else:
            for item in lk:
                if not isinstance(item, Mapping):
                    yield finding(MF, sf, item, f"a link is {item.type_name()}, not a mapping with name and url.", kind="schema",
                                  detail="The API server refuses the CSV. Write '{name: Documentation, url: https://...}'.")
                    continue
                nm, u = item.get("name"), item.get("url")
                if is_blank(nm):
                    yield finding(MF, sf, item if nm is None else nm, "this link has no name.", kind="operatorhub",
                                  detail="The console shows the name as the link text, and operator-sdk's validator (run by the "
                                  "catalog CI) requires it. Add 'name: Documentation' (or what it is).")
                elif text(nm) is None:
                    yield finding(MF, sf, nm, f"the link's name is {nm.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write the name as a string.")
                if is_blank(u):
                    yield finding(MF, sf, item if u is None else u, "this link has no url.", kind="operatorhub",
                                  detail="operator-sdk's validator (run by the catalog CI) requires it. Add 'url: https://...'.")
                    continue
                s = text(u)
                if s is None:
                    yield finding(MF, sf, u, f"the link URL is {u.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write a full URL such as https://example.com/docs.")
                    continue
                goerr = go_request_uri_error(s)
                if goerr:
                    fix = None
                    if goerr == "invalid URI for request" and _HOST.match(s) and "://" not in s and "." in s.split("/", 1)[0]:
                        fix = fix_value(sf, u, "https://" + s, "add https://")
                    yield finding(MF, sf, u, f"the link URL '{shown(u)}' is refused by Go's URL parser: {_GO_URL_WHY.get(goerr, goerr)}.",
                                  kind="operatorhub", detail="operator-sdk's operatorhub validator, run by the catalog CI, fails it. "
                                  "Write a full URL such as https://example.com/docs.", fix=fix)
                    continue
                p = url_problem(s)
                if p:
                    fix = None
                    if " " in s.strip() and s == s.strip():
                        fix = fix_value(sf, u, s.replace(" ", "%20") if u.style is None else dq(s.replace(" ", "%20")),
                                        "encode the spaces")
                    yield finding(MF, sf, u, f"the link URL '{shown(u)}' {p}.", severity="warning",
                                  detail="operator-sdk's validator accepts it (Go's parser takes spaces in a path), so nothing refuses "
                                  "it, but the console's link may not lead where you meant. Write a full http(s) URL"
                                  + (" with %20 for each space." if fix else ", e.g. https://example.com/docs."), fix=fix)

    yield from _icon(sf, sp.get("icon"))

    kw = sp.get("keywords")
    if not is_blank(kw):
        if not isinstance(kw, Sequence):
            fix = None
            if isinstance(kw, Scalar) and isinstance(kw.value, str):
                words = [w.strip() for w in kw.value.split(",") if w.strip()]
                fix = fix_value(sf, kw, "[" + ", ".join(dq(w) for w in words) + "]", "write keywords as a list")
            yield finding(MF, sf, kw, f"spec.keywords is {kw.type_name()}, not a list of words.", kind="schema",
                          detail="The API server refuses the CSV. Write '[word, word]'.", fix=fix)
        else:
            for w in kw:
                if isinstance(w, Scalar) and isinstance(w.value, str):
                    if not w.value.strip():
                        yield finding(MF, sf, w, "this keyword is empty.", severity="warning",
                                      detail="OperatorHub search gains nothing from it (nothing refuses it, hence a warning). Remove "
                                      "it or write a word.")
                else:
                    yield finding(MF, sf, w, f"a keyword is {w.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Quote it.")

    yield from _selector(sf, sp.get("selector"))
    yield from _maturity(sf, sp.get("maturity"))


# the OpenShift documentation of the CSV (seed 004): "The level of maturity the software has
# achieved at this version. Options include planning, pre-alpha, alpha, beta, stable, mature,
# inactive, and deprecated." The CSV CRD types it as a plain string.
MATURITY = ("planning", "pre-alpha", "alpha", "beta", "stable", "mature", "inactive", "deprecated")


def _maturity(sf, mt):
    MF = "csv-metadata-format"
    if is_blank(mt):
        return
    if not (isinstance(mt, Scalar) and isinstance(mt.value, str)):
        yield finding(MF, sf, mt, f"spec.maturity is {mt.type_name()}, not a string.", kind="schema",
                      detail="The ClusterServiceVersion CRD types it as a string: the API server refuses the CSV. Write one of "
                      + ", ".join(MATURITY) + ".")
        return
    if mt.value not in MATURITY:
        near = difflib.get_close_matches(mt.value.strip().lower(), MATURITY, n=1, cutoff=0.6)
        yield finding(MF, sf, mt, f"spec.maturity '{shown(mt)}' is not one of the documented maturity levels.", severity="warning",
                      detail="The CSV documentation lists " + ", ".join(MATURITY) + ". Nothing refuses another value (the CRD "
                      "types it as any string), but it tells readers nothing they can compare. "
                      + (f"Write '{near[0]}'." if near else "Write one of them."))


def _selector(sf, sel):
    """spec.selector, a LabelSelector in the CSV CRD's schema: matchLabels a map of strings,
    matchExpressions a list."""
    MF = "csv-metadata-format"
    if is_blank(sel):
        return
    if not isinstance(sel, Mapping):
        yield finding(MF, sf, sel, f"spec.selector is {sel.type_name()}, not a label selector mapping.", kind="schema",
                      detail="The CSV CRD's schema types it as a LabelSelector: the API server refuses the CSV. Write "
                      "'selector: {matchLabels: {key: value}}'.")
        return
    ml = sel.get("matchLabels")
    if ml is not None and not (isinstance(ml, Scalar) and ml.value is None):
        if not isinstance(ml, Mapping):
            yield finding(MF, sf, ml, f"spec.selector.matchLabels is {ml.type_name()}, not a map of labels.", kind="schema",
                          detail="The CSV CRD's schema types matchLabels as an object of strings: the API server refuses the CSV. "
                          "Write 'matchLabels: {key: value}'.")
        else:
            for k, v in ml.items():
                if not (isinstance(v, Scalar) and isinstance(v.value, str)):
                    yield finding(MF, sf, v, f"the value of spec.selector.matchLabels '{shown(k)}' is {v.type_name()}, not a string.",
                                  kind="schema", detail="Label values are strings in the CSV CRD's schema: the API server refuses "
                                  "the CSV. Quote the value.")
    me = sel.get("matchExpressions")
    if me is not None and not (isinstance(me, Scalar) and me.value is None) and not isinstance(me, Sequence):
        yield finding(MF, sf, me, f"spec.selector.matchExpressions is {me.type_name()}, not a list.", kind="schema",
                      detail="The CSV CRD's schema types it as a list of {key, operator, values}: the API server refuses the CSV. "
                      "Write it as a list.")


_NO_SPACE = {ord(c): None for c in string.whitespace}


@lru_cache(maxsize=8)
def _icon_data(s: str) -> tuple:
    """('data-url' | 'invalid' | 'ok', the image type its bytes show) for an icon's
    base64data; remembered for the last icons (an operator's releases repeat theirs)."""
    compact = s.translate(_NO_SPACE)
    if compact.startswith("data:"):
        return "data-url", None
    try:
        raw = base64.b64decode(compact, validate=True)
        if len(compact) < 4:
            raise binascii.Error("too short")
    except (binascii.Error, ValueError):
        return "invalid", None
    return "ok", _sniff(raw)


def _icon(sf, icon):
    MF = "csv-metadata-format"
    if is_blank(icon):
        return
    mediatypes = data()["icon_mediatypes"]
    if not isinstance(icon, Sequence):
        yield finding(MF, sf, icon, f"spec.icon is {icon.type_name()}, not a list with one entry '{{base64data, mediatype}}'.",
                      kind="schema", detail="The API server refuses the CSV. Put '- ' before base64data.")
        return
    if len(icon) > 1:
        yield finding(MF, sf, icon.items[1], f"spec.icon has {len(icon)} entries, not one.", kind="operatorhub",
                      detail="The console shows only the first, and operator-sdk's operatorhub validator (run by the catalog CI) "
                      "fails more than one. Keep one icon.")
    entry = icon.items[0]
    if not isinstance(entry, Mapping):
        yield finding(MF, sf, entry, f"the icon is {entry.type_name()}, not a mapping with base64data and mediatype.", kind="schema",
                      detail="The API server refuses the CSV. Write '- {base64data: <base64 of the image>, mediatype: image/png}'.")
        return
    b64, mt = entry.get("base64data"), entry.get("mediatype")
    mts = text(mt)
    if is_blank(mt):
        yield finding(MF, sf, entry if mt is None else mt, "the icon has no mediatype.", kind="schema",
                      detail="The console cannot show it, the API server refuses an icon without one and the catalog CI fails it. "
                      f"Add 'mediatype: image/png' (or {', '.join(mediatypes)}).")
    elif mts is None or mts not in mediatypes:
        close = difflib.get_close_matches((mts or "").strip().lower(), mediatypes, n=1, cutoff=0.6)
        fix = fix_value(sf, mt, close[0], f"use {close[0]}") if close and isinstance(mt, Scalar) else None
        yield finding(MF, sf, mt, f"the icon mediatype '{shown(mt, 40)}' is not one of {', '.join(mediatypes)}.", kind="operatorhub",
                      detail="The console cannot show the icon, and the catalog CI (and operator-sdk's validator) fail it."
                      + (f" Write '{close[0]}'." if close else ""), fix=fix)
        mts = None
    if is_blank(b64):
        yield finding(MF, sf, entry if b64 is None else b64, "the icon has no base64data.", kind="schema",
                      detail="The console shows a placeholder, the API server refuses an icon without it and the catalog CI "
                      "fails it. Add the base64-encoded image.")
        return
    s = text(b64)
    if s is None:
        yield finding(MF, sf, b64, f"the icon's base64data is {b64.type_name()}, not a string of base64 text.", kind="schema",
                      detail="The API server refuses the CSV. Encode the image file with `base64 -w0 icon.png`.")
        return
    form, sniffed = _icon_data(s)
    if form == "data-url":
        yield finding(MF, sf, b64, "the icon's base64data is a data: URL, not plain base64 text.", kind="required-fields",
                      detail="The catalog CI's icon check decodes it as base64 and fails, and the console adds the "
                      "'data:<mediatype>;base64,' prefix itself. Keep only the base64 text after the comma.")
        return
    if form == "invalid":
        yield finding(MF, sf, b64, "the icon's base64data is not valid base64 (wrong characters, or a length that is not a "
                      "multiple of 4).", kind="required-fields",
                      detail="The console shows a broken image and the catalog CI fails it. Encode the image file with "
                      "`base64 -w0 icon.png`.")
        return
    if mts is not None and sniffed is not None and sniffed != mts:
        kind = sniffed.split("/")[1].upper().replace("+XML", "")
        fix = fix_value(sf, mt, sniffed, f"use {sniffed}")
        if "svg" in sniffed or "svg" in mts:
            why, sev = "Browsers do not guess SVG, so the console most likely shows a broken image", "warning"
        else:
            why, sev = "Browsers sniff raster images whatever the declared type, so the console shows it; only the label is wrong", "info"
        yield finding(MF, sf, mt, f"the icon data is {kind} but the mediatype says {mts}.", severity=sev,
                      detail=f"{why}. Nothing refuses it (the catalog CI checks only that the mediatype is one of the four), "
                      f"hence {'a warning' if sev == 'warning' else 'info'}. Write 'mediatype: {sniffed}'.", fix=fix)


# ---------------------------------------------------------------------------------------
# capabilities, categories, install modes


@rule("csv-capabilities", "error", "The capabilities annotation is not one of the five capability levels", category="csv",
      refused_by=[refusal("catalog-ci", "operator-sdk bundle validate --select-optional name=operatorhub (run by the catalog CI, which "
                          "fails on its errors) errors on a capabilities value outside the five levels", _HUB_GO)])
def csv_capabilities(bundle: Bundle, ctx):
    """
    What: the CSV annotation `capabilities` is exactly one of `Basic Install`,
    `Seamless Upgrades`, `Full Lifecycle`, `Deep Insights`, `Auto Pilot` (letter case and
    spaces matter). An empty or missing annotation is a `csv-required-fields` warning.

    Why: the console and OperatorHub show the capability level from it and filter by it.
    Refused by operator-sdk's operatorhub validator (checkCapabilities, an error), which the
    community catalog CI runs and fails on (its own required-fields check only warns).

    Fix: write one of the five levels.

    Bad:
        metadata:
          annotations:
            capabilities: Basic
    Good:
        metadata:
          annotations:
            capabilities: Basic Install
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    v = ann.get("capabilities") if ann is not None else None
    if is_blank(v):
        return
    levels = data()["capabilities"]
    s = text(v)
    if s in levels:
        return
    norm = {re.sub(r"[\s_-]+", "", lv.lower()): lv for lv in levels}
    guess = norm.get(re.sub(r"[\s_-]+", "", (s or "").lower()))
    if guess is None and s:
        close = difflib.get_close_matches(s, levels, n=1, cutoff=0.6)
        guess = close[0] if close else None
    fix = fix_value(csv.file, v, guess, f"write '{guess}'") if guess and isinstance(v, Scalar) else None
    yield finding("csv-capabilities", csv.file, v, f"the capabilities annotation '{shown(v)}' is not a capability level.",
                  detail="The console cannot show it and operator-sdk's validator (run by catalog CI) fails it. Write one of: "
                  f"{', '.join(levels)}" + (f" (probably '{guess}')." if guess else "."), fix=fix)


@rule("csv-categories", "error", "A category in the categories annotation is outside the standard set", category="csv",
      refused_by=[refusal("catalog-ci", "operator-sdk bundle validate --select-optional name=operatorhub (run by the catalog CI, which "
                          "fails on its errors) errors on a category outside the standard set", _HUB_GO)])
def csv_categories(bundle: Bundle, ctx):
    """
    What: the CSV annotation `categories` is a comma-separated list of standard categories
    (AI/Machine Learning, Application Runtime, Big Data, Cloud Provider, Database, Developer
    Tools, Integration & Delivery, Logging & Tracing, Modernization & Migration, Monitoring,
    Networking, Observability, OpenShift Optional, Security, Storage, Streaming & Messaging).
    A catalog with its own set lists it under `categories:` in `.olm-check.yaml`.

    Why: OperatorHub files the operator under these categories, and a misspelt category
    leaves the operator out of its section. Refused by `checkCategories`
    (operator-framework/api pkg/validation/internal/standardcategories.go, an error): in the
    community catalog CI through operator-sdk v1.36.1's operatorhub validator (api v0.23.0,
    check_osdk_bundle_validate_operatorhub, which fails on its errors), in the certified
    catalogs through preflight's ValidateOperatorBundle (StandardCategoriesValidator, api
    v0.45.0). "Drivers and plugins" is on the community pipeline's own list (validations.py
    CATEGORIES, read by check_required_fields) but in neither api version's set, so the
    validator refuses it all the same (kind `pipeline-list-only`).

    Fix: use the standard spelling, separated by commas.

    Bad:
        categories: Developer tools, Logging
    Good:
        categories: Developer Tools, Logging & Tracing
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    v = ann.get("categories") if ann is not None else None
    if is_blank(v):
        return
    allowed = list(ctx.config.categories) if ctx.config.categories else list(data()["categories"])
    s = text(v)
    if s is None:
        yield finding("csv-categories", csv.file, v, f"the categories annotation is {v.type_name()}, not a comma-separated string.",
                      detail="Annotations are strings: the API server refuses the CSV. Write the categories in one string, "
                      "e.g. 'categories: Database, Monitoring'.")
        return
    items = [c.strip() for c in s.split(",")]
    lower = {a.lower(): a for a in allowed}
    bad, fixed, fixable = [], [], True
    listed_only = [] if ctx.config.categories else list(data().get("categories_pipeline_only") or [])
    for c in items:
        if c in allowed:
            fixed.append(c)
            continue
        if c in listed_only:
            yield finding("csv-categories", csv.file, v,
                          f"the categories annotation has '{c}', which operator-sdk's and preflight's validators refuse.",
                          kind="pipeline-list-only",
                          detail=f"'{c}' is on the community pipeline's own list (check_required_fields accepts it) but not "
                          "in operator-framework/api's standard categories (standardcategories.go, v0.23.0 and v0.45.0): "
                          "operator-sdk's operatorhub validator, which the community catalog CI runs and fails on, and "
                          "preflight's ValidateOperatorBundle in the certified catalogs refuse it. Replace it with one of: "
                          f"{', '.join(allowed)}.")
            fixable = False
            continue
        if c == "":
            bad.append("(an empty entry)")
            continue
        bad.append(f"'{c}'")
        g = lower.get(c.lower()) or lower.get(re.sub(r"\s+", " ", c.lower().replace(" and ", " & ")))
        if g is None:
            fixable = False
        else:
            fixed.append(g)
    if not bad:
        return
    fix = None
    hint = ""
    if fixable and fixed:
        new = ", ".join(dict.fromkeys(fixed))
        hint = f" Write '{new}'."
        fix = fix_value(csv.file, v, new if v.style is None and not new.startswith(("&", "*")) else dq(new), "use the standard categories")
    listed = ", ".join(bad)
    yield finding("csv-categories", csv.file, v,
                  f"the categories annotation has {clip(listed, 70)}, outside the standard set.",
                  detail=(f"Outside it: {listed}. " if len(listed) > 70 else "")
                  + "OperatorHub cannot file the operator there, and operator-sdk's operatorhub validator (community catalog "
                  "CI) and preflight's ValidateOperatorBundle (certified catalogs) fail it. "
                  f"Use only: {', '.join(allowed)}.{hint}", fix=fix)


@rule("install-modes", "error", "installModes is empty, lists a mode twice or an unknown one, or supports none", category="csv",
      refused_by=[
          refusal("catalog-ci", "operator-sdk bundle validate (operator-framework/api's CSV validator) fails duplicate install modes "
                  "and a CSV that supports none", _CSV_GO),
          refusal("api-server", "the CSV CRD's schema requires each installMode entry to have a string type and a boolean supported", _CSV_CRD),
          refusal("olm-install", "OLM refuses to install into an OperatorGroup whose mode the CSV does not support (UnsupportedOperatorGroup)",
                  "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/olm/operator.go"),
      ])
def install_modes(bundle: Bundle, ctx):
    """
    What: `spec.installModes` lists install modes (`OwnNamespace`, `SingleNamespace`,
    `MultiNamespace`, `AllNamespaces`), each once, each with a boolean `supported`, and at
    least one supported. (A CSV without installModes is reported by `csv-required-fields`.)

    Why: OLM matches the operator's OperatorGroup against these; with none supported (or an
    empty list) the operator can be installed nowhere, a duplicate makes operator-sdk's
    validator fail, an unknown type is ignored, and `supported: "true"` (a string) makes the
    API server refuse the CSV. Refused by: OLM, operator-sdk's CSV validator (run by the
    catalog CI) and the API server.

    Fix: list each mode once with `supported: true` or `false`.

    Bad:
        installModes:
          - {type: AllNamespaces, supported: false}
          - {type: AllNamespaces, supported: "true"}
    Good:
        installModes:
          - {type: OwnNamespace, supported: true}
          - {type: SingleNamespace, supported: true}
          - {type: MultiNamespace, supported: false}
          - {type: AllNamespaces, supported: true}
    """
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    im = sp.get("installModes") if sp is not None else None
    if im is None or (isinstance(im, Scalar) and im.value is None) or (isinstance(im, Scalar) and text(im) == ""):
        return  # missing: csv-required-fields
    sf = csv.file
    IM = "install-modes"
    known = data()["install_modes"]
    if not isinstance(im, Sequence):
        yield finding(IM, sf, im, f"spec.installModes is {im.type_name()}, not a list of '{{type, supported}}' entries.",
                      detail="The API server refuses the CSV. List the four modes, e.g. '- {type: AllNamespaces, supported: true}'.")
        return
    if len(im) == 0:
        yield finding(IM, sf, im, "spec.installModes is empty, so the operator supports no install mode.",
                      detail="OLM installs it nowhere. List the four modes with 'supported: true/false'.")
        return
    seen = {}
    any_supported = False
    for e in im:
        if not isinstance(e, Mapping):
            yield finding(IM, sf, e, f"an install mode is {e.type_name()}, not a mapping '{{type: ..., supported: true|false}}'.",
                          detail="The CSV CRD's schema requires each entry to have a type and a boolean supported. Write "
                          "'- {type: AllNamespaces, supported: true}'.")
            continue
        t, sup = e.get("type"), e.get("supported")
        ts = text(t)
        if ts is None:
            yield finding(IM, sf, e if t is None else t, "this install mode has no type.", detail=f"Write one of {', '.join(known)}.")
        elif ts not in known:
            close = difflib.get_close_matches(ts, known, n=1, cutoff=0.6)
            lower = {k.lower(): k for k in known}.get(ts.lower())
            g = lower or (close[0] if close else None)
            yield finding(IM, sf, t, f"'{clip(ts)}' is not an install mode.",
                          detail=f"OLM ignores it. Write one of {', '.join(known)}" + (f" (probably '{g}')." if g else "."),
                          fix=fix_value(sf, t, g, f"write {g}") if g else None)
        elif ts in seen:
            yield finding(IM, sf, t, f"the install mode {ts} is listed twice (first at line {seen[ts]}).",
                          detail="operator-sdk's validator fails it, and which entry counts is unclear. Keep one.")
        else:
            seen[ts] = t.line
        if sup is None:
            yield finding(IM, sf, e, "this install mode has no 'supported'.", detail="Add 'supported: true' or 'supported: false'.")
        elif not (isinstance(sup, Scalar) and isinstance(sup.value, bool)):
            fix = None
            if isinstance(sup, Scalar) and isinstance(sup.value, str) and sup.value.strip().lower() in ("true", "false"):
                fix = fix_value(sf, sup, sup.value.strip().lower(), "write a boolean")
            yield finding(IM, sf, sup, f"'supported' is {sup.type_name()} ({shown(sup)}), not the boolean true or false.",
                          detail="The API server refuses the CSV. Write true or false without quotes.", fix=fix)
        elif sup.value and ts in known:
            any_supported = True
    if not any_supported and seen:
        yield finding(IM, sf, im, "no install mode is supported ('supported: true'), so OLM can install the operator nowhere.",
                      detail="Set 'supported: true' on the modes the operator handles (AllNamespaces for a cluster-wide operator).")
