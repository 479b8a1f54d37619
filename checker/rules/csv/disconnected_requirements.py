"""
What: when the CSV claims disconnected support
(`features.operators.openshift.io/disconnected` with any value but "false" — the console
shows every other value as "Disconnected" — or `disconnected` in the deprecated
`operators.openshift.io/infrastructure-features`):

- a `RELATED_IMAGE_*` environment value (an operand image the operator starts) that a
  non-empty `spec.relatedImages` does not list, and that is not a deployment's container
  image either; when it pulls a tag of a repository that relatedImages lists only by
  digest, the finding gives that digest to pin the environment value to;
- an empty `spec.relatedImages`, a deployment container image missing from a non-empty
  one, and every image referenced by tag rather than digest (in the containers, in
  `RELATED_IMAGE_*` values, in relatedImages).

OLM's install succeeds in every case (it reads relatedImages for nothing); what breaks is
the operand's image pull, later, on a disconnected cluster: **warnings**, except where the
certified pipelines' digest-pinning task refuses the bundle (certified, marketplace): an
image by tag (verify-pinning fails a reference it had to pin) and a missing
spec.relatedImages (verify-related-images) are **errors** there.

Why: opm builds a bundle's image list in the catalog from `spec.relatedImages` plus the
install deployments' container and init container images (operator-registry
`GetOperatorImages`); oc-mirror and `oc adm catalog mirror` copy exactly that list. A
`RELATED_IMAGE_*` operand image missing from it is never mirrored, so on a disconnected
cluster the operator starts but its operand pods cannot pull their image. The deployments'
own images are mirrored even when relatedImages omits them. Red Hat's restricted-network
guidance asks for digests: ImageDigestMirrorSet and ImageContentSourcePolicy redirect only
pulls by digest; since OpenShift 4.13 an ImageTagMirrorSet can mirror tags too, so nothing
refuses a tag in the community catalog. The certified pipelines' digest-pinning task
(operator-hosted-pipeline.yml, when cert_project_required; tasks/digest-pinning.yml,
enforce_pinning true by default) pins the references, fails the pull request when it had
to, and fails a CSV whose relatedImages is missing or lists fewer images than the CSV
references (a count: it does not check which images).

Fix: list every image the operator runs or starts under spec.relatedImages, pinned by
digest; or set the annotation to "false".

Bad:
    features.operators.openshift.io/disconnected: "true"
    ...
    env:
      - name: RELATED_IMAGE_WIDGET
        value: quay.io/example/widget@sha256:9f0c...   # not in relatedImages
    relatedImages:
      - {name: operator, image: quay.io/example/operator@sha256:4b8e...f001}
Good:
    relatedImages:
      - {name: operator, image: quay.io/example/operator@sha256:4b8e...f001}
      - {name: widget, image: quay.io/example/widget@sha256:9f0c...}
"""
from __future__ import annotations

import json
import re
from typing import Optional

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...upstream.docker_reference import image_reference_problem, split_docker_domain
from .. import define, refusal
from ..lib.csv import data, the_csv

MAX_IMAGE_FINDINGS = 10  # per bundle; the rest are summed up in one finding (measured: up to 100+ per CSV)

_DIGEST = re.compile(r"@[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$")

# Sources of the disconnected facts (also named in refused_by below): opm's related images,
# https://github.com/operator-framework/operator-registry/blob/master/alpha/action/render.go and
# https://github.com/operator-framework/operator-registry/blob/master/pkg/registry/csv.go

ISV_DIGEST_PINNING = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/ansible/roles/"
                      "operator-pipeline/templates/openshift/tasks/digest-pinning.yml")


RULE = define("disconnected-requirements",
              "Disconnected support is claimed, but a RELATED_IMAGE_* operand image is not in relatedImages, relatedImages is empty, or an image is referenced by tag", __doc__,
              category="csv", refused_by=[
          refusal("certification", "the certified pipelines' digest-pinning task (operator-hosted-pipeline.yml, when "
                  "cert_project_required; enforce_pinning defaults to true) fails a bundle with an image it had to pin (a "
                  "tag), and a CSV whose relatedImages is missing or lists fewer images than the CSV references",
                  ISV_DIGEST_PINNING),
      ])


@RULE.check
def disconnected_requirements(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    claim = _claims_disconnected(csv.annotations())
    if claim is None:
        return
    sf = csv.file
    sp = csv.spec()
    ri = sp.get("relatedImages") if sp is not None else None
    refs = list(_image_refs(csv))
    listed = {_same_image(n.value) for k, _w, n, _d in refs if k == "related"}
    # repository -> the digests relatedImages pins it to (with the entry naming it)
    pinned: dict = {}
    for k, w, n, _d in refs:
        if k == "related":
            repo, digest = _repo_and_digest(n.value)
            if digest:
                pinned.setdefault(repo, []).append((digest, w))
    containers = {_same_image(n.value) for k, _w, n, _d in refs if k == "container"}
    reported = set()
    if not listed:
        operands = [d.split(" ")[0] for k, _w, _n, d in refs if k == "env"]  # the whole names
        if not (isinstance(ri, Sequence) and len(ri)) and operands:
            names = ", ".join(operands[:5]) + (", ..." if len(operands) > 5 else "")
            n = len(operands)
            yield RULE.at(sf, claim,
                          "the CSV claims disconnected support but spec.relatedImages is empty, so "
                          f"{n} operand image{' is' if n == 1 else 's are'} not mirrored.", kind="related-images-empty-operands",
                          detail="opm lists only relatedImages and the deployments' own images in the catalog (what mirroring "
                          f"tools copy), so the operand images ({names}) are not mirrored and a disconnected cluster cannot pull "
                          "them. List every image, pinned by digest, under spec.relatedImages, or set the annotation to \"false\".")
        elif not (isinstance(ri, Sequence) and len(ri)):
            yield RULE.at(sf, claim, "the CSV claims disconnected support but spec.relatedImages is empty.",
                          kind="related-images-empty",
                          detail="opm adds the deployments' images to the catalog itself, so mirroring works today, but the "
                          "documentation asks for the list (and any image the operator starts later must be in it). List the "
                          "images, pinned by digest, under spec.relatedImages.")
    else:
        for kind, what, img, where in refs:
            if kind != "env":
                continue
            same = _same_image(img.value)
            if same in listed or same in containers or (img.line, img.col) in reported:
                continue
            if image_reference_problem(img.value.strip()) is not None:
                continue  # not a pull spec (some operators pass versions or flags this way): nothing to mirror
            reported.add((img.line, img.col))
            ref = img.value.strip()
            repo, digest = _repo_and_digest(ref)
            if digest is None and repo in pinned:
                # the repository is listed by digest and the env var pulls a tag of it
                listed_digest, entry = pinned[repo][0]
                others = f" ({len(pinned[repo])} digests of it are listed; this is the first)" if len(pinned[repo]) > 1 else ""
                tag = _same_image(ref)[len(repo) + 1:]
                yield RULE.at(sf, img,
                              _one_of(f"{what} pulls '{ref}' by tag; relatedImages lists that repository only by digest.",
                                      f"{what} uses tag '{tag}' of an image relatedImages pins by digest."),
                              kind="tag-of-listed-digest",
                              detail=f"{where}It is '{ref}'; {entry} is {repo}@{listed_digest}{others}. The CSV claims "
                              f"disconnected support (line {claim.line}), and mirroring tools copy only the listed digest: "
                              f"the tag '{tag}' is never mirrored, and ImageDigestMirrorSet redirects only pulls by digest, so "
                              "the operand cannot start on a disconnected cluster. Pin the env var to that digest: "
                              f"{repo}@{listed_digest} (if the tag names another image, add that image to relatedImages by "
                              "digest instead).")
                continue
            yield RULE.at(sf, img,
                          _one_of(f"{what} is '{ref}', not listed in spec.relatedImages.",
                                  f"the image of {what} is not listed in spec.relatedImages."),
                          kind="operand-not-listed",
                          detail=f"{where}It is an operand image, '{ref}', and the CSV claims disconnected support (line "
                          f"{claim.line}); opm lists only relatedImages and the deployments' container images in the catalog, "
                          "and mirroring tools (oc-mirror, oc adm catalog mirror) copy only those, so this image is never "
                          "mirrored and the operand cannot start on a disconnected cluster. Add it to spec.relatedImages "
                          f"(name: ..., image: {ref}), pinned by digest.")
        missing = [(what, img, where) for kind, what, img, where in refs
                   if kind == "container" and _same_image(img.value) not in listed]
        if missing:
            what, img, where = missing[0]
            ref = img.value.strip()
            more = f" and {len(missing) - 1} more container image{'s' if len(missing) > 2 else ''}" if len(missing) > 1 else ""
            yield RULE.at(sf, img, f"{what}{more} {'are' if more else 'is'} not listed in spec.relatedImages.",
                          kind="container-not-listed",
                          detail=where + f"The image is {ref}. "
                          + "opm adds the deployments' images to the catalog itself, so they are mirrored, but the "
                          "restricted-network guidance (and Red Hat's certification pipeline) asks relatedImages to list every "
                          "image. Add them.")
    by_tag = []
    for _kind, what, img, where in refs:
        ref = img.value.strip()
        if _DIGEST.search(ref) or (img.line, img.col) in reported:
            continue
        reported.add((img.line, img.col))
        by_tag.append((what, img, ref, where))
    for what, img, ref, where in by_tag[:MAX_IMAGE_FINDINGS]:
        msg = _one_of(f"{what} is '{ref}', referenced by tag, not digest.",
                      f"{what} references its image by tag, not digest.")
        yield RULE.at(sf, img, msg, kind="by-tag",
                      detail=where + (f"The image is {ref}. " if ref not in msg else "")
                      + f"The CSV claims disconnected support (line {claim.line}), and Red Hat's restricted-network guidance "
                      "asks for digests: ImageDigestMirrorSet (and ImageContentSourcePolicy) redirects only pulls by digest, and "
                      "a tag reaches the mirror only where the cluster has an ImageTagMirrorSet (OpenShift 4.13 and later). Pin "
                      "it by digest (image@sha256:...).")
    rest = by_tag[MAX_IMAGE_FINDINGS:]
    if rest:
        lines = ", ".join(str(img.line) for _w, img, _r, _d in rest[:20]) + (", ..." if len(rest) > 20 else "")
        yield RULE.at(sf, rest[0][1],
                      f"{len(rest)} more images are referenced by tag although the CSV claims disconnected support.", kind="by-tag",
                      detail=f"They are at lines {lines}. Pin every one by digest (image@sha256:...).")


def _claims_disconnected(ann) -> Optional[Scalar]:
    """The node that claims disconnected support, as the console reads it: the
    features.operators.openshift.io/disconnected annotation with any value but "false" (the
    console shows every other value as supported), or "disconnected" in the legacy
    infrastructure-features list."""
    if ann is None:
        return None
    fa = data()["feature_annotations"]
    key = fa["prefix"] + "disconnected"
    v = ann.get(key)
    if isinstance(v, Scalar) and v.value is not None and v.value is not False:
        if not (isinstance(v.value, str) and v.value.strip() in ("false", "")):
            return v
    inf = ann.get(data()["infrastructure_features"]["key"])
    if isinstance(inf, Scalar) and isinstance(inf.value, str):
        try:
            lst = json.loads(inf.value)
        except ValueError:
            return None
        if isinstance(lst, list) and any(isinstance(x, str) and x.strip().lower() in ("disconnected", key) for x in lst):
            return inf
    return None


def _image_refs(csv):
    """(kind, what, node, where) for each image reference of the CSV: kind "container" (a
    deployment's container or init container image), "env" (a RELATED_IMAGE_* environment value
    of such a container; what starts with the variable's name), "related" (a spec.relatedImages
    entry). ``what`` names it for a one-sentence message, in full (the name is what tells two
    findings apart); ``where`` is a sentence for the detail with the deployment or container it
    is in ("" when ``what`` says it all)."""
    sp = csv.spec()
    if sp is None:
        return
    inst = sp.get("install")
    ispec = inst.get("spec") if isinstance(inst, Mapping) else None
    deps = ispec.get("deployments") if isinstance(ispec, Mapping) else None
    for d in deps if isinstance(deps, Sequence) else ():
        if not isinstance(d, Mapping):
            continue
        dn = d.str("name") or "?"
        ds = d.get("spec")
        tpl = ds.get("template") if isinstance(ds, Mapping) else None
        ps = tpl.get("spec") if isinstance(tpl, Mapping) else None
        if not isinstance(ps, Mapping):
            continue
        for field in ("initContainers", "containers"):
            cs = ps.get(field)
            for c in cs if isinstance(cs, Sequence) else ():
                if not isinstance(c, Mapping):
                    continue
                cn = c.str("name") or "?"
                img = c.get("image")
                if isinstance(img, Scalar) and isinstance(img.value, str) and img.value.strip():
                    yield ("container", f"the image of container '{cn}'", img,
                           f"Container '{cn}' is in deployment '{dn}'. ")
                env = c.get("env")
                for e in env if isinstance(env, Sequence) else ():
                    if isinstance(e, Mapping):
                        en = e.str("name") or ""
                        ev = e.get("value")
                        if en.startswith("RELATED_IMAGE_") and isinstance(ev, Scalar) and isinstance(ev.value, str) and ev.value.strip():
                            yield "env", en, ev, f"{en} is set in container '{cn}'. "
    ri = sp.get("relatedImages")
    for r in ri if isinstance(ri, Sequence) else ():
        if isinstance(r, Mapping):
            img = r.get("image")
            if isinstance(img, Scalar) and isinstance(img.value, str) and img.value.strip():
                rn = r.str("name") or "?"
                yield ("related", f"relatedImages entry '{rn}'", img, "")


def _one_of(full: str, short: str) -> str:
    """``full`` when it fits a one-sentence message (120 characters), else ``short``: a value
    is said whole or not at all (the detail says it whole), never cut in half."""
    return full if len(full) <= 120 else short


def _repo_and_digest(ref: str) -> tuple:
    """(repository, digest or None) of a pull spec in the form mirroring tools compare."""
    full = _same_image(ref)
    if "@" in full:
        repo, digest = full.split("@", 1)
        last = repo.rsplit("/", 1)[-1]
        if ":" in last:  # repo:tag@digest
            repo = repo[: len(repo) - len(last)] + last.split(":", 1)[0]
        return repo, digest
    head, last = full.rsplit("/", 1)
    return f"{head}/{last.split(':', 1)[0]}", None


def _same_image(ref: str) -> str:
    """A reference in the form mirroring tools compare: Docker Hub's implicit domain and
    library/ path written out, ':latest' where neither tag nor digest is given (local helper:
    csv_common has no reference normalisation)."""
    ref = ref.strip()
    domain, remainder = split_docker_domain(ref)
    last = remainder.rsplit("/", 1)[-1]
    if "@" not in last and ":" not in last:
        remainder += ":latest"
    return f"{domain}/{remainder}"
