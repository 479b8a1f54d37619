"""A fake GitHub REST API (127.0.0.1 only) for olm-check's action tests.

- :class:`FakeGitHub` (``server.py``): state for one repository and its pull requests,
  an HTTP server, request log, contract violations, scripted faults;
- ``fake_github`` pytest fixture (``plugin.py``); enable it in ``tests/conftest.py``
  with ``pytest_plugins = ["fakegithub.plugin"]``;
- ``events``: ``pull_request``/``push`` payloads for ``GITHUB_EVENT_PATH``, validated
  against GitHub's webhook schemas;
- ``schema/``: the vendored cut of GitHub's OpenAPI description (``cut_schema.py``).
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
