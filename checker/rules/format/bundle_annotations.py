"""
What: metadata/annotations.yaml must name the package
(`operators.operatorframework.io.bundle.package.v1`), the channels (`...channels.v1`,
comma-separated), the manifests and metadata directories (`...manifests.v1: manifests/`,
`...metadata.v1: metadata/`) and, when set, a non-empty default channel.

The default channel is a fact of the package, not of each bundle: opm takes the package's
default channel from its highest-version bundle, and that channel must exist in the
package (some bundle lists it). In a catalog repository (`operators/<name>/<version>/`)
olm-check therefore checks it across the operator's bundles: only the head bundle's
default decides (an error when no bundle of the operator is in that channel); an older
bundle may name any channel the package has, and one the package does not have is a
warning (it no longer decides anything). Operators whose catalogs are file-based
(`fbc: {enabled: true}` in ci.yaml) are skipped: their catalogs set the default channel
(`fbc-schema` checks it). A bundle checked on its own, without its operator around it,
gets a warning when its default is not among its own channels (the package may already
have that channel; olm-check cannot see it).

A bundle.Dockerfile's LABELs should match these annotations: a warning for a bundle
checked on its own (opm reads annotations.yaml, not the labels); not reported in a catalog
repository, whose pipeline generates the Dockerfile from annotations.yaml.

Why: opm reads these to place the bundle in its package and channels; it refuses missing
keys and an empty default, and a package whose default channel does not exist. Errors
are what `opm` or the catalog pipeline refuses; the rest are warnings.

Fix: add the missing keys; set the head bundle's default channel to one of the package's
channels.

Bad:
    annotations:
      operators.operatorframework.io.bundle.channels.v1: alpha
      operators.operatorframework.io.bundle.channel.default.v1: stable   # no bundle is in stable
Good:
    annotations:
      operators.operatorframework.io.bundle.channels.v1: stable,alpha
      operators.operatorframework.io.bundle.channel.default.v1: stable
"""
from __future__ import annotations

from ...context import Context
from ...model import K8S_V1, PLAIN_V0, REGISTRY_V1, Bundle, Repository
from ...nodes import Scalar
from ...upgrade_graph import label_of, version_of
from ...versions import clip
from .. import define, refusal
from ..lib.bundle_format import CHANNELS_KEY, DEFAULT_KEY, MANIFESTS_KEY, MEDIATYPE_KEY, METADATA_KEY, PACKAGE_KEY
from ..lib.catalog import fbc_operator, operators

_OPM_ANNOTATIONS = "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/validate.go"
_OPM_DEFAULT = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/registry/populator.go"
_CI_DOCKERFILE = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/entrypoints/bundle_dockerfile.py"

RULE = define("bundle-annotations", "Required bundle annotations are missing or inconsistent", __doc__, category="format", refused_by=[
    refusal("opm", "`opm alpha bundle validate` (and the index build) refuses a bundle whose annotations.yaml lacks the "
             "mediatype, manifests, metadata, package or channels key, or sets an empty default channel", _OPM_ANNOTATIONS),
    refusal("opm", "`opm index add` refuses a package whose default channel, taken from its highest-version bundle, is not "
             "one of the package's channels (\"unable to determine default channel\")", _OPM_DEFAULT),
    refusal("catalog-ci", "the catalog pipeline builds the bundle image from a Dockerfile it generates from annotations.yaml, "
             "copying the directories the manifests/metadata annotations name: another directory fails or skews the build",
             _CI_DOCKERFILE),
])


@RULE.check
def bundle_annotations(bundle: Bundle, ctx: Context):
    ann = bundle.annotations
    af = bundle.annotations_file
    if ann is None or af is None:
        return
    if bundle.mediatype in (K8S_V1, PLAIN_V0):
        # plain bundles: no CSV, but opm's annotation validation still needs where the
        # manifests are and the channels the bundle is in (validateAnnotations)
        for key, what in ((MANIFESTS_KEY, "the manifests directory, 'manifests/'"), (CHANNELS_KEY, "the channels the bundle is in")):
            v = ann.get(key)
            if v is None:
                yield RULE.at(af, ann, f"the required annotation {key} is missing",
                              detail=f"It names {what}; opm's bundle validation fails a bundle without it (\"Missing "
                              "annotation\"), whatever its mediatype. Add it.")
            elif not isinstance(v, Scalar) or not isinstance(v.value, str) or not v.value.strip():
                yield RULE.at(af, v, f"{key} is not a non-empty string",
                              detail=f"It names {what}; opm's bundle validation refuses anything else. Write it as a string.")
        return
    if bundle.mediatype not in (REGISTRY_V1, None):
        return  # an unknown mediatype: bundle-layout says so
    in_catalog = bundle.operator is not None  # operators/<name>/<version>/ of a catalog repository
    required = [
        (PACKAGE_KEY, "the package name"),
        (CHANNELS_KEY, "the channels the bundle is in"),
        (MANIFESTS_KEY, "the manifests directory, 'manifests/'"),
        (METADATA_KEY, "the metadata directory, 'metadata/'"),
    ]
    for key, what in required:
        v = ann.get(key)
        if v is None:
            yield RULE.at(af, ann, f"the required annotation {key} is missing",
                          detail=f"It names {what}; opm cannot place the bundle without it (\"Missing annotation\"). Add it.")
        elif not isinstance(v, Scalar) or not isinstance(v.value, str) or not v.value.strip():
            yield RULE.at(af, v, f"{key} is not a non-empty string",
                          detail=f"It names {what}; opm's bundle validation refuses anything else. Write it as a string.")
    channels = []
    ch = ann.get(CHANNELS_KEY)
    if isinstance(ch, Scalar) and isinstance(ch.value, str):
        channels = [c.strip() for c in ch.value.split(",")]
        if any(c == "" for c in channels):
            yield RULE.at(af, ch, f"the channel list '{ch.value}' has an empty entry",
                          detail="opm refuses an empty channel name. Write the channel names separated by commas without gaps.")
        channels = [c for c in channels if c]
    dflt = ann.get(DEFAULT_KEY)
    if isinstance(dflt, Scalar):
        value = dflt.value.strip() if isinstance(dflt.value, str) else None
        if not value:
            # opm's annotation validation: the key may be left out, but not left empty
            yield RULE.at(af, dflt, "the default channel annotation is empty",
                          detail=f"opm refuses an empty default channel ({DEFAULT_KEY}). Set it to one of the package's "
                          f"channels{' (' + ', '.join(channels) + ')' if channels else ''}, or remove the key.")
        elif channels and value not in channels and not in_catalog:
            # a bundle on its own: the package may have this channel from earlier bundles
            yield RULE.at(af, dflt,
                          f"the default channel '{value}' is not one of this bundle's channels ({', '.join(channels)})",
                          kind="default-not-in-bundle",
                          detail="The package's default channel comes from its highest-version bundle and must be a "
                          f"channel some bundle of the package is in: unless earlier bundles of the package are in "
                          f"'{value}', opm refuses the package. Set it to one of {', '.join(channels)}, or add '{value}' "
                          "to the channels annotation.")
    for key, value in ((MANIFESTS_KEY, "manifests/"), (METADATA_KEY, "metadata/")):
        v = ann.get(key)
        if isinstance(v, Scalar) and isinstance(v.value, str) and v.value.strip() and v.value.strip().rstrip("/") != value.rstrip("/"):
            why = ("the catalog pipeline builds the bundle image with COPY from the directory this annotation names, so the image "
                   "would miss its content" if in_catalog else "opm reads the bundle from this directory whatever the annotation says, "
                   "so the annotation misleads")
            yield RULE.at(af, v, f"{key} is '{v.value}', not '{value}'",
                          kind="build-dir" if in_catalog else "other-dir",
                          detail=f"Bundles keep this content in '{value}'; {why}. Write '{value}'.")
    df = bundle.dockerfile
    if df is not None and not in_catalog:
        for key, _w in required + [(DEFAULT_KEY, ""), (MEDIATYPE_KEY, "")]:
            a = ann.get(key)
            lab = df.labels.get(key)
            colon = df.labels.get(key + ":")
            if lab is None and colon is not None:
                # 'LABEL key: value' is Docker's legacy 'LABEL key value' form: the label is named 'key:'
                yield RULE.at(df.file, None,
                              f"the LABEL {key} is written 'key: value': the image has no such label",
                              kind="dockerfile-label", line=colon.line, column=colon.column,
                              detail="Docker reads 'LABEL key value' (no '=') as the legacy form and keeps the colon in the key, so "
                              f"the bundle image lacks {key}. Write LABEL {key}={colon.value}.")
            if isinstance(a, Scalar) and lab is not None and str(a.value) != lab.value:
                yield RULE.at(df.file, None,
                              f"the LABEL {key.rsplit('.', 2)[-2]}={lab.value} differs from annotations.yaml ('{a.value}')",
                              kind="dockerfile-label", line=lab.line, column=lab.column,
                              detail=f"opm reads annotations.yaml ({key}), so the image's labels mislead whoever inspects "
                              "them. Make them the same.")


@RULE.check(scope="repo")
def default_channel(repo: Repository, ctx: Context):
    """bundle-annotations, package level: in a catalog repository the package's default
    channel is the one its highest-version bundle declares (opm's ``SemverPackageManifest``
    for replaces mode, the newest bundle added for semver mode, and the catalog CI's
    ``Operator.default_channel``), and it must be a channel some bundle of the package is in.
    FBC operators are skipped: their catalogs set the default channel (``fbc-schema``)."""
    for name, (op, facts) in operators(repo).items():
        if fbc_operator(op):
            continue
        reg = [f for f in facts if f.mediatype in (REGISTRY_V1, None)]
        if not any(f.checked for f in reg):
            continue
        package_channels = sorted({c for f in reg for c in f.channels})
        if not package_channels:
            continue
        declaring = [(v, f) for f in reg if (f.default_channel or "").strip() and (v := version_of(f)) is not None]
        decider = max(declaring, key=lambda t: t[0].key())[1] if declaring else None
        for f in reg:
            d = (f.default_channel or "").strip()
            if not f.checked or not d or d in package_channels:
                continue  # an empty default is the bundle rule's; any channel of the package is legal
            p = f.default_channel_pos or f.annotations_pos
            path, line, col = (p.path, p.line, p.column) if p else (f.rel, 1, 1)
            chans = ", ".join(package_channels)
            if f is decider:
                # every bundle of the operator is in sight (the operator is the unit of context):
                # a single bundle here is the operator's only one
                alone = " (it is the operator's only bundle)" if len(reg) == 1 else ""
                yield RULE.at(path, None,
                              f"the default channel '{clip(d, 40)}' is not a channel of any bundle of operator '{name}'",
                              line=line, column=col,
                              detail=f"Its channels: {chans}{alone}. This bundle ({label_of(f)}) is the package's highest version, so "
                              "its default channel becomes the package's, and opm refuses a package whose default channel does not "
                              f"exist: the catalog build fails. Set it to one of {chans}, or add '{d}' to this bundle's "
                              "operators.operatorframework.io.bundle.channels.v1.")
            else:
                now = f" (today {label_of(decider)}'s '{(decider.default_channel or '').strip()}')" if decider is not None else ""
                yield RULE.at(path, None,
                              f"the default channel '{clip(d, 40)}' is not a channel of any bundle of operator '{name}'",
                              line=line, column=col, kind="default-not-in-package",
                              detail=f"Its channels: {chans}. Only the package's highest-version bundle sets the default channel{now}, "
                              "so nothing refuses this one, but it misleads readers and would break the package were this bundle the "
                              f"newest. Set it to one of {chans}.")
