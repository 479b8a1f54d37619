"""
What: the size of the bundle as operator-framework/api measures it — the sum, over the
bundle's files, of len(base64(gzip(file))) — is over 1 MiB (1,048,576 bytes: error) or over
85% of it (warning). olm-check counts the files it reads: manifests/, metadata/ and
bundle.Dockerfile (operator-sdk also counts any other file in the directory, such as
tests/scorecard; Go's and Python's gzip differ by a few bytes).

Why: OLM unpacks a bundle into a ConfigMap, and Kubernetes objects are limited to about
1 MiB; since OLM v0.19 / opm 1.17.5 the content is stored gzip-compressed and base64
encoded, so this is the number that must fit. A bundle over it never installs, and
operator-sdk's bundle validation (catalog CI) fails it.

Fix: shrink the largest files (usually CRDs: drop `description` fields from the schemas
with `crd:maxDescLen=0` in controller-gen, split rarely used APIs into another operator),
and remove files the bundle does not need.

Bad:  manifests/ holding 30 CRDs with full OpenAPI descriptions (1.3 MiB compressed)
Good: the same CRDs generated with crd:maxDescLen=0 (300 KiB compressed)
"""
from __future__ import annotations

import hashlib
import zlib
from typing import Optional

from ...context import Context
from ...model import Bundle
from .. import define, refusal

API_BUNDLE = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/bundle.go"

MAX_BUNDLE_SIZE = 1 << 20  # operator-framework/api pkg/validation/internal/bundle.go max_bundle_size
WARN_PERCENT = 0.85  # same file: validateBundleSize warnPercent



def _upper_bound(n: int) -> int:
    """The largest len(base64(gzip(x))) can be for len(x) == n: deflate stored blocks add 5
    bytes per block (at least 16 KiB each), gzip adds a 10-byte header and 8-byte trailer."""
    z = n + 5 * (n // 16384 + 1) + 18
    return (z + 2) // 3 * 4


_SIZES: dict = {}  # (SHA-256 of the content, level) -> encoded size: catalogs repeat CRD files


def encoded_size(data: bytes, level: int = 6, digest: Optional[bytes] = None) -> int:
    """len(base64(gzip(data))) as operator-framework/api's encoding.GzipBase64Encode makes it
    (Go's gzip writer at its default level, 6; standard base64 with padding). ``digest``:
    the content's SHA-256, when the caller has it."""
    key = (digest or hashlib.sha256(data).digest(), level)
    got = _SIZES.get(key)
    if got is None:
        c = zlib.compressobj(level, zlib.DEFLATED, 31)  # wbits 16+15: a gzip stream
        n = len(c.compress(data)) + len(c.flush())
        got = (n + 2) // 3 * 4  # len(base64) without building it
        if len(_SIZES) > 50_000:
            _SIZES.clear()
        _SIZES[key] = got
    return got


def _below(contents: list, limit: float) -> bool:
    """Whether the bundle's encoded size is surely at most ``limit``, compressing as little as
    it can to tell. Each file counts with the least of what is known of it: its size at level
    6 or at level 1 (the fastest level, whose output is never smaller in practice) when this
    process compressed the same content before -- the releases of an operator repeat most
    files -- else the most its stored form can take (``_upper_bound``). While that sum is
    over ``limit``, the file with the largest unknown share is compressed at level 1."""
    bounds = []
    for _, data, digest in contents:
        known = _SIZES.get((digest, 6)) or _SIZES.get((digest, 1))
        bounds.append((known or _upper_bound(len(data)), known is None, data, digest))
    total = sum(b for b, _, _, _ in bounds)
    for bound, unknown, data, digest in sorted(bounds, key=lambda t: -t[0]):
        if total <= limit:
            return True
        if unknown:
            total += encoded_size(data, 1, digest) - bound
    return total <= limit


def _fmt(b: int) -> str:
    """operator-framework/api's formatBytesInUnit: decimal units (1.0 MB = 1,000,000 bytes)."""
    if b < 1000:
        return f"{b} B"
    div, exp = 1000, 0
    n = b // 1000
    while n >= 1000:
        div *= 1000
        exp += 1
        n //= 1000
    return f"{b / div:.1f} {'kMGTPE'[exp]}B"


RULE = define("bundle-size", "The bundle is over OLM's 1 MiB limit (compressed), or close to it", __doc__, refused_by=[
    refusal("catalog-ci", "operator-sdk's bundle validation (operator-framework/api validateBundleSize) fails a bundle "
            "over 1 MiB compressed", API_BUNDLE),
    refusal("olm-install", "OLM unpacks the bundle into a ConfigMap, which Kubernetes limits to about 1 MiB",
            "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/bundle/bundle_unpacker.go"),
], category="format")


@RULE.check
def bundle_size(bundle: Bundle, ctx: Context):
    files = [f for f in bundle.files if f.raw is not None or f.text is not None]
    if not files:
        return
    warn = MAX_BUNDLE_SIZE * WARN_PERCENT
    if sum(_upper_bound(f.size) for f in files) <= warn:
        return  # cannot reach the warning threshold: skip the compression
    # the loader's digest of the bytes it read (content() gives those bytes back)
    contents = [(f, data, f.digest or hashlib.sha256(data).digest()) for f, data in ((f, f.content()) for f in files)]
    if _below(contents, warn):
        return
    sizes = sorted(((encoded_size(data, 6, digest), f) for f, data, digest in contents), key=lambda t: -t[0])
    total = sum(s for s, _ in sizes)
    raw_total = sum(len(data) for _, data, _ in contents)
    if total <= warn:
        return
    top = ", ".join(f"{f.rel} ({_fmt(s)})" for s, f in sizes[:3])
    largest = sizes[0][1]
    pct = 100.0 * total / MAX_BUNDLE_SIZE
    if total > MAX_BUNDLE_SIZE:
        yield RULE.at(largest, None,
                      f"the bundle is ~{_fmt(total)} compressed, {pct:.0f}% of the 1 MiB limit",
                      detail=f"Measured gzip-compressed and base64-encoded ({_fmt(raw_total)} uncompressed): OLM cannot "
                      "store it in the ConfigMap it unpacks bundles into, so it never installs, and operator-sdk's bundle "
                      f"validation fails it. Largest: {top}. Shrink the CRDs (controller-gen crd:maxDescLen=0 drops schema "
                      "descriptions) or split the bundle.")
    else:
        yield RULE.at(largest, None,
                      f"the bundle is ~{_fmt(total)} compressed, {pct:.0f}% of OLM's 1 MiB limit",
                      kind="near-limit",
                      detail=f"Measured gzip-compressed and base64-encoded ({_fmt(raw_total)} uncompressed); past the "
                      f"limit it cannot be installed. Largest: {top}. Keep an eye on CRD growth (controller-gen "
                      "crd:maxDescLen=0 drops schema descriptions).")
