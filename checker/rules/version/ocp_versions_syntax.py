"""
What: the `com.redhat.openshift.versions` annotation (metadata/annotations.yaml) must be
one of the documented forms: 'v4.12' (4.12 and every later release), '=v4.12' (4.12 only), 'v4.12-v4.16' (4.12 to 4.16); the legacy `v4.5,v4.6` is also accepted.

Why: catalog tooling decides from this value which OpenShift catalogs include the bundle;
a value it cannot read keeps the bundle out of every catalog (or, for a YAML number such as
an unquoted `4.10`, reads a different release: 4.1).

Refused by: the catalog pipeline, which asks for the catalogs of the range (a value it
cannot read fails that step or names no catalog).

Fix: write one of the accepted forms, quoted.

Bad:
    com.redhat.openshift.versions: 4.10
    com.redhat.openshift.versions: "v4.6 - v4.8"
Good:
    com.redhat.openshift.versions: "v4.10"
    com.redhat.openshift.versions: "v4.6-v4.8"
"""
from __future__ import annotations

import re

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from ...versions import LABEL_KEY
from .. import define, refusal
from ..lib.fixes import fix_value
from ..lib.versions_common import CI_INDICES, OCP_VERSIONS_DOC

RULE = define("ocp-versions-syntax", "com.redhat.openshift.versions is not a valid range", __doc__, category="version", refused_by=[
    refusal("catalog-ci", "the pipeline's get-supported-versions step asks for the catalogs of the range; a value it cannot "
            "read fails the step or names no catalog, so the bundle is published nowhere",
            CI_INDICES),
    refusal("certification", "Red Hat's documented grammar for the range; other forms are not supported",
            OCP_VERSIONS_DOC),
])


@RULE.check
def ocp_versions_syntax(bundle: Bundle, ctx: Context):
    af = bundle.annotations_file
    if bundle.annotations is None or af is None:
        return
    lr = bundle.versions.label_parsed
    node = bundle.versions.label_node
    if lr is None or lr.ok:
        return
    fix = None
    if isinstance(node, Scalar) and not isinstance(node.value, str) and node.value is not None:
        fix = fix_value(af, node, f'"v{node.raw}"', "quote the value and add the 'v'")
    elif isinstance(node, Scalar) and isinstance(node.value, str) and "V" in node.value and not re.search(r"\s", node.value):
        fix = fix_value(af, node, '"' + node.value.replace("V", "v") + '"', "use a lowercase 'v'")
    elif isinstance(node, Scalar) and isinstance(node.value, str) and re.search(r"\s", node.value):
        fix = fix_value(af, node, '"' + re.sub(r"\s+", "", node.value) + '"', "remove the spaces")
    yield RULE.at(af, node, f"{LABEL_KEY}: {lr.error.message}", fix=fix, detail=lr.error.detail)
