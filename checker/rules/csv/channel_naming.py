"""
What: OLM's best practices name channels `candidate`, `fast` and `stable`, optionally
followed by a version (`stable-v1`, `fast-v1.2`). A new channel with another name is a
warning. Information only: `alpha`, the channel operator-sdk scaffolds (early operators
legitimately ship in it; operator-sdk's good-practices validator warning on it is noise
authors learn to ignore), and, in a catalog repository, a channel that other bundles of
the operator already publish to (renaming it would strand existing subscriptions, so the
warning could only be ignored).

Why: the names tell users how tested a release is (candidate: may be untested; fast:
tested, newest; stable: the supported, slower-moving stream). operator-sdk's
good-practices validator (`validateHubChannels` in operator-framework/api, run by the
community catalog CI in `suite=operatorframework`) warns on a channel that does not start
with one of them. The console does not interpret channel names, and nothing refuses
other names.

Fix: rename a new channel in metadata/annotations.yaml (and bundle.Dockerfile) before
users subscribe to it.

Bad:
    operators.operatorframework.io.bundle.channels.v1: release-1.x
Good:
    operators.operatorframework.io.bundle.channels.v1: stable,stable-v1
"""
from __future__ import annotations

import re

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from ...versions import clip
from .. import define
from ..lib.bundle_format import CHANNELS_KEY

RULE = define("channel-naming", "A channel name outside the candidate/fast/stable conventions (info for SDK's default 'alpha')",
              __doc__, category="csv")

_CHANNEL_OK = re.compile(r"(candidate|fast|stable)([^a-z].*|v[0-9].*)?")
SDK_SCAFFOLD_CHANNEL = "alpha"


def _established(bundle: Bundle, ctx, channel: str) -> bool:
    """Another bundle of the same operator is in this channel (the operator's light facts,
    ``ctx.operator.siblings``, prepared before the bundle's rules run)."""
    op = getattr(ctx, "operator", None)
    if op is None or bundle.operator is None:
        return False
    return any(s.rel != bundle.rel and channel in s.channels for s in op.siblings)


@RULE.check
def channel_naming(bundle: Bundle, ctx: Context):
    af = bundle.annotations_file
    node = bundle.annotations.get(CHANNELS_KEY) if bundle.annotations is not None else None
    if af is None or not (isinstance(node, Scalar) and isinstance(node.value, str)):
        return
    seen = set()
    for ch in (c.strip() for c in node.value.split(",")):
        if not ch or ch in seen or _CHANNEL_OK.fullmatch(ch):
            continue
        seen.add(ch)
        shown_ch = clip(ch)
        if ch == SDK_SCAFFOLD_CHANNEL:
            yield RULE.at(af, node, f"the channel '{shown_ch}' is operator-sdk's scaffolded default, not candidate, fast or stable",
                          kind="sdk-default",
                          detail="The recommended names are candidate, fast and stable (optionally with a version, e.g. stable-v1). "
                          "Keep it for early-access releases; when the operator is ready for users, publish to a stable channel too.")
        elif _established(bundle, ctx, ch):
            yield RULE.at(af, node,
                          f"the channel '{shown_ch}' is not a recommended name, but other bundles of this operator already publish to it",
                          kind="established",
                          detail="The recommended names are candidate, fast or stable, optionally with a version (stable-v1); renaming "
                          "this channel would strand existing subscriptions. Nothing to change here; name new channels candidate, fast or stable.")
        else:
            yield RULE.at(af, node, f"the channel '{shown_ch}' does not follow the recommended naming (candidate, fast or stable)",
                          detail="Recommended: candidate, fast or stable, optionally with a version (stable-v1, fast-v1.2), names that "
                          "tell users how tested a release is; the catalog CI's operator-sdk good-practices check warns on others. "
                          "Rename it before users subscribe to it (afterwards a rename strands their subscriptions).")
