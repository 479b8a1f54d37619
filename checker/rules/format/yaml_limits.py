"""
What: olm-check refuses to read a file that is larger than its size limit (16 MiB by
default), nests deeper than its depth limit (128), expands aliases past its limit (an
"alias bomb"), is binary or not UTF-8, or is a symbolic link pointing outside the checked
tree.

Why: such files are either mistakes (a binary in manifests/, a link to a developer's
machine) or attacks on the checker; catalog tooling and the API server refuse them too:
Kubernetes' YAML decoder refuses bytes that are not UTF-8, control characters and
excessive aliasing, the bundle image is built without what a link out of the bundle
directory points to, and a bundle over 1 MiB never installs. These are errors. Where only
olm-check stops (nesting deeper than its own limit, a UTF-16 file, a pipe or device, a
file it may not read) the finding is a warning: nothing else is known to refuse it, but
the file was not checked.

Fix: replace the file with the plain UTF-8 YAML it should be. Limits can be raised in
`.olm-check.yaml` (`limits: {max_file_mib, max_depth, max_alias_nodes}`) when a file is
genuinely that large.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle, Repository
from .. import define, refusal
from ..lib.loader_problems import kind_of, problems, repo_files

GO_YAML = "https://github.com/yaml/go-yaml/blob/v2/decode.go"
API_BUNDLE = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/bundle.go"
BUILDKIT_LINKS = "https://github.com/moby/buildkit/discussions/6840"

RULE = define("yaml-limits", "A file is refused: too large, too deep, an alias bomb, binary, not UTF-8, or a symlink out of the tree",
              __doc__, category="format", refused_by=[
    refusal("opm", "go-yaml, under sigs.k8s.io/yaml, refuses bytes that are not UTF-8 or are control characters and "
            "\"excessive aliasing\"; opm cannot decode such a manifest, nor read a broken link", GO_YAML),
    refusal("catalog-ci", "the bundle image is built from the bundle directory; the image builder does not follow a "
            "symbolic link out of its build context, so the image lacks what the link points to", BUILDKIT_LINKS),
    refusal("olm-install", "OLM unpacks a bundle into a ConfigMap; a file over the 1 MiB a bundle may take never "
            "installs", API_BUNDLE),
])


def findings_in(files):
    """The loader's yaml-limits problems in ``files``, as findings (where only olm-check stops
    reading, the loader's warnings: kind ``unchecked``)."""
    for sf, p in problems(files, RULE.id):
        yield RULE.at(sf, None, p.message, line=p.line, column=p.column, detail=p.detail,
                      kind=kind_of(p))


@RULE.check
def yaml_limits(bundle: Bundle, ctx: Context):
    yield from findings_in(bundle.files)


@RULE.check(scope="repo")
def yaml_limits_outside_bundles(repo: Repository, ctx: Context):
    yield from findings_in(repo_files(repo))
