"""bundle-annotations, package level (its explanation and the bundle's own annotations: the
format rule's module): in a catalog repository the package's default channel is the one its
highest-version bundle declares, so it is checked across the operator's bundles, once per
operator (``scope="repo"``), on the repository's facts.

Here until the format rules have moved to ``checker/rules/format/`` (``format.py`` and a
``format/`` package cannot live side by side); its home is then
``checker/rules/format/bundle_annotations_default_channel.py``."""
from __future__ import annotations

from ...model import REGISTRY_V1, Repository
from ...versions import clip
from .. import RULES, check
from ..lib.catalog import fbc_operator, label_of, operators, version_of


@check(scope="repo")
def default_channel(repo: Repository, ctx):
    """bundle-annotations, package level: in a catalog repository the package's default
    channel is the one its highest-version bundle declares (opm's ``SemverPackageManifest``
    for replaces mode, the newest bundle added for semver mode, and the catalog CI's
    ``Operator.default_channel``), and it must be a channel some bundle of the package is in.
    FBC operators are skipped: their catalogs set the default channel (``fbc-schema``)."""
    rule = RULES["bundle-annotations"]  # the format rule's (no rule module imports another)
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
                yield rule.at(path, None,
                              f"the default channel '{clip(d, 40)}' is not a channel of any bundle of operator '{name}'",
                              line=line, column=col,
                              detail=f"Its channels: {chans}{alone}. This bundle ({label_of(f)}) is the package's highest version, so "
                              "its default channel becomes the package's, and opm refuses a package whose default channel does not "
                              f"exist: the catalog build fails. Set it to one of {chans}, or add '{d}' to this bundle's "
                              "operators.operatorframework.io.bundle.channels.v1.")
            else:
                now = f" (today {label_of(decider)}'s '{decider.default_channel.strip()}')" if decider is not None else ""
                yield rule.at(path, None,
                              f"the default channel '{clip(d, 40)}' is not a channel of any bundle of operator '{name}'",
                              line=line, column=col, kind="default-not-in-package",
                              detail=f"Its channels: {chans}. Only the package's highest-version bundle sets the default channel{now}, "
                              "so nothing refuses this one, but it misleads readers and would break the package were this bundle the "
                              f"newest. Set it to one of {chans}.")
