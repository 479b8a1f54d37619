"""Catalog repository conventions: operator names and operators/<name>/ci.yaml."""
from __future__ import annotations

from collections import Counter

from ..catalogs import checked_operators
from ..nodes import Mapping, Scalar, Sequence
from . import check, define, finding, refusal, said

_CI = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/"

CATEGORY = "catalog"

define("operator-name", "error", "Package name, CSV name prefix and directory name disagree", category=CATEGORY, mixed=True, refused_by=[
    refusal("catalog-ci", "the static check check_operator_name fails a bundle whose package name, CSV name prefix or "
            "directory disagree, or that leaves the name the operator's other bundles share (a warning when they already "
            "disagree)", _CI + "operatorcert/static_tests/common/bundle.py"),
], explanation="""
    What: in a catalog repository (`operators/<name>/<version>/`), the package name in
    metadata/annotations.yaml, the operator name the CSV's metadata.name starts with
    (`<name>.v<version>`) and the directory name must be the same, in this bundle and across
    the operator's bundles. Error for the first bundle of an operator or when the other
    bundles agree on another name; warning when the operator's bundles already disagree among
    themselves (as the catalog's CI does).

    Why: the catalog's CI (static check `check_operator_name`) refuses a mismatch ("Operator
    name ... does not match"); a bundle with another package name would start a second
    package in the catalog.

    Fix: use one name everywhere: the directory, the package annotation and the CSV prefix.
    Where the operator's other bundles already agree on a name that differs from the package
    (project-quay's bundles all use `quay-operator`), keep it: `check_operator_name` warns on
    the difference but fails a bundle that leaves the name its other bundles agree on
    (operator-pipelines operatorcert/static_tests/common/bundle.py, `_check_consistency`), so
    the finding never advises renaming that one bundle.

    Bad:
        operators/foo-operator/1.0.0/metadata/annotations.yaml:
          operators.operatorframework.io.bundle.package.v1: foo
    Good:
          operators.operatorframework.io.bundle.package.v1: foo-operator
    """)


def _csv_op(f):
    return f.csv_name.split(".", 1)[0] if f.csv_name else None


def _shared_mismatch(facts, op) -> bool:
    if len(facts) < 2:
        return False
    pk = {f.package for f in facts}
    cs = {_csv_op(f) for f in facts}
    return len(pk) == 1 and len(cs) == 1 and (pk != cs or pk != {op})


def _newest(facts):
    from ..blangsemver import SemverError, parse_tolerant

    def key(f):
        for v in (f.version, f.version_dir):
            if isinstance(v, str):
                try:
                    return (1, parse_tolerant(v).key())
                except SemverError:
                    pass
        return (0, ())
    return max(facts, key=key) if facts else None


@check("repo")
def operator_name(repo, ctx):
    by = {}
    for f in repo.facts:
        if f.operator:
            by.setdefault(f.operator, []).append(f)
    for op, facts in sorted(by.items()):
        # a mismatch every bundle of the operator shares is an established convention the
        # catalog's CI only warns about: report it once, on the operator's newest bundle (when
        # it is checked: a bundle's findings do not depend on which others are checked)
        shared = _shared_mismatch(facts, op)
        newest = _newest(facts)
        # the names every bundle uses, counted once (less a bundle's own, below: the others')
        packages = Counter(f.package for f in facts if f.package)
        csv_ops = Counter(_csv_op(f) for f in facts if _csv_op(f))
        others = len(facts) > 1
        for f in facts:
            if not f.checked:
                continue
            if shared and f is not newest:
                continue
            pos_pkg = f.package_pos or f.annotations_pos
            ann_path = pos_pkg.path if pos_pkg else f.rel
            pkg = f.package
            csvop = _csv_op(f)
            if pkg is None and csvop is None:
                continue
            for what, mine, counts, pos in (("the package name", pkg, packages, f.package_pos or f.annotations_pos),
                                             ("the CSV's operator name", csvop, csv_ops, f.csv_pos)):
                if mine is None or not others:
                    continue
                theirs = counts - Counter({mine: 1})  # positive counts only
                if len(theirs) == 1:
                    common = next(iter(theirs))
                    if common != mine:
                        yield finding("operator-name", pos.path if pos else f.rel, None,
                                      f"{what} is '{mine}', but the operator's other bundles use '{common}'",
                                      kind="differs-from-other-bundles",
                                      detail="The catalog's CI (check_operator_name) refuses the change"
                                      + (" (another package name would start a new package)" if what == "the package name" else "")
                                      + f". Use '{common}'.",
                                      line=pos.line if pos else 1, column=pos.column if pos else 1)
            # check_operator_name fails the first bundle of an operator and warns on later ones: the
            # "-first" kinds are refused (verdicts.yaml), the others warned about
            # check_operator_name fails a bundle whose name differs from the one the operator's other
            # bundles agree on: where they agree on this bundle's name, renaming it here is refused
            csv_agreed = others and set(csv_ops - Counter({csvop: 1})) == {csvop}
            pkg_agreed = others and set(packages - Counter({pkg: 1})) == {pkg}
            if pkg and csvop and pkg != csvop:
                p = f.csv_pos
                if csv_agreed:
                    fix = (f"The operator's other bundles agree on '{csvop}', and the same check fails a bundle whose CSV "
                           f"operator name differs from theirs, so renaming this bundle's CSV to '{pkg}.v...' is refused: "
                           f"keep '{csvop}' (the warning stays with the operator's convention).")
                elif others:
                    fix = (f"The operator's other bundles already use several names ({', '.join(sorted(csv_ops))}), so the "
                           f"check only warns on any of them. '{pkg}.v{f.version or '<version>'}' is the name it asks for.")
                else:
                    fix = f"Rename the CSV to '{pkg}.v{f.version or '<version>'}'."
                yield finding("operator-name", p.path if p else f.rel, None,
                              f"the CSV name '{f.csv_name}' does not start with the package name '{pkg}'",
                              kind="csv-name-vs-package" if others else "csv-name-vs-package-first",
                              detail="The catalog's CI (check_operator_name) requires the CSV name to start with the package "
                              "name of annotations.yaml: it fails the first bundle of an operator and warns on later ones. "
                              + fix,
                              line=p.line if p else 1, column=p.column if p else 1)
            if pkg and pkg != op:
                p = f.package_pos or f.annotations_pos
                if pkg_agreed:
                    fix = (f"The operator's other bundles agree on the package '{pkg}', and the same check fails a bundle "
                           "whose package differs from theirs (another package name would also start a new package), and "
                           f"an operator's directory is not renamed: keep '{pkg}' (the warning stays with the operator's "
                           "convention).")
                else:
                    fix = f"Rename the directory or set the package to '{op}'."
                yield finding("operator-name", ann_path, None,
                              f"the package name '{pkg}' differs from the operator directory name '{op}'",
                              kind="package-vs-directory" if others else "package-vs-directory-first",
                              detail=f"The catalog's CI (check_operator_name) requires the package of annotations.yaml to "
                              f"match the directory name (operators/{op}): it fails the first bundle of an operator and warns "
                              f"on later ones. {fix}",
                              line=p.line if p else 1, column=p.column if p else 1)


define("ci-config", "error", "operators/<name>/ci.yaml is invalid", category=CATEGORY, refused_by=[
    refusal("catalog-ci", "the static check check_schema_operator_ci_config validates ci.yaml against the pipeline's JSON "
            "schema and fails the pull request on any violation", _CI + "operatorcert/static_tests/common/operator.py"),
    refusal("catalog-ci", "the pipeline's read-config task stops when an FBC operator's ci.yaml also sets updateGraph",
            _CI + "ansible/roles/operator-pipeline/templates/openshift/tasks/read-config.yaml"),
], explanation="""
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
    """)

UPDATE_GRAPH = ("replaces-mode", "semver-mode")
PROMOTION = ("never", "always", "review-needed")
TEMPLATE_TYPES = ("olm.template.basic", "olm.semver")
FBC_KEYS = ("enabled", "catalog_mapping", "version_promotion_strategy")
MAPPING_KEYS = ("template_name", "type", "catalog_names")
_SUGGEST = {"catalogs_names": "catalog_names", "catalog_name": "catalog_names", "catalogNames": "catalog_names",
            "templateName": "template_name", "template": "template_name", "enable": "enabled",
            "catalogMapping": "catalog_mapping", "versionPromotionStrategy": "version_promotion_strategy",
            "catalog_mappings": "catalog_mapping"}


def _str(n):
    return isinstance(n, Scalar) and isinstance(n.value, str)


@check("repo")
def ci_config(repo, ctx):
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

        def bad(node, msg, detail=None):
            if detail is not None:
                return finding("ci-config", sf, node, msg, detail=detail)
            return said("ci-config", sf, node, msg)  # "what; why. Fix." (split_message)

        if not isinstance(doc, Mapping):
            yield bad(doc, f"ci.yaml must be a mapping of settings (reviewers, updateGraph, fbc), not {doc.type_name()}; the pipeline cannot read it.")
            continue
        ug = doc.get("updateGraph")
        if ug is not None and not (_str(ug) and ug.value in UPDATE_GRAPH):
            shown = ug.raw if isinstance(ug, Scalar) else ug.type_name()
            yield bad(ug, f"updateGraph '{shown}' is not one the pipeline knows; write 'replaces-mode' (edges from spec.replaces) or 'semver-mode' (edges by version).")
        rv = doc.get("reviewers")
        if rv is not None:
            if isinstance(rv, Scalar) and rv.value is None:
                yield bad(rv, "reviewers is empty; the pipeline requires at least one GitHub user name, or leave the key out.")
            elif not isinstance(rv, Sequence):
                yield bad(rv, f"reviewers must be a list of GitHub user names, not {rv.type_name()}.")
            elif len(rv) == 0:
                yield bad(rv, "reviewers is an empty list; the pipeline requires at least one GitHub user name, or leave the key out.")
            else:
                for item in rv:
                    if not _str(item) or not item.value.strip():
                        yield bad(item, f"each reviewer must be a GitHub user name (a string), not {item.type_name() if not _str(item) else 'an empty string'}.")
        mg = doc.get("merge")
        if mg is not None and not (isinstance(mg, Scalar) and isinstance(mg.value, bool)):
            yield bad(mg, "merge must be true or false.")
        fbc = doc.get("fbc")
        en0 = fbc.get("enabled") if isinstance(fbc, Mapping) else None
        if ug is not None and isinstance(en0, Scalar) and en0.value is True:
            yield bad(ug, "updateGraph is set, but this operator uses file-based catalogs (fbc.enabled: true)",
                      "Its catalogs hold the update graph, and the pipeline stops ('FBC is enabled, updateGraph cannot be "
                      "defined'). Remove updateGraph.")
        if fbc is None or (isinstance(fbc, Scalar) and fbc.value is None):
            continue
        if not isinstance(fbc, Mapping):
            yield bad(fbc, f"fbc must be a mapping (enabled, catalog_mapping, version_promotion_strategy), not {fbc.type_name()}.")
            continue
        for k, _v in fbc.items():
            kv = k.value if isinstance(k, Scalar) else None
            if kv not in FBC_KEYS:
                hint = f" Did you mean '{_SUGGEST[kv]}'?" if kv in _SUGGEST else ""
                yield bad(k, f"'{kv}' is not a setting of fbc (known: {', '.join(FBC_KEYS)}); the pipeline's schema refuses it.{hint}")
        en = fbc.get("enabled")
        if en is not None and not (isinstance(en, Scalar) and isinstance(en.value, bool)):
            shown = en.raw if isinstance(en, Scalar) else en.type_name()
            yield bad(en, f"fbc.enabled must be true or false (unquoted), not '{shown}'.")
        vp = fbc.get("version_promotion_strategy")
        if vp is not None and not (_str(vp) and vp.value in PROMOTION):
            shown = vp.raw if isinstance(vp, Scalar) else vp.type_name()
            yield bad(vp, f"version_promotion_strategy '{shown}' is not one of {', '.join(PROMOTION)}; the promotion automation treats it as 'never'.")
        cm = fbc.get("catalog_mapping")
        if cm is None:
            continue
        if not isinstance(cm, Sequence):
            yield bad(cm, f"catalog_mapping must be a list of {{template_name, type, catalog_names}} entries, not {cm.type_name()}.")
            continue
        seen_cat = {}
        for item in cm:
            if not isinstance(item, Mapping):
                yield bad(item, f"each catalog_mapping entry must be a mapping with template_name, type and catalog_names, not {item.type_name()}.")
                continue
            for k, _v in item.items():
                kv = k.value if isinstance(k, Scalar) else None
                if kv not in MAPPING_KEYS and kv in _SUGGEST:
                    yield bad(k, f"'{kv}' is not a catalog_mapping key; did you mean '{_SUGGEST[kv]}'?",
                              f"The pipeline ignores '{kv}' and finds no {_SUGGEST[kv]}.")
            for key in MAPPING_KEYS:
                if key not in item:
                    yield bad(item, f"this catalog_mapping entry has no '{key}'; the pipeline's schema requires template_name, type and catalog_names.")
            tn = item.get("template_name")
            if tn is not None and not (_str(tn) and tn.value.strip()):
                yield bad(tn, "template_name must be the file name of a template in catalog-templates/.")
            tp = item.get("type")
            if tp is not None and not (_str(tp) and tp.value in TEMPLATE_TYPES):
                shown = tp.raw if isinstance(tp, Scalar) else tp.type_name()
                yield bad(tp, f"type '{shown}' is not a template type the pipeline renders; write 'olm.template.basic' or 'olm.semver'.")
            names = item.get("catalog_names")
            if names is None:
                continue
            if not isinstance(names, Sequence) or len(names) == 0:
                yield bad(names, "catalog_names must be a non-empty list of catalog names such as \"v4.16\".")
                continue
            for n in names:
                if not _str(n):
                    shown = n.raw if isinstance(n, Scalar) else n.type_name()
                    yield bad(n, f"the catalog name {shown} must be a quoted string such as \"v4.16\" (an unquoted v-less 4.10 reads as 4.1).")
                    continue
                if n.value in seen_cat:
                    yield bad(n, f"the catalog '{n.value}' is mapped twice (also at line {seen_cat[n.value]}); each catalog is rendered from one template. Keep one.")
                else:
                    seen_cat[n.value] = n.line
