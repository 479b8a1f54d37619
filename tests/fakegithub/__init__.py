"""A fake GitHub REST API (127.0.0.1 only) for olm-check's action tests.

Enable the ``fake_github`` fixture with one line in ``tests/conftest.py``::

    pytest_plugins = ["fakegithub.plugin"]

(``tests/`` is on ``sys.path`` when pytest imports it, so the package is ``fakegithub``.)

Build state — the fixture serves ``owner/repo``; use ``FakeGitHub(owner, repo,
api_prefix="/api/v3", ...)`` as a context manager for anything else::

    pr = fake_github.add_pull(1, fork=False)            # head_sha, base_sha made up
    pr.add_file("operators/foo/1.0.0/manifests/csv.yaml", base=old_text, head=new_text)
    pr.add_file("operators/foo/1.0.0/metadata/annotations.yaml", "@@ -0,0 +1,2 @@\\n+a\\n+b")
    fake_github.add_token("ghs_fork", write=False)      # a read-only (fork PR) token
    fake_github.add_issue_comment(1, "<!-- olm-check -->", login="github-actions[bot]",
                                  type="Bot")           # a sticky comment from a past run
    fake_github.add_review_comment(1, path, line, "old finding", login=...)
    env = fake_github.actions_env(tmp_path, 1, action="synchronize")  # GITHUB_* + event.json
    fake_github.add_token("ghp_pat", login="maintainer", type="User")  # a personal token:
                                                # GET /user answers, the Checks API says 403
    fake_github.add_token("ghs_app", login="my-app[bot]", type="Bot")  # an App's token:
                                                # GET /user 403, check runs name app my-app
    fake_github.add_content(pr.base_sha, ".olm-check.yaml", "fail_on: error\n")  # contents API
    fake_github.outdate(comment)                # GitHub's outdated comment: line null

Script faults (matched by method and a full-match regex on ``/repos/...`` paths)::

    fake_github.fail("POST", r".*/check-runs", 502, times=2)
    fake_github.fail("POST", r".*/comments", "secondary-rate-limit")   # retry-after: 1
    fake_github.fail("*", r".*", "bad-credentials")                     # 401
    fake_github.fail("POST", r".*/check-runs", 502, after=True)  # created, then a 502
    fake_github.read_only = True                 # every write: 403 not accessible

Inspect::

    fake_github.violations == []     # requests breaking GitHub's published contract
    fake_github.response_violations  # the fake's own slips (should stay empty)
    fake_github.warnings             # legal but suspicious requests
    fake_github.requests / .calls("checks/update")   # RecordedRequest log, no token
    fake_github.check_runs_for(pr.head_sha)[0].annotations
    fake_github.reviews_for(1), .review_comments_for(1), .issue_comments_for(1)

Modules: ``server`` (FakeGitHub, HTTP), ``state`` (the data), ``diff`` (patches),
``contract`` (vendored schema, validation), ``events`` (webhook payloads), ``plugin``
(fixture), ``cut_schema`` (regenerates ``schema/``).
"""
from .events import assert_valid as assert_valid_event
from .events import pull_request_event, push_event, write_event
from .server import DEFAULT_TOKEN, Fault, FakeGitHub, RecordedRequest, Violation
from .state import PullFile, PullRequest

__all__ = [
    "DEFAULT_TOKEN", "Fault", "FakeGitHub", "PullFile", "PullRequest", "RecordedRequest",
    "Violation", "assert_valid_event", "fake_github_fixture", "pull_request_event",
    "push_event", "write_event",
]


def __getattr__(name):
    # The fixture needs pytest; import it only when asked for.
    if name == "fake_github_fixture":
        from .plugin import fake_github_fixture
        return fake_github_fixture
    raise AttributeError(name)
