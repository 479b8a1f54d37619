"""
What: every entry of the CSV's `spec.relatedImages` needs a `name` and an `image` that is a
valid image reference: `registry/path[:tag][@digest]`, lowercase repository path, a tag of
at most 128 characters, a digest such as `sha256:` followed by 64 hexadecimal characters;
no scheme (`docker://`, `oci://`, `https://`) and no spaces. olm-check applies the grammar
of distribution/reference (`ParseNormalizedNamed`).

An **error** (kind `wrong-type`) when OLM cannot decode it: relatedImages that is not a
list, an entry that is not a mapping, or a name or image that is not a string. OLM's
catalog operator decodes the bundle's CSV into its Go type (`json.Unmarshal`,
operator-lifecycle-manager pkg/controller/operators/catalog/operator.go, ExecutePlan,
@992bb097), where `RelatedImage` is `{Name string json:"name"; Image string
json:"image"}` (operator-framework/api clusterserviceversion_types.go); the decode fails
and so does the InstallPlan, on the releases from 4.8 (OLM 0.18, api v0.8.0) the bundle
installs on; a warning when it installs only on 4.6-4.7, whose OLM has no such field.

A **warning** for an entry without a `name` (kind `no-name`), without an `image` (kind
`no-image`; often the image is given under `value:`, kind `image-under-other-key`), with
an empty image (kind `empty-image`), or with a string that is not a valid reference (kind
`invalid-reference`): the image is not mirrored, but nothing refuses the bundle. OLM
creates the CSV through its typed client, which sends a missing name or image as `""`
(the fields have no omitempty) and drops an unknown key such as `value`, so the CRD's
`required: [image, name]` is satisfied and the API server accepts the CSV. opm does not
validate related images (its catalog model leaves the check out because production
catalogs hold entries without images), and the pull spec check operator-framework/api
added in v0.40.0 (`validateRelatedImages`, February 2026) is not in any operator-sdk
release yet (operator-sdk v1.42 builds on api v0.34; the community catalog pipeline runs
v1.36.1).

Why: relatedImages tell mirroring tools (`oc adm catalog mirror`, `oc-mirror`) which images
to copy for disconnected clusters and appear in the catalog; an entry without a usable
pull spec leaves its image unmirrored, and one OLM cannot decode keeps the bundle from
being installed at all.

Fix: write the full pull spec under `image:`, ideally pinned by digest, and a `name:`.

Bad:
    relatedImages:
      - name: operator
        value: quay.io/example/operator:v1.0.0
      - name: agent
        image: docker://quay.io/Example/agent:v1.0.0
Good:
    relatedImages:
      - name: operator
        image: quay.io/example/operator@sha256:4b8e2a2a24a3c0fbc5a2b5c6d7e8f90112233445566778899aabbccddeeff001
"""
from __future__ import annotations

import re
from typing import Optional

from ...context import Context
from ...finding import Fix, clip
from ...model import REGISTRY_V1, Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...upstream.docker_reference import image_reference_problem
from ...versions import release_ranges, vkey
from .. import define, refusal
from ..lib.csv import data
from ..lib.fixes import fix_value


def _repaired(s: str) -> Optional[str]:
    """A corrected spelling for the mistakes that have one obvious repair."""
    t = s.strip()
    t = re.sub(r"^(?:docker|https?|oci)://", "", t)
    if t != s and t and image_reference_problem(t) is None:
        return t
    return None



RULE = define("related-image-invalid", "A relatedImages entry is empty or not a valid image reference", __doc__, refused_by=[
    refusal("olm-install", "from OpenShift 4.8 (OLM 0.18, operator-framework/api v0.8.0) OLM decodes the CSV into its Go "
            "type, where relatedImages is a list of {name, image} strings, before creating it; a relatedImages that is "
            "not a list, an entry that is not a mapping, or a name or image that is not a string fails that decode and "
            "the InstallPlan (an error on the releases from 4.8 the bundle installs on; a warning when it installs "
            "only on older ones, whose OLM ignores the field)",
            "https://github.com/operator-framework/operator-lifecycle-manager/blob/"
            "992bb097749e5994eedc5e4882583df952d8a70e/pkg/controller/operators/catalog/operator.go#L2533-L2539"),
], category="format")


@RULE.check
def related_image_invalid(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return
    csv = bundle.csv
    spec = csv.spec() if csv is not None else None
    if csv is None or spec is None or "relatedImages" not in spec:
        return
    sf = csv.file
    ri = spec.get("relatedImages")
    since = vkey(str(data()["related_images_schema_from"]))
    refusing = [r for r in ctx.ocp.releases if r.ocp in bundle.versions.ocp_installable and r.key >= since]

    def refused(node, message, detail, fix=None):
        """A shape OLM cannot decode into its CSV type: the install fails on the releases in ``refusing``."""
        if refusing:
            return RULE.at(sf, node, message, ocp=refusing, fix=fix,
                           kind="wrong-type",
                           detail=f"OLM decodes the CSV into its Go type (relatedImages: a list of {{name, image}} strings) "
                           f"before creating it; the decode fails, and so does the install, on OpenShift "
                           f"{release_ranges([r.ocp for r in refusing])}: {detail}")
        return RULE.at(sf, node, message, fix=fix, kind="wrong-type-old",
                       detail="The releases the bundle installs on (before 4.8) ignore relatedImages, but OLM from 4.8 "
                       f"cannot decode the CSV, and mirroring tools have no image to copy: {detail}")

    def unmirrored(node, message, detail, kind, fix=None):
        """A shape nothing refuses: OLM's typed client sends a missing field as "", but the image is not mirrored."""
        return RULE.at(sf, node, message, fix=fix, kind=kind,
                       detail="OLM creates the CSV through its typed client, which sends a missing name or image as '' "
                       "and drops unknown keys, so the API server accepts it; but mirroring tools get no image to copy "
                       f"for it, and disconnected installs miss it. {detail}")
    if isinstance(ri, Scalar) and ri.value is None:
        return  # `relatedImages:` with nothing: no images listed
    if not isinstance(ri, Sequence):
        yield refused(ri, f"spec.relatedImages is {ri.type_name()}, not a list of {{name, image}} entries",
                      "write one '- name: ..., image: ...' entry per image.")
        return
    for i, entry in enumerate(ri):
        if not isinstance(entry, Mapping):
            yield refused(entry, f"relatedImages entry {i + 1} is {entry.type_name()}, not a mapping with 'name' and 'image'",
                          "write it as '- name: <name>' with 'image: <pull spec>'.")
            continue
        img = entry.get("image")
        label = f"relatedImages '{entry.str('name')}'" if entry.str("name") else f"relatedImages entry {i + 1}"
        name = entry.get("name")
        if name is None or (isinstance(name, Scalar) and name.value is None):
            yield unmirrored(name if name is not None else entry, f"{label} has no name",
                             "Mirroring and catalog tools identify an entry by its name. Name the image (e.g. after its "
                             "component) with 'name:' beside 'image:'.", "no-name")
        elif not (isinstance(name, Scalar) and isinstance(name.value, str)):
            yield refused(name, f"the name of {label} is {name.type_name()}, not a string",
                          "write the name as a string (quote it).")
        if img is None:
            misnamed = [(k, v) for k, v in entry.items() if isinstance(k, Scalar) and k.value not in ("name", "image")
                        and isinstance(v, Scalar) and isinstance(v.value, str) and "/" in v.value
                        and image_reference_problem(v.value) is None]
            if len(misnamed) == 1:
                k, v = misnamed[0]
                line = sf.line_text(k.line)
                key = str(k.value)
                fix = None
                if line[k.col - 1:k.col - 1 + len(key)] == key:
                    fix = Fix(k.line, line[:k.col - 1] + "image" + line[k.col - 1 + len(key):], "name the field 'image'")
                yield unmirrored(k, f"{label} gives its image under '{key}:', but the field is 'image:'",
                                 f"OLM drops '{key}', so the entry has no image. Rename the key to 'image'.",
                                 "image-under-other-key", fix=fix)
                continue
        if img is None or (isinstance(img, Scalar) and img.value is None):
            yield unmirrored(img if img is not None else entry, f"{label} has no image",
                             "Set 'image:' to the image reference (registry/path@sha256:...), or remove the entry.",
                             "no-image")
            continue
        if isinstance(img, Scalar) and img.value == "":
            yield RULE.at(sf, img, f"{label} has an empty image", kind="empty-image",
                          detail="Mirroring tools have nothing to copy for it (the API server and catalog CI accept it). "
                          "Set 'image:' to the image reference (registry/path@sha256:...), or remove the entry.")
            continue
        if not (isinstance(img, Scalar) and isinstance(img.value, str)):
            yield refused(img, f"the image of {label} is {img.type_name()}, not a string",
                          "write the image reference as a string.")
            continue
        problem = image_reference_problem(img.value)
        if problem is None:
            continue
        fixed = _repaired(img.value)
        fix = fix_value(sf, img, fixed, "write the image reference without the scheme or spaces") if fixed else None
        yield RULE.at(sf, img,
                      f"invalid image reference: {_brief(problem)}", fix=fix, kind="invalid-reference",
                      detail=f"The image '{clip(img.value.strip())}' of {label}: {problem}. Mirroring tools cannot copy it "
                      "(the API server, opm and catalog CI accept it today). " + (f"Write '{fixed}'." if fixed else
                                        "Write it as registry/path:tag or, better, registry/path@sha256:<digest>."))


def _brief(problem: str) -> str:
    """The reason without its parenthesised explanation (kept for the detail)."""
    return problem.split(" (", 1)[0].split("; ", 1)[0]
