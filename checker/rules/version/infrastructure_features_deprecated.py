"""
What: the CSV uses the `operators.openshift.io/infrastructure-features` annotation while its
range reaches OpenShift 4.14 or later.
- Without any `features.operators.openshift.io/*` annotation: warning.
- Beside them, in a range that reaches only 4.14 and later: info (the legacy annotation is
  redundant there).
- Beside them, in a range that also reaches 4.13 or earlier: not reported. The consoles of
  those releases read only the legacy annotation, so keeping both is right.

Why: OpenShift 4.14 deprecates it in favour of one `features.operators.openshift.io/*`
annotation per feature (the form Red Hat's certification checks). The console reads the newer annotations from 4.14
and still reads the legacy one (openshift/console, `getInfrastructureFeatures` in
operator-hub-utils; CONSOLE-3758 added the newer ones "while preserving support for existing
infrastructure-features annotation"), so nothing breaks today.

Fix: add one `features.operators.openshift.io/<feature>: "true"|"false"` annotation per
feature (disconnected, fips-compliant, proxy-aware, tls-profiles, ...); drop the legacy
annotation once the range no longer reaches 4.13 or earlier.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define
from ..lib.versions_common import installable_releases, rels

RULE = define("infrastructure-features-deprecated", "operators.openshift.io/infrastructure-features is deprecated (warning without the newer annotations, info beside them)",
              __doc__, category="version")


@RULE.check
def infrastructure_features_deprecated(bundle: Bundle, ctx: Context):
    csv = bundle.csv
    if csv is None:
        return
    rng = installable_releases(bundle, ctx.ocp)
    inf = csv.annotation("operators.openshift.io/infrastructure-features")
    if inf is None:
        return
    late = [r for r in rng if r.key >= (4, 14)]
    if not late:
        return
    ann = csv.annotations()
    keynode = ann.key_node("operators.openshift.io/infrastructure-features") if ann is not None else inf
    newer = ann is not None and any(isinstance(k, str) and k.startswith("features.operators.openshift.io/") for k in ann.keys())
    early = len(late) < len(rng)  # the range also reaches 4.13 or earlier, whose consoles read only the legacy form
    if newer and early:
        return  # both forms in parallel: the legacy one serves the consoles before 4.14, the newer ones the later
    if newer:
        yield RULE.at(csv.file, keynode,
                      f"operators.openshift.io/infrastructure-features is redundant beside the features.operators.openshift.io "
                      f"annotations on OpenShift {rels(late)}", ocp=late, kind="redundant",
                      detail="It is deprecated from 4.14, whose console reads the newer annotations this CSV already has, and "
                      "the range reaches no earlier release. It can be dropped; nothing refuses it.")
        return
    before = (" Keep it beside them while the range reaches OpenShift 4.13 or earlier, whose consoles read only this "
              "annotation.") if early else " Then drop it."
    yield RULE.at(csv.file, keynode,
                  f"operators.openshift.io/infrastructure-features is deprecated on OpenShift {rels(late)}", ocp=late,
                  detail="The console still reads it, but the documentation and Red Hat's certification use the newer "
                  "annotations. Add one features.operators.openshift.io/<feature>: \"true\"|\"false\" annotation "
                  "per feature (disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws, token-auth-azure, "
                  "token-auth-gcp)." + before)
