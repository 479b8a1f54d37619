"""
What: for a bundle checked on its own (not inside a catalog repository), the
`com.redhat.openshift.versions` in metadata/annotations.yaml and the LABEL of the same
name in bundle.Dockerfile (or Dockerfile) name different ranges (error), or one of them
lacks it (the Dockerfile: warning). No Dockerfile at all is fine. Inside a catalog
repository (`operators/<name>/<version>/`) the rule does not apply: the catalog pipeline
generates the Dockerfile from annotations.yaml (operator-pipelines' dockerfile-creation
step), so the Dockerfile in the pull request is never built.

Why: the bundle image's labels and its annotations.yaml are read by different tools; when
they disagree, the bundle lands in catalogs nobody intended.

Refused by: publication of the built bundle image, which follows the image's LABEL
(Red Hat's "Managing OpenShift versions").

Fix: make both the same value.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import LABEL_KEY, clip, parse_label
from .. import define, refusal
from ..lib.versions_common import OCP_VERSIONS_DOC

RULE = define("ocp-versions-mismatch", "annotations.yaml and the Dockerfile LABEL disagree on the OpenShift range",
              __doc__, category="version", refused_by=[
    refusal("certification", "a bundle image built from this Dockerfile is published to the catalogs its LABEL names, not those "
            "annotations.yaml names",
            OCP_VERSIONS_DOC),
])


@RULE.check
def ocp_versions_mismatch(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    af = bundle.annotations_file
    if bundle.annotations is None or af is None:
        return
    lr = vi.label_parsed
    node = vi.label_node
    # Dockerfile LABEL vs annotations.yaml: inside a catalog repository the pipeline generates
    # the Dockerfile from annotations.yaml, so only a standalone bundle's Dockerfile is built
    df = bundle.dockerfile if bundle.operator is None else None
    if df is None:
        return
    lab = df.labels.get(LABEL_KEY)
    colon = next((x for k, x in df.labels.items() if k.rstrip(":").strip() == LABEL_KEY and k != LABEL_KEY), None)
    if lab is None and node is not None and colon is not None:
        # 'LABEL key: value' is Docker's legacy 'LABEL key value' form: the label is named 'key:'
        yield RULE.at(df.file, None,
                      f"the LABEL {LABEL_KEY} is written 'key: value', so the image has no such label", line=colon.line, column=colon.column,
                      detail="Docker reads 'LABEL key value' (no '=') as the legacy form and keeps the colon in the key, so a "
                      f"bundle image built from this Dockerfile lacks {LABEL_KEY}. Write LABEL {LABEL_KEY}=\"{vi.label}\".")
    elif lab is None and node is not None:
        yield RULE.at(df.file, None,
                      f"{df.file.rel.rsplit('/', 1)[-1]} has no LABEL {LABEL_KEY}, while metadata/annotations.yaml sets it to "
                      f"'{clip(vi.label)}'", line=1, column=1,
                      detail=f"A bundle image built from this Dockerfile lacks the label. Add: LABEL {LABEL_KEY}=\"{vi.label}\".")
    elif lab is not None and node is None:
        yield RULE.at(af, bundle.annotations,
                      f"metadata/annotations.yaml has no {LABEL_KEY}, while the Dockerfile sets LABEL {clip(lab.value)} (line {lab.line})",
                      detail=f"Tools reading annotations.yaml publish the bundle to every catalog. Add '{LABEL_KEY}: \"{lab.value}\"' here.")
    elif lab is not None and lr is not None:
        dl = parse_label(lab.value)
        same = (dl.ok and lr.ok and (dl.lower, dl.upper, dl.exact) == (lr.lower, lr.upper, lr.exact)) or dl.raw == lr.raw
        if not same:
            yield RULE.at(df.file, None,
                          f"LABEL {LABEL_KEY}={clip(lab.value)} differs from metadata/annotations.yaml ('{clip(vi.label)}')",
                          line=lab.line, column=lab.column,
                          detail="The image and the catalog would publish the bundle to different releases. Make them the same.")
