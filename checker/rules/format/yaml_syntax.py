"""
What: the file does not parse as YAML, or parses only as YAML that Kubernetes' decoder
(sigs.k8s.io/yaml on go-yaml v2, used by opm, operator-sdk, OLM and kubectl) refuses: a
merge key `<<` given a single value, a list of non-mappings or an alias to one ("map
merge requires map or sequence of maps as the value"), a mapping key that is a list or a
mapping (a complex `? ` key: "invalid map key"), or a null key (`~:`, `null:`; JSON keys
are strings). The finding points at the line and column where the parser stopped, or at
the offending key; in the second case the rest of the file is still checked.

Why: opm, OLM and the API server cannot read the file, so the bundle cannot be built or
installed: opm's bundle validation fails, and its bundle parser drops the object. Nothing
else in the file is checked until it parses.

Fix: correct the syntax at the position shown (often an indentation slip, a tab, a missing
`:` or an unclosed quote or bracket).

Bad:
    spec:
      displayName: "My operator
    metadata:
      <<: 5
Good:
    spec:
      displayName: "My operator"
    metadata:
      <<: *defaults
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle, Repository
from .. import define, refusal
from ..lib.loader_problems import problems, repo_files

OPM_VALIDATE = "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/validate.go"
SIGS_YAML = "https://github.com/kubernetes-sigs/yaml/blob/master/yaml.go"
HOSTED_PIPELINE = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/ansible/roles/"
                   "operator-pipeline/templates/openshift/pipelines/operator-hosted-pipeline.yml")

RULE = define("yaml-syntax", "A file is not valid YAML, or is YAML Kubernetes' decoder refuses", __doc__, category="format", refused_by=[
    refusal("opm", "`opm alpha bundle validate` decodes every manifest and fails on one that does not decode; "
            "opm's bundle parser drops it (and without its CSV the bundle has none)", OPM_VALIDATE),
    refusal("catalog-ci", "the hosted pipeline's yaml-lint task (yamllint) and operator-sdk's bundle loader "
            "(\"unable to decode object\") fail the pull request", HOSTED_PIPELINE),
    refusal("api-server", "sigs.k8s.io/yaml (go-yaml v2) refuses a merge key without a mapping, a list or mapping "
            "as a key and a null key", SIGS_YAML),
])


def findings_in(files):
    """The loader's yaml-syntax problems in ``files``, as findings."""
    for sf, p in problems(files, RULE.id):
        yield RULE.at(sf, None, p.message, line=p.line, column=p.column, detail=p.detail)


@RULE.check
def yaml_syntax(bundle: Bundle, ctx: Context):
    yield from findings_in(bundle.files)


@RULE.check(scope="repo")
def yaml_syntax_outside_bundles(repo: Repository, ctx: Context):
    yield from findings_in(repo_files(repo))
