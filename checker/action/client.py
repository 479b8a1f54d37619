"""A thin GitHub REST client for the action: requests, retries, pagination, no secrets in logs.

Why not PyGithub here: the action makes a dozen known calls, needs to tell a read-only token
(403 "Resource not accessible by integration") from a secondary rate limit (403/429 with
``retry-after``) and from a primary one, must never let the token reach an exception message,
and must not spend calls on lazy objects (PyGithub's ``get_repo``/``get_pull`` fetch before any
write). A ~150-line client over ``requests`` does exactly that and is easy to test against
the fake GitHub.
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
MAX_WAIT = 60.0  # never sleep longer than this for one retry


class ApiError(Exception):
    """A request that failed for good (after retries). ``status`` 0: no answer at all."""

    def __init__(self, method: str, path: str, status: int, message: str, body: Any = None):
        super().__init__(f"{method} {path}: {status} {message}")
        self.method, self.path, self.status, self.message, self.body = method, path, status, message, body


class ReadOnly(ApiError):
    """403 "Resource not accessible by integration": the token may not write (fork PRs,
    restricted ``permissions:``). Every later write is refused without a request."""


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
                 sleep=time.sleep, timeout: float = 30.0, log=None):
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
        self.sleep = sleep
        self.timeout = timeout
        self.read_only = False
        self.calls = 0
        self.retries = 0
        self.log = log or (lambda msg: None)

    def url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        if path.startswith("/repos/") or path.startswith("/rate_limit"):
            return self.api_url + path
        return f"{self.api_url}/repos/{self.repo}/{path.lstrip('/')}"

    def request(self, method: str, path: str, json: Any = None, params: Optional[dict] = None,
                accept: Optional[str] = None) -> requests.Response:
        method = method.upper()
        write = method not in ("GET", "HEAD")
        shown = re.sub(r"^https?://[^/]+", "", path)
        if write and self.read_only:
            raise ReadOnly(method, shown, 403, "the token is read-only (an earlier write was refused)")
        headers = {"Accept": accept} if accept else None
        attempt = 0
        while True:
            attempt += 1
            self.calls += 1
            try:
                resp = self._session.request(method, self.url(path), json=json, params=params,
                                             headers=headers, timeout=self.timeout)
            except requests.RequestException as e:
                if attempt >= MAX_ATTEMPTS:
                    raise ApiError(method, shown, 0, f"no answer ({type(e).__name__})") from None
                self._wait(attempt, None, f"{method} {shown}: no answer ({type(e).__name__})")
                continue
            if resp.status_code < 400:
                return resp
            msg, body = _message(resp)
            lower = msg.lower()
            secondary = resp.status_code in (403, 429) and (
                "retry-after" in resp.headers or "secondary rate limit" in lower)
            primary = resp.status_code in (403, 429) and resp.headers.get("x-ratelimit-remaining") == "0"
            if resp.status_code == 403 and "not accessible by integration" in lower:
                if write:
                    self.read_only = True
                raise ReadOnly(method, shown, 403, msg, body)
            retry = resp.status_code in RETRY_STATUSES or secondary or primary
            if not retry or attempt >= MAX_ATTEMPTS:
                raise ApiError(method, shown, resp.status_code, msg or resp.reason or "", body)
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
            self._wait(attempt, wait, f"{method} {shown}: {resp.status_code} {msg[:120]}")

    def _wait(self, attempt: int, wait: Optional[float], why: str) -> None:
        self.retries += 1
        if wait is None:
            wait = self.base_delay * (2 ** (attempt - 1)) * (1 + random.random() / 4)
        wait = min(MAX_WAIT, max(0.0, wait))
        self.log(f"{why}; retrying in {wait:.1f} s")
        self.sleep(wait)

    def get(self, path: str, params: Optional[dict] = None) -> Any:
        return self.request("GET", path, params=params).json()

    def post(self, path: str, body: dict) -> Any:
        return self.request("POST", path, json=body).json()

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
