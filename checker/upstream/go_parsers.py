"""Ports of the Go standard library's parsers that operator-framework/api's operatorhub
validator (pkg/validation/internal/operatorhub.go: checkSpecLinks, checkSpecMaintainers) runs:
net/url.ParseRequestURI (https://github.com/golang/go/blob/master/src/net/url/url.go) for link
URLs and net/mail.ParseAddress (https://github.com/golang/go/blob/master/src/net/mail/message.go)
for maintainer e-mails. Each returns Go's error text, or None."""
from __future__ import annotations

import json
import re
from typing import Optional, Tuple

# What operator-sdk's operatorhub validator (operator-framework/api operatorhub.go,
# checkSpecLinks / checkSpecMaintainers, run by the community catalog CI) accepts: Go's
# net/url ParseRequestURI for link URLs and net/mail ParseAddress for maintainer e-mails.
# Ports of the Go standard library's rules, returning Go's reason or None.


_CTL = re.compile("[\x00-\x1f\x7f]")


def _ctl(s: str) -> bool:
    """Whether ``s`` holds an ASCII control character (below 0x20, or DEL)."""
    return _CTL.search(s) is not None


def _go_should_escape_host(c: str) -> bool:
    if c.isascii() and c.isalnum():
        return False
    return c not in "!$&'()*+,;=:[]<>\"-_.~"


def _go_unescape(s: str, host: bool) -> Optional[str]:
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            h = s[i + 1:i + 3]
            if len(h) < 2 or any(x not in "0123456789abcdefABCDEF" for x in h):
                return f"invalid URL escape {json.dumps(s[i:i + 3])}"
            if host and int(h[0], 16) < 8 and s[i:i + 3] != "%25":
                return f"invalid URL escape {json.dumps(s[i:i + 3])}"
            i += 3
            continue
        if host and ord(c) < 0x80 and _go_should_escape_host(c):
            return f"invalid character {json.dumps(c)} in host name"
        i += 1
    return None


def _go_valid_port(p: str) -> bool:
    return p == "" or (p[0] == ":" and all("0" <= b <= "9" for b in p[1:]))


_USERINFO_OK = set("-._:~!$&'()*+,;=%@")


def go_request_uri_error(raw: str) -> Optional[str]:  # noqa: C901 -- follows url.go's parse step by step
    """Why Go's ``url.ParseRequestURI`` rejects ``raw`` (its message), or None when it
    accepts it: an absolute URI or an absolute path; spaces in the path are accepted,
    control characters, a bad %-escape, a bad port or a bad host character are not."""
    if _ctl(raw):
        return "net/url: invalid control character in URL"
    if raw == "":
        return "empty url"
    if raw == "*":
        return None
    scheme, rest = "", raw
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                break
            continue
        if c == ":":
            if i == 0:
                return "missing protocol scheme"
            scheme, rest = raw[:i], raw[i + 1:]
        break
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest = rest.split("?", 1)[0]
    if not rest.startswith("/"):
        if scheme:
            return None  # opaque (mailto:...)
        return "invalid URI for request"
    if scheme and rest.startswith("//"):
        authority, _, path = rest[2:].partition("/")
        rest = "/" + path if _ or path else ""
        at = authority.rfind("@")
        host = authority[at + 1:] if at >= 0 else authority
        if host.startswith("["):
            j = host.rfind("]")
            if j < 0:
                return "missing ']' in host"
            if not _go_valid_port(host[j + 1:]):
                return f"invalid port {json.dumps(host[j + 1:])} after host"
            z = host.find("%25", 0, j)
            if z >= 0:
                e = _go_unescape(host[:z], True) or _go_unescape(host[j:], True)
                if e:
                    return e
                host = ""  # the zone: "anything goes" but escapes of host-invalid bytes (rare)
        elif ":" in host:
            p = host[host.rfind(":"):]
            if not _go_valid_port(p):
                return f"invalid port {json.dumps(p)} after host"
        e = _go_unescape(host, True) if host else None
        if e:
            return e
        if at >= 0:
            ui = authority[:at]
            if any(not ((c.isascii() and c.isalnum()) or c in _USERINFO_OK) for c in ui):
                return "net/url: invalid userinfo"
            for part in ui.split(":", 1):
                e = _go_unescape(part, False)
                if e:
                    return e
    return _go_unescape(rest, False)


def _go_atext(c: str, dot: bool, permissive: bool) -> bool:
    if c == ".":
        return dot
    if c in "()[];@\\,":
        return permissive
    if c in '<>":':
        return False
    return "!" <= c <= "~" or ord(c) >= 0x80


class _Addr:
    def __init__(self, s: str):
        self.s = s

    def skip_space(self) -> None:
        self.s = self.s.lstrip(" \t")

    def atom(self, dot: bool, permissive: bool) -> Tuple[Optional[str], Optional[str]]:
        i = 0
        while i < len(self.s) and _go_atext(self.s[i], dot, permissive):
            i += 1
        if i == 0:
            return None, "mail: invalid string"
        a, self.s = self.s[:i], self.s[i:]
        if not permissive:
            if a.startswith("."):
                return None, "mail: leading dot in atom"
            if ".." in a:
                return None, "mail: double dot in atom"
            if a.endswith("."):
                return None, "mail: trailing dot in atom"
        return a, None

    def quoted(self) -> Tuple[Optional[str], Optional[str]]:
        i, out, esc = 1, [], False
        while True:
            if i >= len(self.s):
                return None, "mail: unclosed quoted-string"
            c = self.s[i]
            vchar = "!" <= c <= "~" or ord(c) >= 0x80
            if esc:
                if not (vchar or c in " \t"):
                    return None, f"mail: bad character in quoted-string: {json.dumps(c)}"
                out.append(c)
                esc = False
            elif (vchar and c not in '\\"') or c in " \t":
                out.append(c)
            elif c == '"':
                break
            elif c == "\\":
                esc = True
            else:
                return None, f"mail: bad character in quoted-string: {json.dumps(c)}"
            i += 1
        self.s = self.s[i + 1:]
        return "".join(out), None

    def addr_spec(self) -> Optional[str]:
        orig = self.s
        self.skip_space()
        if not self.s:
            self.s = orig
            return "mail: no addr-spec"
        if self.s[0] == '"':
            local, err = self.quoted()
            if local == "" and err is None:
                err = "mail: empty quoted string in addr-spec"
        else:
            local, err = self.atom(True, False)
        if err is None and not self.s.startswith("@"):
            err = "mail: missing @ in addr-spec"
        if err is None:
            self.s = self.s[1:]
            self.skip_space()
            if not self.s:
                err = "mail: no domain in addr-spec"
            else:
                _, err = self.atom(True, False)
        if err:
            self.s = orig
        return err

    def comment(self) -> bool:
        depth = 1
        while self.s and depth:
            if self.s[0] == "\\" and len(self.s) > 1:
                self.s = self.s[1:]
            elif self.s[0] == "(":
                depth += 1
            elif self.s[0] == ")":
                depth -= 1
            self.s = self.s[1:]
        return depth == 0

    def cfws(self) -> bool:
        self.skip_space()
        while self.s.startswith("("):
            self.s = self.s[1:]
            if not self.comment():
                return False
            self.skip_space()
        return True


def go_mail_address_error(s: str) -> Optional[str]:  # noqa: C901 -- follows message.go's parseSingleAddress
    """Why Go's ``mail.ParseAddress`` rejects ``s`` (its message), or None when it accepts
    it. Go accepts a display name (``Team <team@example.com>``), a domain without a dot and
    any RFC 5322 atext (``'``, ``+``, ``{``...) in both parts."""
    p = _Addr(s)
    p.skip_space()
    if not p.s:
        return "mail: no address"
    if p.addr_spec() is None:
        p.skip_space()
        if p.s.startswith("("):
            p.s = p.s[1:]
            if not p.comment():
                return "mail: misformatted parenthetical comment"
    else:
        if not p.s.startswith("<"):
            words = 0
            while True:
                p.skip_space()
                if not p.s:
                    break
                if p.s[0] == '"':
                    w, err = p.quoted()
                else:
                    w, err = p.atom(True, True)
                if err:
                    if not words:
                        return f"mail: missing word in phrase: {err}"
                    break
                words += 1
        p.skip_space()
        if p.s.startswith(":"):
            return None  # a group; not worth modelling (Go accepts a one-address group)
        if not p.s.startswith("<"):
            return "mail: no angle-addr"
        p.s = p.s[1:]
        err = p.addr_spec()
        if err:
            return err
        if not p.s.startswith(">"):
            return "mail: unclosed angle-addr"
        p.s = p.s[1:]
    if not p.cfws():
        return "mail: misformatted parenthetical comment"
    if p.s:
        return f"mail: expected single address, got {json.dumps(p.s)}"
    return None
