"""
What: the same key appears twice in one mapping (merge keys `<<` may repeat). An error
when the two values differ; a warning when they are the same (nothing is lost yet, but an
edit to one copy will be).

Why: YAML loaders keep only the last value without a word, so what you see in the first
place is not what OLM gets (a duplicated `spec:` loses half of the spec). Kubernetes'
decoder itself accepts repeated keys (sigs.k8s.io/yaml is not strict), but the community
and certified catalogs' pipeline runs yamllint on every bundle, and its `key-duplicates`
rule fails the pull request on any repeated key (with equal values too: olm-check keeps
those a warning, since nothing is lost).

Fix: remove one of them, or merge their contents.

Bad:
    metadata:
      name: a
      name: b
Good:
    metadata:
      name: b
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle, Repository
from .. import define, refusal
from ..lib.loader_problems import kind_of, problems, repo_files

HOSTED_PIPELINE = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/ansible/roles/"
                   "operator-pipeline/templates/openshift/pipelines/operator-hosted-pipeline.yml")

RULE = define("yaml-duplicate-key", "A YAML mapping repeats a key", __doc__, category="format",
              supersedes=("yaml-lint",),  # yamllint's key-duplicates at the same key: one finding, ours names the first
              refused_by=[
    refusal("catalog-ci", "the hosted pipeline's yaml-lint task runs yamllint with its default rules, whose "
            "key-duplicates rule fails on any repeated key", HOSTED_PIPELINE),
])


def findings_in(files):
    """The loader's yaml-duplicate-key problems in ``files``, as findings (a key repeated with
    the same value: kind ``same-value``)."""
    for sf, p in problems(files, RULE.id):
        yield RULE.at(sf, None, p.message, line=p.line, column=p.column, detail=p.detail,
                      kind=kind_of(p))


@RULE.check
def yaml_duplicate_key(bundle: Bundle, ctx: Context):
    yield from findings_in(bundle.files)


@RULE.check(scope="repo")
def yaml_duplicate_key_outside_bundles(repo: Repository, ctx: Context):
    yield from findings_in(repo_files(repo))
