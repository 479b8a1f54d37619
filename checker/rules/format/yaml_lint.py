"""
What: the problems yamllint reports in the bundle directory's YAML files (`*.yaml`,
`*.yml`) with the configuration the community, certified and marketplace catalogs'
pipeline gives it: `{extends: default, rules: {line-length: {max: 180, level: warning},
indentation: {indent-sequences: whatever}}}`. Each finding is one yamllint problem, at its
line and column, with yamllint's rule id (`trailing-spaces`, `new-line-at-end-of-file`,
`key-duplicates`, `indentation`, `empty-lines`, `document-start`, `truthy`, ...).

Why: the hosted pipeline's yaml-lint task runs `yamllint` on the pull request's bundle
directory; an error-level problem fails the task and the pull request (a warning does
not). It lints only the bundle a pull request adds, so olm-check lints the bundles a
change list adds or changes (the GitHub Action on a pull request, `--changed-since`), not
the released bundles of a whole catalog (yamllint reads about 0.2 MB/s: a catalog would
take hours); `options: {yaml-lint: {all_bundles: true}}` in `.olm-check.yaml` lints every
bundle a run checks. Files over 2 MiB are not linted. A syntax error olm-check's own
loader reports (yaml-syntax) is not repeated here; a repeated key with a different value
is told by yaml-duplicate-key.

Fix: what yamllint asks for at the position shown: remove trailing spaces, end the file
with a newline, remove the repeated key, fix the indentation, remove extra blank lines.

Bad:
    metadata:
      name: a
    spec: { replicas: 1 }
Good:
    metadata:
      name: a
    spec: {replicas: 1}
"""
from __future__ import annotations

import hashlib
from functools import lru_cache

from ...context import Context
from ...model import Bundle
from .. import define, refusal

# operator-pipelines@422dfd6e ansible/roles/operator-pipeline/templates/openshift/pipelines/
# operator-hosted-pipeline.yml, task yaml-lint (tasks/yaml-lint.yml: `yamllint "$(params.path)"
# "$(params.args)"`, path = detect-changes' bundle_path): the community, certified and
# marketplace catalogs' hosted pipeline (community-hosted-pipeline-trigger.yml runs the same
# pipeline); get-pyxis-certification-data runs after it, so its failure stops the pull request.
YAMLLINT_CONFIG = ("{extends: default, rules: {line-length: {max: 180, level: warning}, "
                   "indentation: {indent-sequences: whatever}}}")
HOSTED_PIPELINE = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/ansible/roles/"
                   "operator-pipeline/templates/openshift/pipelines/operator-hosted-pipeline.yml")
# the files yamllint lints in a directory it is given (its default `yaml-files`)
_YAML_SUFFIXES = (".yaml", ".yml")
# a file larger than this is not linted (yamllint's pure-Python scanner reads about 0.2 MB/s:
# a 16 MiB manifest would take over a minute); such a manifest is refused by bundle-size anyway
MAX_LINT_BYTES = 2 << 20


@lru_cache(maxsize=1)
def _config():
    from yamllint.config import YamlLintConfig

    return YamlLintConfig(YAMLLINT_CONFIG)


def _in_scope(bundle: Bundle, ctx) -> bool:
    """Is ``bundle`` one the pipeline lints: the bundle a change list (a pull request,
    ``--changed-since``) adds or changes (``Context.submitted``). Without a change list
    nothing is linted (a released bundle is not linted again: detect-changes refuses a pull
    request that edits one), unless ``options: {yaml-lint: {all_bundles: true}}`` asks."""
    return bool(ctx.option("yaml-lint", "all_bundles", False)) or ctx.submitted(bundle.rel)


RULE = define("yaml-lint", "yamllint, with the catalog pipeline's configuration, reports a problem in the bundle", __doc__, refused_by=[
          refusal("catalog-ci", "the hosted pipeline's yaml-lint task runs yamllint on the bundle directory "
                  "(extends default; line-length 180 as a warning; indent-sequences whatever) and fails the pull "
                  "request on any error", HOSTED_PIPELINE),
      ], category="format")


@RULE.check
def yaml_lint(bundle: Bundle, ctx: Context):
    if not _in_scope(bundle, ctx):
        return
    for sf in bundle.files:
        name = sf.rel.rsplit("/", 1)[-1]
        if not name.endswith(_YAML_SUFFIXES):
            continue
        data = sf.content() if sf.text is not None else None
        if data is None:
            continue  # not read or not text (yaml-limits says why)
        if len(data) > MAX_LINT_BYTES:
            yield RULE.at(sf, None, f"{name} is not linted: it is larger than "
                          f"{MAX_LINT_BYTES >> 20} MiB", kind="skipped", line=1, column=1,
                          detail="olm-check does not run yamllint on files this large (it would take minutes); the "
                          "pipeline's yaml-lint task does. Run `yamllint` on it yourself with the pipeline's "
                          f"configuration: yamllint -d '{YAMLLINT_CONFIG}' {name}")
            continue
        loader_syntax = any(p.rule == "yaml-syntax" for p in sf.problems)
        try:
            found = problems(data)
        except Exception as e:  # yamllint's own failure on odd input: say so, never a traceback
            yield RULE.at(sf, None, f"yamllint could not lint {name}: {type(e).__name__}",
                          kind="skipped", line=1, column=1,
                          detail="The pipeline's yaml-lint task would fail on it too. Make it plain UTF-8 YAML.")
            continue
        for line, column, level, rid, desc in found:
            if rid == "syntax" and loader_syntax:
                continue  # yaml-syntax reports it, at its own position
            warning = level == "warning"
            detail = ("yamllint, run by the catalog pipeline's yaml-lint task with the pipeline's configuration, "
                      + ("warns here; the task does not fail on warnings." if warning else
                         "fails the pull request on this error.")
                      + f" Fix it at the position shown (yamllint's rule: {rid}).")
            yield RULE.at(sf, None, message(desc, rid), line=line, column=column,
                          kind="warning" if warning else "", detail=detail)


# yamllint's problems by the content's digest: a file is linted once per process, however
# many bundles hold the same bytes (a bundle copied from the previous one) and whether the head
# or the base (checker/baseline.py) asks
_SEEN: dict = {}
_SEEN_MAX = 4096


def problems(data: bytes) -> tuple:
    """yamllint's problems in ``data`` with the pipeline's configuration: (line, column,
    level, rule id, description) each, cached by the content's sha256."""
    k = hashlib.sha256(data).digest()
    got = _SEEN.get(k)
    if got is None:
        got = tuple((p.line, p.column, p.level, p.rule or "syntax", _clean(p.desc)) for p in _lint(data, _config()))
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[k] = got
    return got


def message(desc: str, rid: str) -> str:
    """A yaml-lint finding's message for yamllint's problem ``desc`` of rule ``rid``."""
    return f"{desc} ({rid})"


def _lint(data: bytes, conf):
    from yamllint import linter

    return linter.run(data, conf)


def _clean(desc: str) -> str:
    """yamllint's description on one line."""
    desc = " ".join(str(desc).split())
    return desc
