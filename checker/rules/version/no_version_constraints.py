"""
What: none of `com.redhat.openshift.versions`, `olm.maxOpenShiftVersion`, or
`spec.minKubeVersion` is set.

Why: it is published to every catalog and checked against every known release with a
catalog (4.6 and later), including those where APIs it uses are removed. operator-sdk's
operatorhub validator, which the community catalog's CI runs, warns already when
minKubeVersion alone is missing ("It is recommended you provide this information.
Otherwise, it would mean that your operator project can be distributed and installed in
any cluster version available"); this rule reports only a bundle with no constraint at all.
It replaces `ocp-versions-missing` at the same place (one finding for one problem) unless
that one is the more severe (the `certified` profile, or a configuration raising it). Not
reported for operators whose file-based catalogs decide publication.

Fix: declare the range it supports (`com.redhat.openshift.versions: "v4.12"`) and, where it
applies, minKubeVersion / maxOpenShiftVersion.
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from ...versions import LABEL_KEY
from .. import define
from ..lib.versions_common import fbc_operator, rels

RULE = define("no-version-constraints", "The bundle declares no OpenShift or Kubernetes version constraints",
              __doc__, category="version", supersedes=("ocp-versions-missing",))


@RULE.check
def no_version_constraints(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    if vi.no_constraints and bundle.mediatype in (REGISTRY_V1, None) and bundle.annotations_file is not None and not vi.explicit_target \
            and not fbc_operator(bundle):
        yield RULE.at(bundle.annotations_file, bundle.annotations,
                      f"the bundle specifies no supported OpenShift or Kubernetes version: it goes to every catalog "
                      f"({rels(ctx.ocp.catalog_releases)})",
                      detail="It is published to every catalog and checked against every known release that has one. "
                      f"Set {LABEL_KEY} here (e.g. \"v4.12\"), and spec.minKubeVersion / olm.maxOpenShiftVersion where they apply.")
