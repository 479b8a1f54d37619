"""A thin GitHub REST client for the action: requests, retries, pagination, no secrets in logs.

Why not PyGithub (README, "GitHub Action"): the action makes a dozen known calls, needs to
tell a refused resource (403 "Resource not accessible by integration", or the Checks API's
"You must authenticate via a GitHub App.") from a secondary rate limit (403/429 with
``retry-after`` or GitHub's message) and from a primary one, must re-read before it retries a
create that may have happened, must never let the token reach an exception message, and must
not spend calls on lazy objects (PyGithub's ``get_repo``/``get_pull`` fetch before any write).

GitHub's rules followed here (docs.github.com, "Best practices for using the REST API" and
"Rate limits for the REST API"): honour ``retry-after``; without it, wait at least a minute
after a secondary rate limit, longer each time; at ``x-ratelimit-remaining: 0`` wait for
``x-ratelimit-reset``; at least a second between mutating requests.
"""
from __future__ import annotations

import os
import random
import re
import time
from typing import Any, Optional

import requests

from .. import __version__

API_VERSION = "2022-11-28"
RETRY_STATUSES = (500, 502, 503, 504)
MAX_ATTEMPTS = 5
MAX_WAIT = 60.0  # never sleep longer than this for one ordinary retry
SECONDARY_WAIT = 60.0  # a secondary rate limit without retry-after: at least a minute (GitHub's rule)
SECONDARY_MAX_WAIT = 300.0
WRITE_SPACING = 1.0  # seconds between mutating requests (GitHub's rule)


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


class ApiError(Exception):
    """A request that failed for good (after retries). ``status`` 0: no answer at all."""

    def __init__(self, method: str, path: str, status: int, message: str, body: Any = None):
        super().__init__(f"{method} {path}: {status} {message}")
        self.method, self.path, self.status, self.message, self.body = method, path, status, message, body


class ReadOnly(ApiError):
    """403 "Resource not accessible by integration": the token may not do this (fork PRs,
    ``permissions:`` without the scope this resource needs). Only that resource is lost: the
    reporters go on with the others."""


class _Recovered:
    """What a re-read found after a create (POST) that may have happened failed: the object."""

    status_code = 200
    links: dict = {}

    def __init__(self, obj):
        self._obj = obj

    def json(self):
        return self._obj


def _message(resp: requests.Response) -> tuple:
    try:
        body = resp.json()
    except ValueError:
        return (resp.text or "")[:200].strip(), None
    msg = body.get("message", "") if isinstance(body, dict) else ""
    errs = body.get("errors") if isinstance(body, dict) else None
    if errs:
        msg = f"{msg} ({'; '.join(str(e.get('message', e) if isinstance(e, dict) else e) for e in errs)[:500]})"
    return msg, body


class GitHub:
    """Calls ``{api_url}/repos/{repo}/...`` with the action's token."""

    def __init__(self, api_url: str, repo: str, token: str, *, base_delay: Optional[float] = None,
                 sleep=time.sleep, clock=time.monotonic, timeout: float = 30.0, log=None,
                 secondary_wait: Optional[float] = None, write_spacing: Optional[float] = None):
        self.api_url = api_url.rstrip("/")
        self.repo = repo
        self._session = requests.Session()
        self._session.headers.update({
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"olm-check/{__version__}",
        })
        self._session.trust_env = True
        # first retry after ~1 s, doubling; OLM_CHECK_RETRY_DELAY overrides (tests use 0.05)
        if base_delay is None:
            try:
                base_delay = float(os.environ.get("OLM_CHECK_RETRY_DELAY", "1"))
            except ValueError:
                base_delay = 1.0
        self.base_delay = base_delay
        # OLM_CHECK_SECONDARY_WAIT / OLM_CHECK_WRITE_SPACING: for tests only (they must not sleep)
        self.secondary_wait = (_env_float("OLM_CHECK_SECONDARY_WAIT", SECONDARY_WAIT)
                               if secondary_wait is None else secondary_wait)
        self.write_spacing = (_env_float("OLM_CHECK_WRITE_SPACING", WRITE_SPACING)
                              if write_spacing is None else write_spacing)
        self.sleep = sleep
        self.clock = clock
        self._last_write: Optional[float] = None
        self.timeout = timeout
        self.calls = 0
        self.waits: list = []  # every retry wait, seconds (what was slept)
        self.retries = 0
        self.log = log or (lambda msg: None)

    def url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        if path.startswith("/"):  # /repos/..., /user, /rate_limit
            return self.api_url + path
        return f"{self.api_url}/repos/{self.repo}/{path.lstrip('/')}"

    def request(self, method: str, path: str, json: Any = None, params: Optional[dict] = None,
                accept: Optional[str] = None, recheck=None):
        """One call with retries. ``recheck``: for a create (POST), a function that looks
        for the object it would create; called when an attempt failed in a way that may have
        created it (5xx, a timeout, no answer) before the next attempt, whose found object is
        returned instead of creating a second one."""
        method = method.upper()
        write = method not in ("GET", "HEAD")
        shown = re.sub(r"^https?://[^/]+", "", path)
        headers = {"Accept": accept} if accept else None
        attempt = 0
        secondary_hits = 0
        maybe_done = False
        while True:
            attempt += 1
            if attempt > 1 and recheck is not None and maybe_done:
                found = recheck()
                if found is not None:
                    self.log(f"{method} {shown}: found what the failed attempt created; not sending it again")
                    return _Recovered(found)
            maybe_done = False
            if write:
                self._space_writes()
            self.calls += 1
            try:
                resp = self._session.request(method, self.url(path), json=json, params=params,
                                             headers=headers, timeout=self.timeout)
            except requests.RequestException as e:
                maybe_done = write
                if attempt >= MAX_ATTEMPTS:
                    found = recheck() if recheck is not None and write else None
                    if found is not None:
                        return _Recovered(found)
                    raise ApiError(method, shown, 0, f"no answer ({type(e).__name__})") from None
                self._wait(attempt, None, f"{method} {shown}: no answer ({type(e).__name__})")
                continue
            if resp.status_code < 400:
                return resp
            msg, body = _message(resp)
            lower = msg.lower()
            primary = resp.status_code in (403, 429) and resp.headers.get("x-ratelimit-remaining") == "0"
            secondary = not primary and (resp.status_code == 429 or (resp.status_code == 403 and (
                "retry-after" in resp.headers or "secondary rate limit" in lower)))
            if resp.status_code == 403 and "not accessible by integration" in lower:
                raise ReadOnly(method, shown, 403, msg, body)
            retry = resp.status_code in RETRY_STATUSES or secondary or primary
            if not retry or attempt >= MAX_ATTEMPTS:
                if recheck is not None and write and resp.status_code in RETRY_STATUSES:
                    found = recheck()
                    if found is not None:
                        return _Recovered(found)
                raise ApiError(method, shown, resp.status_code, msg or resp.reason or "", body)
            maybe_done = write and resp.status_code in RETRY_STATUSES
            wait = None
            if "retry-after" in resp.headers:
                try:
                    wait = float(resp.headers["retry-after"])
                except ValueError:
                    wait = None
            elif primary and resp.headers.get("x-ratelimit-reset", "").isdigit():
                wait = max(0.0, int(resp.headers["x-ratelimit-reset"]) - time.time()) + 1
                if wait > MAX_WAIT:
                    raise ApiError(method, shown, resp.status_code, msg)
            if secondary and wait is None:
                # no retry-after: at least a minute, doubling while it lasts (GitHub's rule)
                secondary_hits += 1
                wait = min(SECONDARY_MAX_WAIT, self.secondary_wait * (2 ** (secondary_hits - 1)))
                self._wait(attempt, wait, f"{method} {shown}: {resp.status_code} {msg[:120]}", cap=SECONDARY_MAX_WAIT)
                continue
            self._wait(attempt, wait, f"{method} {shown}: {resp.status_code} {msg[:120]}")

    def _space_writes(self) -> None:
        if self._last_write is not None and self.write_spacing > 0:
            gap = self.clock() - self._last_write
            if gap < self.write_spacing:
                self.sleep(self.write_spacing - gap)
        self._last_write = self.clock()

    def _wait(self, attempt: int, wait: Optional[float], why: str, cap: float = MAX_WAIT) -> None:
        self.retries += 1
        if wait is None:
            wait = self.base_delay * (2 ** (attempt - 1)) * (1 + random.random() / 4)
        wait = min(cap, max(0.0, wait))
        self.waits.append(wait)
        self.log(f"{why}; retrying in {wait:.1f} s")
        self.sleep(wait)

    def get(self, path: str, params: Optional[dict] = None) -> Any:
        return self.request("GET", path, params=params).json()

    def post(self, path: str, body: dict, recheck=None) -> Any:
        return self.request("POST", path, json=body, recheck=recheck).json()

    def patch(self, path: str, body: dict) -> Any:
        return self.request("PATCH", path, json=body).json()

    def delete(self, path: str) -> None:
        self.request("DELETE", path)

    def paginate(self, path: str, params: Optional[dict] = None, limit: int = 3000, key: Optional[str] = None) -> list:
        """Every item of a list endpoint, following ``Link: rel="next"`` (at most ``limit``)."""
        params = dict(params or {})
        params.setdefault("per_page", 100)
        out: list = []
        url: Optional[str] = path
        first = True
        while url and len(out) < limit:
            resp = self.request("GET", url, params=params if first else None)
            first = False
            data = resp.json()
            items = data.get(key, []) if key and isinstance(data, dict) else data
            if not isinstance(items, list):
                break
            out.extend(items)
            url = resp.links.get("next", {}).get("url")
        return out[:limit]

    def identity(self) -> Optional[dict]:
        """The token's own account (``GET /user``: login and type) for a personal access
        token or a user's token; None for an installation token (GITHUB_TOKEN or a GitHub
        App's), which GitHub answers 403 there."""
        try:
            data = self.get("/user")
        except ApiError:
            return None
        if isinstance(data, dict) and isinstance(data.get("login"), str):
            return {"login": data["login"], "type": data.get("type") or "User"}
        return None
