"""
What: the operator's `ci.yaml` is checked against the catalog pipeline's schema:
`updateGraph` one of `replaces-mode`, `semver-mode`; `reviewers` a non-empty list of
GitHub user names; `merge` a boolean; `fbc` a mapping with only `enabled` (boolean),
`version_promotion_strategy` (`never`, `always`, `review-needed`) and `catalog_mapping`:
a list of mappings each with `template_name` (string), `type` (`olm.template.basic` or
`olm.semver`) and `catalog_names` (a non-empty list of unique catalog names such as
`v4.16`). A misspelled key (`catalogs_names`) is reported with the right spelling.

An FBC operator (`fbc.enabled: true`) must not set `updateGraph`: its catalogs hold the
update graph.

Why: the pipeline validates ci.yaml against its JSON schema (static check
`check_schema_operator_ci_config`) and stops the pull request on a violation; its
read-config step stops when `updateGraph` is set on an FBC operator. A wrong
`updateGraph` breaks the operator's update-graph checks, and a bad `catalog_mapping`
renders no catalog.

Fix: correct the value at the line shown.

Bad:
    fbc:
      enabled: "yes"
      catalog_mapping:
        - template_name: basic.yaml
          catalogs_names: [v4.16]
Good:
    fbc:
      enabled: true
      catalog_mapping:
        - template_name: basic.yaml
          type: olm.template.basic
          catalog_names: ["v4.16"]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...catalogs import checked_operators
from ...context import Context
from ...model import Repository
from ...nodes import Mapping, Scalar, Sequence
from .. import default_detail, define, refusal

if TYPE_CHECKING:
    from typing import TypeGuard

_CI = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/"

RULE = define("ci-config", "operators/<name>/ci.yaml is invalid", __doc__, category="catalog", refused_by=[
    refusal("catalog-ci", "the static check check_schema_operator_ci_config validates ci.yaml against the pipeline's JSON "
            "schema and fails the pull request on any violation", _CI + "operatorcert/static_tests/common/operator.py"),
    refusal("catalog-ci", "the pipeline's read-config task stops when an FBC operator's ci.yaml also sets updateGraph",
            _CI + "ansible/roles/operator-pipeline/templates/openshift/tasks/read-config.yaml"),
    refusal("catalog-ci", "the static check check_catalog_usage_ci_config fails a ci.yaml that maps one catalog to more "
            "than one template", _CI + "operatorcert/static_tests/common/operator.py"),
])
# the why of a finding whose message says what to put right: who refuses it
WHY = default_detail(RULE.id)


UPDATE_GRAPH = ("replaces-mode", "semver-mode")
PROMOTION = ("never", "always", "review-needed")
TEMPLATE_TYPES = ("olm.template.basic", "olm.semver")
FBC_KEYS = ("enabled", "catalog_mapping", "version_promotion_strategy")
MAPPING_KEYS = ("template_name", "type", "catalog_names")
_SUGGEST = {"catalogs_names": "catalog_names", "catalog_name": "catalog_names", "catalogNames": "catalog_names",
            "templateName": "template_name", "template": "template_name", "enable": "enabled",
            "catalogMapping": "catalog_mapping", "versionPromotionStrategy": "version_promotion_strategy",
            "catalog_mappings": "catalog_mapping"}


def _str(n: object) -> TypeGuard[Scalar]:
    return isinstance(n, Scalar) and isinstance(n.value, str)


@RULE.check(scope="repo")
def ci_config(repo: Repository, ctx: Context):
    wanted = checked_operators(repo)
    for name in sorted(wanted):
        op = repo.operators.get(name)
        if op is None or op.ci_file is None or not op.ci_file.readable:
            continue
        sf = op.ci_file
        docs = [d for d in sf.documents if d is not None]
        if not docs:
            continue
        doc = docs[0]

        def bad(node, message, detail=WHY):
            return RULE.at(sf, node, message, detail=detail)

        if not isinstance(doc, Mapping):
            yield bad(doc, f"ci.yaml must be a mapping of settings (reviewers, updateGraph, fbc), not {doc.type_name()}",
                      "The pipeline cannot read it.")
            continue
        ug = doc.get("updateGraph")
        if ug is not None and not (_str(ug) and ug.value in UPDATE_GRAPH):
            shown = ug.raw if isinstance(ug, Scalar) else ug.type_name()
            yield bad(ug, f"updateGraph '{shown}' is not one the pipeline knows",
                      "Write 'replaces-mode' (edges from spec.replaces) or 'semver-mode' (edges by version).")
        rv = doc.get("reviewers")
        if rv is not None:
            if isinstance(rv, Scalar) and rv.value is None:
                yield bad(rv, "reviewers is empty",
                          "The pipeline requires at least one GitHub user name, or leave the key out.")
            elif not isinstance(rv, Sequence):
                yield bad(rv, f"reviewers must be a list of GitHub user names, not {rv.type_name()}")
            elif len(rv) == 0:
                yield bad(rv, "reviewers is an empty list",
                          "The pipeline requires at least one GitHub user name, or leave the key out.")
            else:
                for item in rv:
                    if not _str(item) or not item.value.strip():
                        yield bad(item, f"each reviewer must be a GitHub user name (a string), not {item.type_name() if not _str(item) else 'an empty string'}")
        mg = doc.get("merge")
        if mg is not None and not (isinstance(mg, Scalar) and isinstance(mg.value, bool)):
            yield bad(mg, "merge must be true or false")
        cp = doc.get("cert_project_id")
        if cp is not None and not _str(cp):
            shown = f"{cp.type_name()} {cp.raw}" if isinstance(cp, Scalar) and cp.value is not None else cp.type_name()
            quoted = f'"{cp.raw}"' if isinstance(cp, Scalar) and cp.value is not None else "the project's id"
            yield bad(cp, f"cert_project_id must be a string, not {shown}",
                      "check_schema_operator_ci_config validates ci.yaml against the pipeline's JSON schema, where "
                      f"cert_project_id is a string, and fails the pull request. Quote it: {quoted}.")
        fbc = doc.get("fbc")
        en0 = fbc.get("enabled") if isinstance(fbc, Mapping) else None
        if ug is not None and not (isinstance(ug, Scalar) and ug.value is None) and isinstance(en0, Scalar) and en0.value is True:
            # read-config: yq -r '.updateGraph' != "null" (an empty updateGraph passes)
            yield RULE.at(sf, ug, "updateGraph is set, but this operator uses file-based catalogs (fbc.enabled: true)",
                          kind="fbc-update-graph", detail="Its catalogs hold the update graph, and the pipeline stops ('FBC is enabled, updateGraph cannot be "
                          "defined'). Remove updateGraph.")
        if fbc is None or (isinstance(fbc, Scalar) and fbc.value is None):
            continue
        if not isinstance(fbc, Mapping):
            yield bad(fbc, f"fbc must be a mapping (enabled, catalog_mapping, version_promotion_strategy), not {fbc.type_name()}")
            continue
        for k, _v in fbc.items():
            kv = k.value if isinstance(k, Scalar) else None
            if kv not in FBC_KEYS:
                hint = f" Did you mean '{_SUGGEST[kv]}'?" if kv in _SUGGEST else ""
                yield bad(k, f"'{kv}' is not a setting of fbc (known: {', '.join(FBC_KEYS)})",
                          f"The pipeline's schema refuses it.{hint}")
        en = fbc.get("enabled")
        if en is not None and not (isinstance(en, Scalar) and isinstance(en.value, bool)):
            shown = en.raw if isinstance(en, Scalar) else en.type_name()
            yield bad(en, f"fbc.enabled must be true or false (unquoted), not '{shown}'")
        vp = fbc.get("version_promotion_strategy")
        if vp is not None and not (_str(vp) and vp.value in PROMOTION):
            shown = vp.raw if isinstance(vp, Scalar) else vp.type_name()
            yield bad(vp, f"version_promotion_strategy '{shown}' is not one of {', '.join(PROMOTION)}",
                      "The promotion automation treats it as 'never'.")
        cm = fbc.get("catalog_mapping")
        if cm is None:
            continue
        if not isinstance(cm, Sequence):
            yield bad(cm, f"catalog_mapping must be a list of {{template_name, type, catalog_names}} entries, not {cm.type_name()}")
            continue
        seen_cat: dict[str, int] = {}
        for item in cm:
            if not isinstance(item, Mapping):
                yield bad(item, f"each catalog_mapping entry must be a mapping with template_name, type and catalog_names, not {item.type_name()}")
                continue
            for k, _v in item.items():
                kv = k.value if isinstance(k, Scalar) else None
                if kv not in MAPPING_KEYS and kv in _SUGGEST:
                    yield bad(k, f"'{kv}' is not a catalog_mapping key; did you mean '{_SUGGEST[kv]}'?",
                              f"The pipeline ignores '{kv}' and finds no {_SUGGEST[kv]}.")
            for key in MAPPING_KEYS:
                if key not in item:
                    yield bad(item, f"this catalog_mapping entry has no '{key}'",
                              "The pipeline's schema requires template_name, type and catalog_names.")
            tn = item.get("template_name")
            if tn is not None and not (_str(tn) and tn.value.strip()):
                yield bad(tn, "template_name must be the file name of a template in catalog-templates/")
            tp = item.get("type")
            if tp is not None and not (_str(tp) and tp.value in TEMPLATE_TYPES):
                shown = tp.raw if isinstance(tp, Scalar) else tp.type_name()
                yield bad(tp, f"type '{shown}' is not a template type the pipeline renders",
                          "Write 'olm.template.basic' or 'olm.semver'.")
            names = item.get("catalog_names")
            if names is None:
                continue
            if not isinstance(names, Sequence) or len(names) == 0:
                yield bad(names, "catalog_names must be a non-empty list of catalog names such as \"v4.16\"")
                continue
            for n in names:
                if not _str(n):
                    shown = n.raw if isinstance(n, Scalar) else n.type_name()
                    yield bad(n, f"the catalog name {shown} must be a quoted string such as \"v4.16\" (an unquoted v-less 4.10 reads as 4.1)")
                    continue
                if n.value in seen_cat:
                    yield RULE.at(sf, n, f"the catalog '{n.value}' is mapped twice (also at line {seen_cat[n.value]})"
                                  if seen_cat[n.value] != n.line else f"the catalog '{n.value}' is listed twice in catalog_names",
                                  kind="catalog-twice",
                                  detail="check_catalog_usage_ci_config fails the pull request when two templates map to the "
                                  "same catalog: each catalog is rendered from one template. Keep one.")
                else:
                    seen_cat[n.value] = n.line
