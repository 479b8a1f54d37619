"""The image reference grammar of https://github.com/distribution/reference (v0.6.0: reference.go,
regexp.go, normalize.go: ParseNormalizedNamed, splitDockerDomain), which operator-framework/api's
validateRelatedImages and the container tools apply. ``image_reference_problem(s)`` says what
is wrong with ``s`` as a pull spec, in words people understand, or None."""
from __future__ import annotations

import re
from typing import Optional, Tuple

# The grammar of github.com/distribution/reference (regexp.go), as
# reference.ParseNormalizedNamed applies it (operator-framework/api's
# validateRelatedImages calls exactly that). Go's RE2 \w is ASCII: re.ASCII.
_ALNUM = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = _ALNUM + r"(?:" + _SEPARATOR + _ALNUM + r")*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_IPV6 = r"\[(?:[a-fA-F0-9:]+)\]"
_HOST = r"(?:" + _DOMAIN_NAME + r"|" + _IPV6 + r")"
_DOMAIN_AND_PORT = _HOST + r"(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _REMOTE_NAME

REFERENCE = re.compile(r"(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?", re.ASCII)
_ANCHORED_NAME = re.compile(r"(?:(" + _DOMAIN_AND_PORT + r")/)?(" + _REMOTE_NAME + r")", re.ASCII)
_IDENTIFIER = re.compile(r"[a-f0-9]{64}")
NAME_TOTAL_LENGTH_MAX = 255  # reference.RepositoryNameTotalLengthMax
# opencontainers/go-digest: the algorithms it validates and their hex lengths (lowercase hex).
DIGEST_HEX = {"sha256": 64, "sha384": 96, "sha512": 128}


def split_docker_domain(name: str) -> Tuple[str, str]:
    """reference.splitDockerDomain: (domain, remainder) with Docker Hub defaults."""
    first, sep, rest = name.partition("/")
    if not sep:
        return "docker.io", "library/" + name
    if first == "localhost":
        return first, rest
    if first == "index.docker.io":
        domain, remote = "docker.io", rest
    elif any(c in first for c in ".:") or first.lower() != first:
        domain, remote = first, rest
    else:
        domain, remote = "docker.io", name
    if domain == "docker.io" and "/" not in remote:
        remote = "library/" + remote
    return domain, remote


def image_reference_problem(s: str) -> Optional[str]:  # noqa: C901 -- ParseNormalizedNamed's checks, one reason each
    """What is wrong with ``s`` as an image pull spec (None when the container tools accept
    it): reference.ParseNormalizedNamed's checks, with reasons people understand."""
    if s == "":
        return "it is empty"
    if s != s.strip():
        return "it has spaces or line breaks around it"
    if re.search(r"\s", s):
        return "it contains spaces"
    m = re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*://", s)
    if m:
        return f"it starts with '{m.group(0)}'; an image reference has no scheme (write it as registry/path:tag or registry/path@sha256:...)"
    if _IDENTIFIER.fullmatch(s):
        return "a 64-character hexadecimal string is an image ID, not a repository name"
    domain, remainder = split_docker_domain(s)
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        return f"the repository name '{remote.split('@', 1)[0]}' must be lowercase"
    full = domain + "/" + remainder
    m = REFERENCE.fullmatch(full)
    if m is None:
        if "@" in s and not re.search(r"@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}$", s):
            short = re.search(r"@(sha256|sha384|sha512):([0-9a-f]*)$", s)
            if short:
                algo, hexpart = short.groups()
                return f"a {algo} digest has {DIGEST_HEX[algo]} hexadecimal characters, this one has {len(hexpart)}"
            return "the digest after '@' is not algorithm:hex (e.g. @sha256: followed by 64 hexadecimal characters)"
        if s.count("@") > 1:
            return "it has more than one '@'"
        tail = s.rsplit("/", 1)[-1]
        if ":" in tail.split("@", 1)[0]:
            tag = tail.split("@", 1)[0].split(":", 1)[1]
            if not re.fullmatch(_TAG, tag, re.ASCII):
                return (f"the tag '{tag}' is not valid (a tag is up to 128 letters, digits, '_', '.' and '-', "
                        "not starting with '.' or '-')")
        return ("it does not follow the image reference grammar registry/path[:tag][@digest] (lowercase path "
                "components separated by '/', '.', '_' or '-')")
    name = _ANCHORED_NAME.fullmatch(m.group(1))
    path = name.group(2) if name else m.group(1)
    if len(path) > NAME_TOTAL_LENGTH_MAX:
        return f"the repository path is {len(path)} characters long, over the limit of {NAME_TOTAL_LENGTH_MAX}"
    dg = m.group(3)
    if dg:
        algo, hexpart = dg.split(":", 1)
        want = DIGEST_HEX.get(algo)
        if want is None:
            return f"the digest algorithm '{algo}' is not supported (use sha256, sha384 or sha512)"
        if len(hexpart) != want:
            return f"a {algo} digest has {want} hexadecimal characters, this one has {len(hexpart)}"
        if hexpart.lower() != hexpart:
            return "the digest must be written in lowercase hexadecimal"
    return None
