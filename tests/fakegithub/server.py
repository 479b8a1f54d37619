"""A fake GitHub REST API on 127.0.0.1 for end-to-end tests of the action.

One repository (``owner/repo`` by default), any number of pull requests with real
patches, and the endpoints olm-check talks to: check runs and their annotations, pull
request reviews and review comments, issue comments, pull request files, commits,
compare and rate_limit. Every request is recorded, checked against GitHub's published
OpenAPI description (vendored in ``schema/``) and answered the way GitHub answers,
including its refusals: a review comment outside the diff, more than 50 annotations in
one request, a 65535-character summary, writes with a read-only (fork) token.

Typical use (see ``plugin.py`` for the ``fake_github`` pytest fixture)::

    with FakeGitHub() as gh:
        pr = gh.add_pull(1)
        pr.add_file("bundle/manifests/csv.yaml", base="a\\n", head="a\\nb\\n")
        gh.fail("POST", r".*/check-runs", 502, times=2)
        run_the_action(api_url=gh.url, token=gh.token)
        assert gh.violations == []
        assert gh.check_runs_for(pr.head_sha)[0].conclusion == "failure"

Nothing here talks to any address but 127.0.0.1.
"""
from __future__ import annotations

import base64
import json
import re
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Optional, Union
from urllib.parse import parse_qsl, urlencode, urlsplit

from . import contract
from .contract import API_VERSION, Operation, conform
from .state import (ACTIONS_BOT, Annotation, CheckRun, Commit, IssueComment, PullFile,
                    PullRequest, Repo, Review, ReviewComment, Site, Token, User, blob_sha,
                    fake_sha, next_id, now)

#: The token the fake accepts out of the box; it acts as ``github-actions[bot]``.
DEFAULT_TOKEN = "ghs_fakeGitHubToken0000000000000000000000"

MAX_FILES = 3000          # pulls/{n}/files never lists more
MAX_BODY = 65536          # issue/review comment body limit
SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
    "again. If you reach out to GitHub Support for help, please include the request ID "
    "{request_id}.")
SECONDARY_RATE_LIMIT_DOCS = ("https://docs.github.com/free-pro-team@latest/rest/overview/"
                             "rate-limits-for-the-rest-api#about-secondary-rate-limits")
_BAD_GATEWAY_HTML = (
    "<!DOCTYPE html>\n<html>\n  <head>\n    <title>Unicorn! &middot; GitHub</title>\n"
    "  </head>\n  <body>\n    <p>We had issues producing the response to your request."
    "</p>\n  </body>\n</html>\n")


# --- records tests inspect -----------------------------------------------------------

@dataclass
class RecordedRequest:
    """One request as the server saw it (the token itself is never kept)."""

    method: str
    path: str                       # as requested, without the query
    route: str                      # normalized /repos/{owner}/{repo}/... form
    query: dict                     # name -> last value
    headers: dict                   # lower-case names; authorization removed
    body: Any                       # parsed JSON, raw text if not JSON, or None
    login: Optional[str] = None     # whose token it carried
    operation: Optional[str] = None  # operationId, e.g. "checks/create"
    status: Optional[int] = None    # what the fake answered
    response: Any = None            # the JSON (or text) it answered with
    fault: Optional[str] = None     # description of the injected fault, if one fired


@dataclass
class Violation:
    """A request that breaks GitHub's published contract (a bug in the client)."""

    kind: str                       # route, schema, parameter, auth, header, semantic
    method: str
    path: str
    operation: Optional[str]
    message: str

    def __str__(self) -> str:
        op = f" ({self.operation})" if self.operation else ""
        return f"{self.kind}: {self.method} {self.path}{op}: {self.message}"


@dataclass
class Fault:
    """A scripted failure: the next ``times`` requests matching it get this answer."""

    method: Optional[str]           # None or "*": any method
    path: str                       # regex, full match against the /repos/... path
    status: int
    body: Any = None
    headers: dict = field(default_factory=dict)
    times: Optional[int] = 1        # None: forever
    delay: float = 0.0              # seconds to wait before answering
    label: str = ""
    hits: int = 0
    after: bool = False             # do the request first, then answer with the fault

    def matches(self, method: str, route: str) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method not in (None, "*") and self.method.upper() != method:
            return False
        return re.fullmatch(self.path, route) is not None


@dataclass
class Response:
    status: int
    body: Any = None                # dict/list -> JSON; str -> text; None -> empty
    headers: dict = field(default_factory=dict)

    def payload(self) -> bytes:
        if self.body is None:
            return b""
        if isinstance(self.body, (bytes, bytearray)):
            return bytes(self.body)
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body).encode()


class ApiError(Exception):
    """Raised by a handler to answer with an error response."""

    def __init__(self, response: Response):
        super().__init__(response.status)
        self.response = response


@dataclass
class _Ctx:
    op: Operation
    params: dict
    query: dict
    query_pairs: list
    body: Any
    user: Optional[User]
    route: str
    media: str                      # "json", "diff" or "patch"


def _to_sentence(items: list) -> str:
    """Rails' Array#to_sentence, which GitHub uses to join validation messages."""
    items = list(dict.fromkeys(items))
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f", and {items[-1]}"


_ACCEPT_JSON = re.compile(
    r"(\*/\*|application/\*|application/json"
    r"|application/vnd\.github(\.v3)?(\.(raw|text|html|full|base64|object|sha))?(\+json)?"
    r"|application/vnd\.github(\.v3)?\.(star|squirrel-girl|[a-z0-9-]+-preview)"
    r"(\.[a-z]+)?(\+json)?"
    r"|application/vnd\.github-commitcomment\.(raw|text|html|full)\+json)")
_ACCEPT_DIFF = re.compile(r"application/vnd\.github(\.v3)?\.(diff|patch)")
_DIFF_OPERATIONS = {"pulls/get", "repos/compare-commits-with-basehead", "repos/get-commit"}


class FakeGitHub:
    """The fake GitHub: state, request handling and (when started) an HTTP server.

    Construct, add state (``add_pull``, ``add_token`` ...), ``start()`` (or use it as a
    context manager), point the client at :attr:`url` with :attr:`token`, then inspect
    :attr:`requests`, :attr:`violations` and the posted objects.
    """

    def __init__(self, owner: str = "owner", repo: str = "repo", *,
                 token: str = DEFAULT_TOKEN, api_prefix: str = "",
                 web_url: str = "https://github.com", link_style: str = "repositories",
                 rate_limit: int = 5000):
        """
        :param owner, repo: the repository the fake serves.
        :param token: accepted token acting as ``github-actions[bot]``.
        :param api_prefix: e.g. ``/api/v3`` to look like GitHub Enterprise Server.
        :param web_url: host of ``html_url`` values.
        :param link_style: ``repositories`` (GitHub's real pagination links,
            ``/repositories/{id}/...``) or ``repos`` (``/repos/{owner}/{repo}/...``).
        :param rate_limit: ``x-ratelimit-limit`` for authenticated requests.
        """
        self.lock = threading.RLock()
        self.contract = contract.rest()
        self.api_prefix = api_prefix.rstrip("/")
        self.web_url = web_url.rstrip("/")
        self.link_style = link_style
        self.users: dict = {}
        self.repo = Repo(self.user(owner, "Organization"), repo)
        self.tokens: dict = {}
        self.token = token
        self.add_token(token, ACTIONS_BOT.login, ACTIONS_BOT.type)
        self.pulls: dict = {}
        self.commits: dict = {}
        self.check_runs: dict = {}
        self.issue_comments: dict = {}
        self.review_comments: dict = {}
        self.reviews: dict = {}
        #: (commit sha, path) -> file text, for GET .../contents/{path}?ref=
        self.contents: dict = {}
        #: every request, in arrival order
        self.requests: list = []
        #: requests that break GitHub's published contract: assert it stays empty
        self.violations: list = []
        #: responses of the fake that break the response schema (bugs of the fake)
        self.response_violations: list = []
        #: legal but suspicious requests (undocumented fields, odd annotation paths)
        self.warnings: list = []
        self.faults: list = []
        #: when True every write answers 403 "Resource not accessible by integration"
        self.read_only = False
        self.rate = {"limit": rate_limit, "used": 0, "reset": int(time.time()) + 3600}
        self._httpd: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None
        self._base = "https://api.github.com"

    # --- lifecycle ---------------------------------------------------------------------
    def start(self) -> "FakeGitHub":
        """Listen on a random port of 127.0.0.1 in a background thread."""
        if self._httpd is not None:
            return self
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        httpd.fake = self  # type: ignore[attr-defined]
        self._httpd = httpd
        self._base = f"http://127.0.0.1:{httpd.server_address[1]}"
        self._thread = threading.Thread(target=httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name="fake-github", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> "FakeGitHub":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The API root to use as ``GITHUB_API_URL`` (``http://127.0.0.1:PORT[/api/v3]``)."""
        return self._base + self.api_prefix

    @property
    def site(self) -> Site:
        return Site(self.url, self.web_url)

    # --- building state ----------------------------------------------------------------
    def user(self, login: str, type: str = "User") -> User:
        """The user named ``login`` (created on first use)."""
        with self.lock:
            if login not in self.users:
                self.users[login] = (ACTIONS_BOT if login == ACTIONS_BOT.login
                                     else User(login, next_id(), type))
            return self.users[login]

    def add_token(self, token: str, login: str = ACTIONS_BOT.login, type: str = "Bot",
                  write: bool = True) -> User:
        """Accept ``token`` as ``login``; ``write=False`` makes it read-only (fork PR)."""
        with self.lock:
            user = self.user(login, type)
            self.tokens[token] = Token(token, user, write)
            return user

    def add_commit(self, sha: str, parents=(), files=(), message: str = "Commit",
                   author: Optional[str] = None) -> Commit:
        with self.lock:
            commit = Commit(sha, list(parents), list(files), message,
                            self.user(author) if author else None)
            self.commits[sha] = commit
            return commit

    def add_pull(self, number: int = 1, *, head_sha: Optional[str] = None,
                 base_sha: Optional[str] = None, head_ref: str = "feature",
                 base_ref: Optional[str] = None, fork: bool = False,
                 author: str = "contributor", title: str = "Update operator bundle",
                 body: Optional[str] = None, draft: bool = False,
                 files: Union[dict, list, None] = None) -> PullRequest:
        """Add pull request ``number``; its base, head and merge commits become known.

        ``files``: ``{filename: patch}`` or a list of ``PullRequest.add_file`` keyword
        dicts; more can be added later with ``pr.add_file(...)``.
        """
        with self.lock:
            pr = PullRequest(
                number=number, repo=self.repo,
                head_sha=head_sha or fake_sha("head", number),
                base_sha=base_sha or fake_sha("base", number),
                user=self.user(author), head_ref=head_ref,
                base_ref=base_ref or self.repo.default_branch, fork=fork, title=title,
                body=body, draft=draft)
            self.pulls[number] = pr
            self.add_commit(pr.base_sha, [], [], "Base commit")
            self.commits[pr.head_sha] = _PullCommit(pr)
            self.add_commit(pr.merge_commit_sha, [pr.base_sha, pr.head_sha], [],
                            f"Merge {pr.head_sha} into {pr.base_sha}")
            if isinstance(files, dict):
                for filename, patch in files.items():
                    pr.add_file(filename, patch)
            for spec in files if isinstance(files, list) else []:
                pr.add_file(**spec)
            return pr

    def add_issue_comment(self, number: int, body: str, login: str = "reviewer",
                          type: str = "User") -> IssueComment:
        """Seed a comment on PR ``number``'s conversation (e.g. a human's, or a stale one)."""
        with self.lock:
            c = IssueComment(next_id(), number, body, self.user(login, type))
            self.issue_comments[c.id] = c
            return c

    def add_review_comment(self, number: int, path: str, line: Optional[int], body: str,
                           login: str = "reviewer", type: str = "User", side: str = "RIGHT",
                           in_reply_to: Optional[int] = None) -> ReviewComment:
        """Seed a review comment (``line=None``: file-level); raises if not in the diff."""
        with self.lock:
            pr = self.pulls[number]
            user = self.user(login, type)
            if in_reply_to is not None:
                root = self.review_comments[in_reply_to]
                fields = {k: getattr(root, k) for k in (
                    "path", "line", "side", "start_line", "start_side", "position",
                    "diff_hunk", "subject_type")}
                reply_to = root.in_reply_to_id or root.id
            else:
                spec = {"path": path, "body": body}
                if line is None:
                    spec["subject_type"] = "file"
                else:
                    spec.update(line=line, side=side)
                fields, problems = self._place_comment(pr, spec)
                if problems:
                    raise ValueError(f"{path}:{line} is not in the diff of PR {number}")
                reply_to = None
            review = Review(next_id(), number, user, "", "COMMENTED", pr.head_sha, now())
            self.reviews[review.id] = review
            c = ReviewComment(next_id(), number, review.id, user, body,
                              commit_id=pr.head_sha, in_reply_to_id=reply_to, **fields)
            self.review_comments[c.id] = c
            return c

    def add_content(self, sha: str, path: str, text: str) -> None:
        """File ``path`` as commit ``sha`` has it (served by the contents API)."""
        with self.lock:
            self.contents[(sha, path)] = text

    def outdate(self, comment: ReviewComment) -> None:
        """Make a review comment outdated, as GitHub does when its line changes: the API
        then answers ``line``/``position`` null (``original_line`` stays)."""
        with self.lock:
            comment.outdated = True

    # --- faults -----------------------------------------------------------------------
    def fail(self, method: Optional[str], path: str, kind: Union[int, str] = 500, *,
             times: Optional[int] = 1, retry_after: int = 1, body: Any = None,
             headers: Optional[dict] = None, delay: float = 0.0,
             status: Optional[int] = None, after: bool = False) -> Fault:
        """Script a failure for the next ``times`` requests matching method and path.

        ``path`` is a regular expression matched in full against the request path in
        ``/repos/{owner}/{repo}/...`` form, without query (e.g. ``r".*/check-runs"``).
        ``kind`` is an HTTP status (500, 502, 503, 404, 401, 403, 422 ... with GitHub's
        body for it) or one of:

        - ``"secondary-rate-limit"``: 403, ``retry-after: <retry_after>``, GitHub's message;
        - ``"rate-limit"``: 403 with ``x-ratelimit-remaining: 0`` (primary limit);
        - ``"not-accessible"``: 403 "Resource not accessible by integration";
        - ``"bad-credentials"``: 401 "Bad credentials";
        - ``"timeout"``: answers 504 after ``delay`` (default 1 s).

        ``body``/``headers``/``status`` override the defaults (GitHub also answers
        secondary rate limits with 429). ``times=None`` keeps the fault forever.
        ``after=True``: the request is carried out, then answered with the fault (a create
        that happened although the client saw a 5xx or a timeout). Faults
        are tried in the order added;
        the first one that still has uses answers. Returns the :class:`Fault` (see
        ``fault.hits``).
        """
        default_status, default_body, default_headers = self._fault_response(kind, retry_after)
        status = status or default_status
        if kind == "timeout" and not delay:
            delay = 1.0
        fault = Fault(method, path, status, default_body if body is None else body,
                      {**default_headers, **(headers or {})}, times, delay, str(kind), after=after)
        with self.lock:
            self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    def _fault_response(self, kind, retry_after: int) -> tuple:
        docs = "https://docs.github.com/rest"
        if kind == "secondary-rate-limit":
            return 403, {"message": SECONDARY_RATE_LIMIT_MESSAGE,
                         "documentation_url": SECONDARY_RATE_LIMIT_DOCS}, {
                "retry-after": str(retry_after)}
        if kind == "rate-limit":
            return 403, {"message": "API rate limit exceeded for installation ID 1.",
                         "documentation_url": "https://docs.github.com/rest/overview/"
                         "rate-limits-for-the-rest-api#about-primary-rate-limits"}, {
                "x-ratelimit-remaining": "0",
                "x-ratelimit-reset": str(int(time.time()) + retry_after)}
        if kind == "not-accessible":
            return 403, {"message": "Resource not accessible by integration",
                         "documentation_url": docs}, {}
        if kind == "bad-credentials":
            return 401, {"message": "Bad credentials", "documentation_url": docs}, {}
        if kind == "timeout":
            return 504, {"message": "We couldn't respond to your request in time. Sorry "
                         "about that. Please try resubmitting your request and contact us"
                         " if the problem persists."}, {}
        if not isinstance(kind, int):
            raise ValueError(f"unknown fault kind {kind!r}")
        if kind == 502:
            return 502, _BAD_GATEWAY_HTML, {"content-type": "text/html; charset=utf-8"}
        messages = {500: "Server Error", 503: "Service Unavailable", 404: "Not Found",
                    401: "Requires authentication", 403: "Forbidden",
                    422: "Validation Failed", 409: "Conflict", 410: "Gone"}
        return kind, {"message": messages.get(kind, "Error"), "documentation_url": docs}, {}

    # --- inspection --------------------------------------------------------------------
    def calls(self, operation: Optional[str] = None, method: Optional[str] = None,
              path: Optional[str] = None) -> list:
        """Recorded requests, filtered by operationId, method and/or route regex."""
        with self.lock:
            return [r for r in self.requests
                    if (operation is None or r.operation == operation)
                    and (method is None or r.method == method.upper())
                    and (path is None or re.fullmatch(path, r.route))]

    def check_runs_for(self, sha: str, name: Optional[str] = None) -> list:
        with self.lock:
            return [c for c in self.check_runs.values()
                    if c.head_sha == sha and (name is None or c.name == name)]

    def issue_comments_for(self, number: int) -> list:
        with self.lock:
            return [c for c in self.issue_comments.values() if c.issue_number == number]

    def review_comments_for(self, number: int) -> list:
        with self.lock:
            return [c for c in self.review_comments.values() if c.pull_number == number]

    def reviews_for(self, number: int) -> list:
        with self.lock:
            return [r for r in self.reviews.values() if r.pull_number == number]

    # --- events and environment --------------------------------------------------------
    def pull_request_event(self, number: int = 1, action: str = "opened", **kw) -> dict:
        """A ``pull_request`` webhook payload for PR ``number``, valid against the schema."""
        from .events import pull_request_event
        return pull_request_event(self.pulls[number], action, site=self.site, **kw)

    def push_event(self, **kw) -> dict:
        from .events import push_event
        return push_event(self.repo, site=self.site, **kw)

    def actions_env(self, run_dir, number: Optional[int] = 1, *, action: str = "opened",
                    event_name: str = "pull_request", token: Optional[str] = None,
                    workspace=None, payload: Optional[dict] = None) -> dict:
        """Environment of a GitHub Actions job step for the action, pointing at the fake.

        Writes ``event.json`` (and empty ``github_output``/``step_summary`` files) into
        ``run_dir`` and returns the variables a Docker action sees: the token only as
        ``INPUT_GITHUB_TOKEN`` (the runner passes no ``GITHUB_TOKEN``), ``GITHUB_SHA``
        the merge commit for ``pull_request`` (as on GitHub), the base for
        ``pull_request_target``, the pushed head for ``push``.
        """
        from .events import write_event
        run_dir = Path(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        env = {
            "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_API_URL": self.url,
            "GITHUB_SERVER_URL": self.web_url, "GITHUB_GRAPHQL_URL": f"{self.url}/graphql",
            "GITHUB_REPOSITORY": self.repo.full_name,
            "GITHUB_REPOSITORY_OWNER": self.repo.owner.login,
            "GITHUB_EVENT_NAME": event_name, "GITHUB_WORKSPACE": str(workspace or run_dir),
            "GITHUB_RUN_ID": "1234567890", "GITHUB_RUN_NUMBER": "7",
            "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "olm-check",
            "GITHUB_WORKFLOW": "olm-check", "GITHUB_ACTOR": "contributor",
            "GITHUB_ACTION": "__olm-check", "RUNNER_OS": "Linux",
            "RUNNER_TEMP": str(run_dir), "INPUT_GITHUB_TOKEN": token or self.token,
        }
        if event_name == "push" or number is None:
            if payload is None:
                base = self.pulls[number].base_sha if number else fake_sha("before")
                head = self.pulls[number].head_sha if number else fake_sha("after")
                payload = self.push_event(before=base, after=head)
            env.update(GITHUB_SHA=payload["after"], GITHUB_REF=payload["ref"],
                       GITHUB_REF_NAME=payload["ref"].rsplit("/", 1)[-1])
        else:
            pr = self.pulls[number]
            if payload is None:
                payload = self.pull_request_event(number, action)
            target = event_name == "pull_request_target"
            env.update(
                GITHUB_SHA=pr.base_sha if target else pr.merge_commit_sha,
                GITHUB_REF=f"refs/heads/{pr.base_ref}" if target
                else f"refs/pull/{number}/merge",
                GITHUB_REF_NAME=pr.base_ref if target else f"{number}/merge",
                GITHUB_HEAD_REF=pr.head_ref, GITHUB_BASE_REF=pr.base_ref)
        env["GITHUB_EVENT_PATH"] = str(write_event(run_dir / "event.json", payload))
        for name, var in (("github_output", "GITHUB_OUTPUT"),
                          ("step_summary", "GITHUB_STEP_SUMMARY"), ("github_env", "GITHUB_ENV")):
            (run_dir / name).touch()
            env[var] = str(run_dir / name)
        return env

    # --- request handling --------------------------------------------------------------
    def handle(self, method: str, target: str, headers: dict, raw_body: bytes) -> Response:
        """Answer one HTTP request (also usable without the socket, for unit tests)."""
        delay = 0.0
        with self.lock:
            try:
                response, delay = self._handle(method.upper(), target,
                                               {k.lower(): v for k, v in headers.items()},
                                               raw_body)
            except Exception:  # a bug of the fake: say so loudly, answer 500
                self.response_violations.append(
                    f"internal error on {method} {target}:\n{traceback.format_exc()}")
                response = Response(500, {"message": "fake GitHub internal error (see "
                                          "fake.response_violations)"})
        if delay:
            time.sleep(delay)
        return response

    def _handle(self, method: str, target: str, headers: dict, raw_body: bytes) -> tuple:
        split = urlsplit(target)
        path = split.path
        query_pairs = parse_qsl(split.query, keep_blank_values=True)
        query = dict(query_pairs)
        request_id = f"{uuid.uuid4().hex[:4].upper()}:{uuid.uuid4().hex[:6].upper()}"
        body, body_error = _parse_body(raw_body)
        auth = headers.pop("authorization", None)
        rec = RecordedRequest(method, path, path, query, dict(headers), body)
        self.requests.append(rec)
        violations: list = []

        def violate(kind, message, op=None):
            v = Violation(kind, method, path, op.operation_id if op else None, message)
            violations.append(v)
            self.violations.append(v)

        def finish(resp: Response, fault: Optional[Fault] = None) -> tuple:
            resp.headers = {**self._common_headers(request_id, rec.login), **resp.headers}
            if isinstance(resp.body, (dict, list)):
                resp.headers.setdefault("content-type", "application/json; charset=utf-8")
            rec.status, rec.response = resp.status, resp.body
            if fault:
                rec.fault = fault.label
            return resp, (fault.delay if fault else 0.0)

        # The API root (GHES: /api/v3) and GitHub's /repositories/{id} alias.
        route = path
        if self.api_prefix:
            if not route.startswith(self.api_prefix + "/") and route != self.api_prefix:
                violate("route", f"path does not start with the API prefix {self.api_prefix}")
                return finish(self._error(404, "Not Found"))
            route = route[len(self.api_prefix):] or "/"
        m = re.match(r"^/repositories/(\d+)(/.*)?$", route)
        if m and int(m.group(1)) == self.repo.id:
            route = f"/repos/{self.repo.full_name}{m.group(2) or ''}"
        rec.route = route

        op, params = self.contract.route("GET" if method == "HEAD" else method, route)
        if op is None:
            allowed = (params or {}).get("allowed")
            violate("route", f"no {method} operation for this path in the vendored API cut"
                    + (f" (allowed: {', '.join(allowed)})" if allowed else ""))
            return finish(self._error(404, "Not Found"))
        rec.operation = op.operation_id

        # Who is calling.
        user = tok = None
        if auth is not None:
            am = re.fullmatch(r"(?i)(bearer|token)\s+(\S+)", auth.strip())
            if not am:
                violate("auth", "Authorization header is not 'Bearer <token>' or "
                        "'token <token>'", op)
                return finish(self._error(401, "Bad credentials", op))
            tok = self.tokens.get(am.group(2))
            if tok is None:
                return finish(self._error(401, "Bad credentials", op))
            user = tok.user
            rec.login = user.login
        elif op.is_write:
            violate("auth", "write without an Authorization header", op)
            return finish(self._error(401, "Requires authentication", op))

        # Headers GitHub insists on.
        if not headers.get("user-agent"):
            violate("header", "no User-Agent header (GitHub answers 403)", op)
            return finish(Response(403, "Request forbidden by administrative rules. Please "
                                   "make sure your request has a User-Agent header "
                                   "(https://docs.github.com/en/rest/overview/resources-in-"
                                   "the-rest-api#user-agent-required). Check "
                                   "https://developer.github.com for other possible causes.\n",
                                   {"content-type": "text/plain; charset=utf-8"}))
        version = headers.get("x-github-api-version")
        if version is not None and version != API_VERSION:
            violate("header", f"X-GitHub-Api-Version {version!r} (only {API_VERSION} is "
                    "supported)", op)
            return finish(self._error(400, f"API version '{version}' is not supported.", op))
        media = _accepted_media(headers.get("accept", ""), op)
        if media is None:
            violate("header", f"Accept {headers.get('accept')!r} not served by this "
                    "operation", op)
            return finish(self._error(415, f"Unsupported 'Accept' header: "
                                      f"'{headers.get('accept')}'. Must accept "
                                      "'application/json'.", op))

        # Parameters and body against the published schema (recorded even if a fault fires).
        param_errors, coerced = self.contract.parameter_errors(op, params, query)
        for _, msg in param_errors:
            violate("parameter", msg, op)
        body_errors = []
        if op.request_schema is not None:
            if body_error:
                violate("schema", f"body is not JSON: {body_error}", op)
            else:
                payload = body if body is not None else {}
                if body is None and op.request_required:
                    violate("schema", "request body is required", op)
                body_errors = self.contract.request_errors(op, payload)
                for msg in body_errors:
                    violate("schema", msg, op)

        # Scripted faults take precedence over everything below.
        late_fault = None
        for fault in self.faults:
            if fault.matches(method, route) and fault.after:
                fault.hits += 1
                late_fault = fault
                break
            if fault.matches(method, route):
                fault.hits += 1
                body_out = fault.body
                if isinstance(body_out, dict):
                    body_out = {**body_out, "status": str(fault.status)}
                    if "message" in body_out and "{request_id}" in body_out["message"]:
                        body_out["message"] = body_out["message"].format(
                            request_id=request_id)
                return finish(Response(fault.status, body_out, dict(fault.headers)), fault)

        if any(where == "path" for where, _ in param_errors):
            return finish(self._error(404, "Not Found", op))
        if param_errors:
            return finish(self._error(422, "Invalid request.\n\n" + "\n".join(
                msg for _, msg in param_errors), op))
        if op.request_schema is not None and body_error:
            return finish(self._error(400, "Problems parsing JSON", op))
        if body_errors:
            return finish(self._error(422, "Invalid request.\n\n" + "\n".join(body_errors), op))

        # Repository and permissions.
        if params.get("owner", "").lower() != self.repo.owner.login.lower() or \
                params.get("repo", self.repo.name).lower() != self.repo.name.lower():
            if "owner" in params:
                self.warnings.append(f"{method} {path}: repository "
                                     f"{params['owner']}/{params.get('repo')} is not "
                                     f"{self.repo.full_name}")
                return finish(self._error(404, "Not Found", op))
        if op.is_write and (self.read_only or (tok is not None and not tok.write)):
            return finish(self._error(403, "Resource not accessible by integration", op))
        if op.operation_id.startswith("checks/") and op.is_write and user is not None \
                and user.type != "Bot":
            # a personal access token (or a user's OAuth token): the Checks API refuses it
            return finish(self._error(403, "You must authenticate via a GitHub App.", op))
        if op.operation_id == "users/get-authenticated" and user is not None \
                and user.type == "Bot":
            # an installation token (GITHUB_TOKEN or a GitHub App's) has no user
            return finish(self._error(403, "Resource not accessible by integration", op))

        self.rate["used"] += 1
        ctx = _Ctx(op, params, coerced, query_pairs, body if body is not None else {},
                   user, route, media)
        handler = _HANDLERS[op.operation_id]
        try:
            resp = handler(self, ctx)
        except ApiError as e:
            resp = e.response
        if isinstance(resp.body, (dict, list)) and resp.status == op.response_status:
            resp.body = conform(resp.body, op.response_schema or {}, self.contract.defs)
            for msg in self.contract.response_errors(op, resp.body):
                self.response_violations.append(f"{op.operation_id}: {msg}")
        if late_fault is not None:
            return finish(Response(late_fault.status, late_fault.body, dict(late_fault.headers)),
                          late_fault)
        return finish(resp)

    def _common_headers(self, request_id: str, login: Optional[str]) -> dict:
        limit = self.rate["limit"] if login else 60
        used = min(self.rate["used"], limit)
        return {
            "server": "GitHub.com",
            "x-github-api-version-selected": API_VERSION,
            "x-github-media-type": "github.v3; format=json",
            "x-github-request-id": request_id,
            "x-ratelimit-limit": str(limit),
            "x-ratelimit-remaining": str(limit - used),
            "x-ratelimit-reset": str(self.rate["reset"]),
            "x-ratelimit-used": str(used),
            "x-ratelimit-resource": "core",
            "access-control-expose-headers": "ETag, Link, Location, Retry-After, "
            "X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, "
            "X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, "
            "X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, "
            "X-GitHub-Request-Id, Deprecation, Sunset",
        }

    def _error(self, status: int, message: str, op: Optional[Operation] = None,
               errors: Optional[list] = None) -> Response:
        body = {"message": message,
                "documentation_url": op.documentation_url if op else
                "https://docs.github.com/rest",
                "status": str(status)}
        if errors is not None:
            body = {"message": message, "errors": errors,
                    "documentation_url": body["documentation_url"], "status": str(status)}
        return Response(status, body)

    def _raise(self, status: int, message: str, ctx: _Ctx, errors=None):
        raise ApiError(self._error(status, message, ctx.op, errors))

    def _violation(self, ctx: _Ctx, message: str, kind: str = "semantic") -> None:
        self.violations.append(Violation(kind, ctx.op.method, ctx.route,
                                         ctx.op.operation_id, message))

    # --- helpers for handlers ----------------------------------------------------------
    def _pull(self, ctx: _Ctx, key: str = "pull_number") -> PullRequest:
        pr = self.pulls.get(_int(ctx.params.get(key)))
        if pr is None:
            self._raise(404, "Not Found", ctx)
        return pr

    def _resolve_ref(self, ref: str) -> Optional[str]:
        ref = ref.split(":", 1)[-1]
        for prefix in ("refs/heads/", "heads/", "refs/tags/", "tags/"):
            if ref.startswith(prefix):
                ref = ref[len(prefix):]
        if ref in self.commits:
            return ref
        matches = [sha for sha in self.commits if len(ref) >= 7 and sha.startswith(ref)]
        if len(matches) == 1:
            return matches[0]
        for pr in self.pulls.values():
            if ref == pr.head_ref:
                return pr.head_sha
            if ref == pr.base_ref:
                return pr.base_sha
            if ref == f"pull/{pr.number}/merge":
                return pr.merge_commit_sha
        return None

    def _paginate(self, ctx: _Ctx, items: list, default: int = 30, maximum: int = 100,
                  cap: Optional[int] = None) -> tuple:
        """Slice ``items`` as ``per_page``/``page`` ask; return (page, Link headers)."""
        if cap is not None:
            items = items[:cap]
        per_page = ctx.query.get("per_page", default)
        per_page = per_page if isinstance(per_page, int) and per_page > 0 else default
        per_page = min(per_page, maximum)
        page = ctx.query.get("page", 1)
        page = page if isinstance(page, int) and page > 0 else 1
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page: page * per_page]
        if last == 1 and page == 1:
            return chunk, {}
        rels = []
        if page > 1:
            rels.append((min(page - 1, last), "prev"))
        if page < last:
            rels += [(page + 1, "next"), (last, "last")]
        if page > 1:
            rels.append((1, "first"))
        route = ctx.route
        if self.link_style == "repositories":
            route = re.sub(r"^/repos/[^/]+/[^/]+", f"/repositories/{self.repo.id}", route)
        others = [(k, v) for k, v in ctx.query_pairs if k != "page"]
        link = ", ".join(f'<{self.url}{route}?{urlencode(others + [("page", n)])}>; rel="{rel}"'
                         for n, rel in rels)
        return chunk, {"link": link}

    def _place_comment(self, pr: PullRequest, c: dict) -> tuple:
        """Where a review comment lands in the diff: ``(fields, problems)``.

        ``problems`` are ``(field, phrase)`` pairs in GitHub's wording, e.g.
        ``("line", "must be part of the diff")``; empty when the comment fits.
        """
        pf: Optional[PullFile] = pr.file(c.get("path", ""))
        blank_hunk = ("diff_hunk", "can't be blank")
        if pf is None:
            return {}, [("path", "is invalid"), blank_hunk]
        first_header = pf.parsed.lines[0].text if pf.parsed.lines else ""
        if c.get("subject_type") == "file":
            return {"path": pf.filename, "subject_type": "file", "line": None, "side": None,
                    "start_line": None, "start_side": None, "position": None,
                    "diff_hunk": first_header}, []
        patch = pf.parsed
        if c.get("line") is None and c.get("position") is not None:
            target = patch.at_position(c["position"])
            if target is None:
                return {}, [("position", "is invalid"), blank_hunk]
            side = "LEFT" if target.kind == "delete" else "RIGHT"
            line = target.old if side == "LEFT" else target.new
            return {"path": pf.filename, "subject_type": "line", "line": line, "side": side,
                    "start_line": None, "start_side": None, "position": target.position,
                    "diff_hunk": patch.diff_hunk(target)}, []
        if c.get("line") is None:
            return {}, [("line", "must be part of the diff"), blank_hunk]
        side = c.get("side") or "RIGHT"
        if side not in ("LEFT", "RIGHT"):
            return {}, [("side", "is not included in the list")]
        target = patch.find(c["line"], side)
        if target is None:
            return {}, [("line", "must be part of the diff"), blank_hunk]
        fields = {"path": pf.filename, "subject_type": "line", "line": c["line"],
                  "side": side, "start_line": None, "start_side": None,
                  "position": target.position, "diff_hunk": patch.diff_hunk(target)}
        if c.get("start_line") is not None:
            start_side = c.get("start_side") or side
            start = patch.find(c["start_line"], start_side)
            problems = []
            if start is None:
                problems.append(("start_line", "must be part of the diff"))
            elif start.position >= target.position:
                problems.append(("start_line", "must precede the end line."))
            elif start.hunk != target.hunk:
                problems.append(("start_line", "must be part of the same hunk as the line."))
            if problems:
                return {}, problems
            fields.update(start_line=c["start_line"], start_side=start_side)
        return fields, []

    def _commit_ids_of(self, pr: PullRequest) -> set:
        return {pr.head_sha}

    def _check_body_length(self, ctx: _Ctx, text: Optional[str], resource: str) -> None:
        if text is not None and len(text) > MAX_BODY:
            self._raise(422, "Validation Failed", ctx, [{
                "resource": resource, "code": "custom", "field": "body",
                "message": f"body is too long (maximum is {MAX_BODY} characters)"}])

    def _annotations(self, ctx: _Ctx, run: CheckRun, output: dict) -> list:
        new = []
        for a in output.get("annotations") or []:
            if (a.get("start_column") is not None or a.get("end_column") is not None) \
                    and a["start_line"] != a["end_line"]:
                self._violation(ctx, f"annotation {a['path']}:{a['start_line']}: "
                                "start_column/end_column are only allowed when start_line "
                                "equals end_line")
                self._raise(422, "Invalid request.\n\nstart_column and end_column may only "
                            "be given when start_line equals end_line.", ctx)
            if a["end_line"] < a["start_line"]:
                self._violation(ctx, f"annotation {a['path']}: end_line < start_line")
                self._raise(422, "Invalid request.\n\nend_line must not precede start_line.",
                            ctx)
            if a["path"].startswith(("/", "./")) or "\\" in a["path"]:
                self.warnings.append(f"check run {run.id}: annotation path {a['path']!r} is "
                                     "not relative to the repository root")
            new.append(Annotation(
                a["path"], a["start_line"], a["end_line"], a["annotation_level"],
                a["message"], a.get("start_column"), a.get("end_column"), a.get("title"),
                a.get("raw_details")))
        return new

    def _pulls_with_head(self, sha: str) -> list:
        return [p for p in self.pulls.values() if p.head_sha == sha and not p.fork]

    # --- handlers: one per operationId -------------------------------------------------
    def _rate_limit(self, ctx):
        limit = self.rate["limit"] if ctx.user else 60
        core = {"limit": limit, "used": min(self.rate["used"], limit),
                "remaining": max(0, limit - self.rate["used"]), "reset": self.rate["reset"]}
        other = {"limit": 5000, "used": 0, "remaining": 5000, "reset": self.rate["reset"]}
        return Response(200, {
            "resources": {"core": core, "search": dict(other, limit=30, remaining=30),
                          "graphql": other, "integration_manifest": other,
                          "code_search": dict(other, limit=10, remaining=10)},
            "rate": core})

    def _repos_get(self, ctx):
        return Response(200, self.repo.to_json(self.site))

    def _users_get_authenticated(self, ctx):
        if ctx.user is None:
            self._raise(401, "Requires authentication", ctx)
        return Response(200, ctx.user.to_json(self.site))

    def _repos_get_content(self, ctx):
        from urllib.parse import unquote

        path = unquote(ctx.params["path"])
        ref = ctx.query.get("ref") or self.repo.default_branch
        sha = self._resolve_ref(ref)
        text = self.contents.get((sha, path))
        if text is None:
            # a directory: its entries (files and subdirectories), as GitHub lists them
            below = sorted({(p[len(path) + 1:].split("/", 1)[0], "/" in p[len(path) + 1:])
                            for (c, p) in self.contents if c == sha and p.startswith(path + "/")})
            if not below:
                self._raise(404, "Not Found", ctx)
            entries = []
            for name, is_dir in below:
                api = f"{self.repo.api_url(self.site)}/contents/{path}/{name}?ref={ref}"
                entries.append({"type": "dir" if is_dir else "file", "size": 0, "name": name,
                                "path": f"{path}/{name}", "sha": blob_sha(name), "url": api, "git_url": None,
                                "html_url": None, "download_url": None,
                                "_links": {"self": api, "git": None, "html": None}})
            return Response(200, entries)
        data = text.encode()
        encoded = base64.b64encode(data).decode()
        # GitHub wraps the base64 at 60 characters
        content = "\n".join(encoded[i:i + 60] for i in range(0, len(encoded), 60)) + "\n"
        api = f"{self.repo.api_url(self.site)}/contents/{path}?ref={ref}"
        return Response(200, {
            "type": "file", "encoding": "base64", "size": len(data),
            "name": path.rsplit("/", 1)[-1], "path": path, "content": content,
            "sha": blob_sha(text), "url": api, "git_url": None, "html_url": None,
            "download_url": None, "_links": {"self": api, "git": None, "html": None}})

    def _checks_create(self, ctx):
        b = ctx.body
        if self._resolve_ref(b["head_sha"]) != b["head_sha"]:
            self._raise(422, f"No commit found for SHA: {b['head_sha']}", ctx)
        for pr in self.pulls.values():
            if b["head_sha"] == pr.merge_commit_sha:
                self.warnings.append(
                    f"check run {b['name']!r} created on the merge commit of PR "
                    f"{pr.number} (GITHUB_SHA?); it will not show on the PR, whose head is "
                    f"{pr.head_sha}")
        run = CheckRun(next_id(), b["name"], b["head_sha"], self.user(ACTIONS_BOT.login),
                       details_url=b.get("details_url"), external_id=b.get("external_id", ""))
        if ctx.user is not None and ctx.user.login.endswith("[bot]"):
            run.app_slug = ctx.user.login[:-len("[bot]")]  # an App's bot is <slug>[bot]
        self._apply_check(ctx, run, b, creating=True)
        self.check_runs[run.id] = run
        return Response(201, run.to_json(self.site, self.repo,
                                         self._pulls_with_head(run.head_sha)),
                        {"location": f"{self.repo.api_url(self.site)}/check-runs/{run.id}"})

    def _apply_check(self, ctx, run: CheckRun, b: dict, creating: bool) -> None:
        status = b.get("status", run.status if not creating else "queued")
        conclusion = b.get("conclusion", run.conclusion)
        if b.get("conclusion"):
            status = "completed"
        if status == "completed" and not conclusion:
            self._violation(ctx, "status 'completed' needs a conclusion")
            self._raise(422, 'Invalid request.\n\n"conclusion" wasn\'t supplied.', ctx)
        if b.get("completed_at") and not conclusion:
            self._violation(ctx, "completed_at needs a conclusion")
            self._raise(422, 'Invalid request.\n\n"conclusion" wasn\'t supplied.', ctx)
        output = b.get("output")
        new_annotations = self._annotations(ctx, run, output) if output else []
        run.status, run.conclusion = status, conclusion
        run.name = b.get("name", run.name)
        run.details_url = b.get("details_url", run.details_url)
        run.started_at = b.get("started_at") or run.started_at or now()
        if status == "completed":
            run.completed_at = b.get("completed_at") or run.completed_at or now()
        if output:
            for key in ("title", "summary", "text"):
                if key in output:
                    run.output[key] = output[key]
            run.annotations.extend(new_annotations)

    def _checks_get(self, ctx):
        run = self.check_runs.get(_int(ctx.params["check_run_id"]))
        if run is None:
            self._raise(404, "Not Found", ctx)
        return Response(200, run.to_json(self.site, self.repo,
                                         self._pulls_with_head(run.head_sha)))

    def _checks_update(self, ctx):
        run = self.check_runs.get(_int(ctx.params["check_run_id"]))
        if run is None:
            self._raise(404, "Not Found", ctx)
        self._apply_check(ctx, run, ctx.body, creating=False)
        run.updates += 1
        return Response(200, run.to_json(self.site, self.repo,
                                         self._pulls_with_head(run.head_sha)))

    def _checks_list_annotations(self, ctx):
        run = self.check_runs.get(_int(ctx.params["check_run_id"]))
        if run is None:
            self._raise(404, "Not Found", ctx)
        items = [a.to_json(self.site, self.repo, run.head_sha) for a in run.annotations]
        chunk, headers = self._paginate(ctx, items)
        return Response(200, chunk, headers)

    def _checks_list_for_ref(self, ctx):
        sha = self._resolve_ref(ctx.params["ref"])
        if sha is None:
            self._raise(422, f"No commit found for SHA: {ctx.params['ref']}", ctx)
        runs = sorted((r for r in self.check_runs.values() if r.head_sha == sha),
                      key=lambda r: -r.id)
        if ctx.query.get("check_name"):
            runs = [r for r in runs if r.name == ctx.query["check_name"]]
        if ctx.query.get("status"):
            runs = [r for r in runs if r.status == ctx.query["status"]]
        if ctx.query.get("filter", "latest") == "latest":
            seen, latest = set(), []
            for r in runs:
                if r.name not in seen:
                    seen.add(r.name)
                    latest.append(r)
            runs = latest
        chunk, headers = self._paginate(ctx, runs)
        return Response(200, {"total_count": len(runs), "check_runs": [
            r.to_json(self.site, self.repo, self._pulls_with_head(r.head_sha))
            for r in chunk]}, headers)

    def _repos_get_commit(self, ctx):
        sha = self._resolve_ref(ctx.params["ref"])
        if sha is None:
            self._raise(422, f"No commit found for SHA: {ctx.params['ref']}", ctx)
        commit = self.commits[sha]
        if ctx.media != "json":
            return Response(200, _diff_text(commit.files),
                            {"content-type": "text/plain; charset=utf-8"})
        files, headers = self._paginate(ctx, commit.files, default=300, maximum=300,
                                        cap=MAX_FILES)
        return Response(200, commit.to_json(self.site, self.repo, files=files), headers)

    def _repos_compare(self, ctx):
        basehead = ctx.params["basehead"]
        if "..." not in basehead:
            if ".." in basehead:
                self._violation(ctx, f"two-dot compare {basehead!r}: use BASE...HEAD")
            self._raise(404, "Not Found", ctx)
        base_ref, head_ref = basehead.split("...", 1)
        base, head = self._resolve_ref(base_ref), self._resolve_ref(head_ref)
        if base is None or head is None:
            self._raise(404, "Not Found", ctx)
        chain, seen, todo = [], set(), [head]
        while todo:
            sha = todo.pop(0)
            if sha in seen or sha == base or sha not in self.commits:
                continue
            seen.add(sha)
            chain.append(self.commits[sha])
            todo.extend(self.commits[sha].parents)
        chain.reverse()
        pr = next((p for p in self.pulls.values()
                   if p.base_sha == base and p.head_sha == head), None)
        if pr is not None:
            files = list(pr.files)
        else:
            by_name = {}
            for c in chain:
                for f in c.files:
                    by_name[f.filename] = f
            files = list(by_name.values())
        if ctx.media != "json":
            return Response(200, _diff_text(files),
                            {"content-type": "text/plain; charset=utf-8"})
        commits, headers = self._paginate(ctx, chain, default=250, maximum=250)
        base_json = self.commits[base].to_json(self.site, self.repo, with_files=False)
        html = f"{self.repo.html_url(self.site)}/compare/{basehead}"
        return Response(200, {
            "url": f"{self.repo.api_url(self.site)}/compare/{basehead}",
            "html_url": html, "permalink_url": html, "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch", "base_commit": base_json,
            "merge_base_commit": base_json,
            "status": "identical" if base == head else "ahead",
            "ahead_by": len(chain), "behind_by": 0, "total_commits": len(chain),
            "commits": [c.to_json(self.site, self.repo, with_files=False) for c in commits],
            "files": [f.to_json(self.site, self.repo, head) for f in files[:300]],
        }, headers)

    def _issue_comment(self, ctx) -> IssueComment:
        c = self.issue_comments.get(_int(ctx.params["comment_id"]))
        if c is None:
            self._raise(404, "Not Found", ctx)
        return c

    def _issues_get_comment(self, ctx):
        return Response(200, self._issue_comment(ctx).to_json(self.site, self.repo))

    def _issues_update_comment(self, ctx):
        c = self._issue_comment(ctx)
        self._check_body_length(ctx, ctx.body["body"], "IssueComment")
        c.body, c.updated_at = ctx.body["body"], now()
        return Response(200, c.to_json(self.site, self.repo))

    def _issues_delete_comment(self, ctx):
        del self.issue_comments[self._issue_comment(ctx).id]
        return Response(204)

    def _issues_list_comments(self, ctx):
        number = _int(ctx.params["issue_number"])
        if number not in self.pulls:
            self._raise(404, "Not Found", ctx)
        items = sorted(self.issue_comments_for(number), key=lambda c: c.id)
        if ctx.query.get("since"):
            items = [c for c in items if c.updated_at >= ctx.query["since"]]
        chunk, headers = self._paginate(ctx, items)
        return Response(200, [c.to_json(self.site, self.repo) for c in chunk], headers)

    def _issues_create_comment(self, ctx):
        number = _int(ctx.params["issue_number"])
        if number not in self.pulls:
            self._raise(404, "Not Found", ctx)
        if not ctx.body["body"].strip():
            self._raise(422, "Validation Failed", ctx, [
                {"resource": "IssueComment", "code": "missing_field", "field": "body"}])
        self._check_body_length(ctx, ctx.body["body"], "IssueComment")
        c = IssueComment(next_id(), number, ctx.body["body"], ctx.user)
        self.issue_comments[c.id] = c
        return Response(201, c.to_json(self.site, self.repo),
                        {"location": f"{self.repo.api_url(self.site)}/issues/comments/{c.id}"})

    def _pulls_get(self, ctx):
        pr = self._pull(ctx)
        if ctx.media != "json":
            return Response(200, _diff_text(pr.files),
                            {"content-type": "text/plain; charset=utf-8"})
        return Response(200, pr.to_json(self.site, len(self.issue_comments_for(pr.number)),
                                        len(self._visible_review_comments(pr))))

    def _pulls_list_files(self, ctx):
        pr = self._pull(ctx)
        chunk, headers = self._paginate(ctx, pr.files, cap=MAX_FILES)
        return Response(200, [f.to_json(self.site, self.repo, pr.head_sha) for f in chunk],
                        headers)

    def _visible_review_comments(self, pr: PullRequest) -> list:
        return [c for c in self.review_comments_for(pr.number)
                if self.reviews.get(c.review_id) is None
                or self.reviews[c.review_id].state != "PENDING"]

    def _pulls_list_review_comments(self, ctx):
        pr = self._pull(ctx)
        items = self._visible_review_comments(pr)
        key = (lambda c: (c.updated_at, c.id)) if ctx.query.get("sort") == "updated" \
            else (lambda c: (c.created_at, c.id))
        items.sort(key=key, reverse=ctx.query.get("direction") == "desc")
        if ctx.query.get("since"):
            items = [c for c in items if c.updated_at >= ctx.query["since"]]
        chunk, headers = self._paginate(ctx, items)
        return Response(200, [c.to_json(self.site, self.repo) for c in chunk], headers)

    def _review_comment(self, ctx) -> ReviewComment:
        c = self.review_comments.get(_int(ctx.params["comment_id"]))
        if c is None:
            self._raise(404, "Not Found", ctx)
        return c

    def _pulls_create_review_comment(self, ctx):
        pr = self._pull(ctx)
        b = ctx.body
        self._check_body_length(ctx, b["body"], "PullRequestReviewComment")
        if b.get("in_reply_to") is not None:
            root = self.review_comments.get(b["in_reply_to"])
            if root is None or root.pull_number != pr.number:
                self._raise(404, "Not Found", ctx)
            fields = {k: getattr(root, k) for k in (
                "path", "line", "side", "start_line", "start_side", "position",
                "diff_hunk", "subject_type")}
            reply_to = root.in_reply_to_id or root.id
        else:
            if b["commit_id"] not in self._commit_ids_of(pr):
                self._raise(422, "Validation Failed", ctx, [{
                    "resource": "PullRequestReviewComment", "code": "custom",
                    "field": "pull_request_review_thread.commit_id",
                    "message": "pull_request_review_thread.commit_id is not part of the "
                               "pull request"}])
            fields, problems = self._place_comment(pr, b)
            if problems:
                self._raise(422, "Validation Failed", ctx, [{
                    "resource": "PullRequestReviewComment", "code": "custom",
                    "field": f"pull_request_review_thread.{name}",
                    "message": f"pull_request_review_thread.{name} {phrase}"}
                    for name, phrase in problems])
            reply_to = None
        review = Review(next_id(), pr.number, ctx.user, "", "COMMENTED",
                        b.get("commit_id", pr.head_sha), now())
        self.reviews[review.id] = review
        c = ReviewComment(next_id(), pr.number, review.id, ctx.user, b["body"],
                          commit_id=b.get("commit_id", pr.head_sha),
                          in_reply_to_id=reply_to, **fields)
        self.review_comments[c.id] = c
        return Response(201, c.to_json(self.site, self.repo),
                        {"location": f"{self.repo.api_url(self.site)}/pulls/comments/{c.id}"})

    def _pulls_get_review_comment(self, ctx):
        return Response(200, self._review_comment(ctx).to_json(self.site, self.repo))

    def _pulls_update_review_comment(self, ctx):
        c = self._review_comment(ctx)
        self._check_body_length(ctx, ctx.body["body"], "PullRequestReviewComment")
        c.body, c.updated_at = ctx.body["body"], now()
        return Response(200, c.to_json(self.site, self.repo))

    def _pulls_delete_review_comment(self, ctx):
        del self.review_comments[self._review_comment(ctx).id]
        return Response(204)

    def _pulls_list_reviews(self, ctx):
        pr = self._pull(ctx)
        items = sorted(self.reviews_for(pr.number), key=lambda r: r.id)
        chunk, headers = self._paginate(ctx, items)
        return Response(200, [r.to_json(self.site, self.repo) for r in chunk], headers)

    def _pulls_create_review(self, ctx):
        pr = self._pull(ctx)
        b = ctx.body
        event = b.get("event")
        body = b.get("body") or ""
        comments = b.get("comments") or []
        commit_id = b.get("commit_id") or pr.head_sha

        def refuse(*messages):
            self._raise(422, "Unprocessable Entity", ctx, [_to_sentence(list(messages))])

        if commit_id not in self._commit_ids_of(pr):
            refuse("Commit id could not be resolved")  # wording approximated
        if len(body) > MAX_BODY:
            refuse(f"Body is too long (maximum is {MAX_BODY} characters)")
        if event == "REQUEST_CHANGES" and not body.strip():
            self._violation(ctx, "REQUEST_CHANGES needs a body (documented as required)")
            refuse("Body can't be blank")
        if event == "COMMENT" and not body.strip():
            if not comments:
                self._violation(ctx, "COMMENT with neither body nor comments")
                refuse("Body can't be blank")
            self.warnings.append(f"POST {ctx.route}: event COMMENT without a body; the "
                                 "docs call body required for COMMENT")
        if event == "APPROVE" and ctx.user.login == ACTIONS_BOT.login:
            refuse("GitHub Actions is not permitted to approve pull requests.")
        if event == "APPROVE" and ctx.user.login == pr.user.login:
            refuse("Can not approve your own pull request")
        if event == "REQUEST_CHANGES" and ctx.user.login == pr.user.login:
            refuse("Can not request changes on your own pull request")
        if event is None and any(r.state == "PENDING" and r.user.login == ctx.user.login
                                 for r in self.reviews_for(pr.number)):
            refuse("User can only have one pending review per pull request")
        placed, problems = [], []
        for c in comments:
            if "subject_type" in c:
                self.warnings.append(f"POST {ctx.route}: subject_type in a review comment "
                                     "is not in the documented schema of create-review "
                                     "(it is documented for POST .../pulls/{n}/comments)")
            if len(c["body"]) > MAX_BODY:
                problems.append(("body", f"is too long (maximum is {MAX_BODY} characters)"))
            fields, trouble = self._place_comment(pr, c)
            problems.extend(trouble)
            placed.append((c, fields))
        if problems:
            refuse(*[f"Pull request review thread {name.replace('_', ' ')} {phrase}"
                     for name, phrase in problems])
        state = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
                 "COMMENT": "COMMENTED", None: "PENDING"}[event]
        review = Review(next_id(), pr.number, ctx.user, body, state, commit_id,
                        None if state == "PENDING" else now())
        self.reviews[review.id] = review
        for c, fields in placed:
            rc = ReviewComment(next_id(), pr.number, review.id, ctx.user, c["body"],
                               commit_id=commit_id, **fields)
            self.review_comments[rc.id] = rc
        return Response(200, review.to_json(self.site, self.repo))


class _PullCommit(Commit):
    """The head commit of a PR: its files are always the PR's current files."""

    def __init__(self, pr: PullRequest):
        super().__init__(pr.head_sha, [pr.base_sha], [], pr.title, pr.user)
        self._pr = pr

    @property  # type: ignore[override]
    def files(self):
        return self._pr.files

    @files.setter
    def files(self, value):
        pass


_HANDLERS: dict = {
    "rate-limit/get": FakeGitHub._rate_limit,
    "repos/get": FakeGitHub._repos_get,
    "users/get-authenticated": FakeGitHub._users_get_authenticated,
    "repos/get-content": FakeGitHub._repos_get_content,
    "checks/create": FakeGitHub._checks_create,
    "checks/get": FakeGitHub._checks_get,
    "checks/update": FakeGitHub._checks_update,
    "checks/list-annotations": FakeGitHub._checks_list_annotations,
    "checks/list-for-ref": FakeGitHub._checks_list_for_ref,
    "repos/get-commit": FakeGitHub._repos_get_commit,
    "repos/compare-commits-with-basehead": FakeGitHub._repos_compare,
    "issues/get-comment": FakeGitHub._issues_get_comment,
    "issues/update-comment": FakeGitHub._issues_update_comment,
    "issues/delete-comment": FakeGitHub._issues_delete_comment,
    "issues/list-comments": FakeGitHub._issues_list_comments,
    "issues/create-comment": FakeGitHub._issues_create_comment,
    "pulls/get": FakeGitHub._pulls_get,
    "pulls/list-files": FakeGitHub._pulls_list_files,
    "pulls/list-review-comments": FakeGitHub._pulls_list_review_comments,
    "pulls/create-review-comment": FakeGitHub._pulls_create_review_comment,
    "pulls/get-review-comment": FakeGitHub._pulls_get_review_comment,
    "pulls/update-review-comment": FakeGitHub._pulls_update_review_comment,
    "pulls/delete-review-comment": FakeGitHub._pulls_delete_review_comment,
    "pulls/list-reviews": FakeGitHub._pulls_list_reviews,
    "pulls/create-review": FakeGitHub._pulls_create_review,
}


def _int(value) -> Optional[int]:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _parse_body(raw: bytes) -> tuple:
    """``(body, error)``: parsed JSON, or the text and why it is not JSON."""
    if not raw:
        return None, None
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text), None
    except ValueError as e:
        return text, str(e)


def _accepted_media(accept: str, op: Operation) -> Optional[str]:
    """"json", "diff"/"patch" (where the operation has them) or None (unsupported)."""
    if not accept.strip():
        return "json"
    for item in accept.split(","):
        media = item.split(";", 1)[0].strip().lower()
        if _ACCEPT_JSON.fullmatch(media):
            return "json"
        dm = _ACCEPT_DIFF.fullmatch(media)
        if dm and op.operation_id in _DIFF_OPERATIONS:
            return dm.group(2)
    return None


def _diff_text(files: list) -> str:
    """The ``application/vnd.github.diff`` body: a git diff of the given files."""
    out = []
    for f in files:
        old = f.previous_filename or f.filename
        out.append(f"diff --git a/{old} b/{f.filename}")
        if f.status == "added":
            out.append("new file mode 100644")
        elif f.status == "removed":
            out.append("deleted file mode 100644")
        if f.patch is None:
            out.append(f"Binary files a/{old} and b/{f.filename} differ")
            continue
        out.append("--- /dev/null" if f.status == "added" else f"--- a/{old}")
        out.append("+++ /dev/null" if f.status == "removed" else f"+++ b/{f.filename}")
        out.append(f.patch)
    return "\n".join(out) + "\n" if out else ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "GitHub.com"
    sys_version = ""
    timeout = 30
    disable_nagle_algorithm = True   # headers and body go out in separate writes

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        fake: FakeGitHub = self.server.fake  # type: ignore[attr-defined]
        resp = fake.handle(self.command, self.path, dict(self.headers.items()), raw)
        payload = resp.payload()
        self.send_response(resp.status)
        for name, value in resp.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD" and payload:
            self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _serve

    def log_message(self, format, *args) -> None:  # noqa: A002 - signature of the base
        pass
