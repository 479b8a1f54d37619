"""
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
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

from ...context import Context
from ...model import BundleFacts, Repository
from ...upstream.blangsemver import SemverError, parse_tolerant
from .. import define, refusal

_CI = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/"

RULE = define("operator-name", "Package name, CSV name prefix and directory name disagree", __doc__, category="catalog",
              refused_by=[
    refusal("catalog-ci", "the static check check_operator_name fails a bundle whose package name, CSV name prefix or "
            "directory disagree, or that leaves the name the operator's other bundles share (a warning when they already "
            "disagree)", _CI + "operatorcert/static_tests/common/bundle.py"),
])


def _csv_op(f):
    return f.csv_name.split(".", 1)[0] if f.csv_name else None


def _shared_mismatch(facts, op) -> bool:
    if len(facts) < 2:
        return False
    pk = {f.package for f in facts}
    cs = {_csv_op(f) for f in facts}
    return len(pk) == 1 and len(cs) == 1 and (pk != cs or pk != {op})


def _newest(facts):
    def key(f):
        for v in (f.version, f.version_dir):
            if isinstance(v, str):
                try:
                    return (1, parse_tolerant(v).key())
                except SemverError:
                    pass
        return (0, ())
    return max(facts, key=key) if facts else None


@RULE.check(scope="repo")
def operator_name(repo: Repository, ctx: Context):
    by: dict[str, list[BundleFacts]] = {}
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
        packages: Counter[Optional[str]] = Counter(f.package for f in facts if f.package)
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
                        yield RULE.at(pos.path if pos else f.rel, None,
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
                yield RULE.at(p.path if p else f.rel, None,
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
                yield RULE.at(ann_path, None,
                              f"the package name '{pkg}' differs from the operator directory name '{op}'",
                              kind="package-vs-directory" if others else "package-vs-directory-first",
                              detail=f"The catalog's CI (check_operator_name) requires the package of annotations.yaml to "
                              f"match the directory name (operators/{op}): it fails the first bundle of an operator and warns "
                              f"on later ones. {fix}",
                              line=p.line if p else 1, column=p.column if p else 1)
