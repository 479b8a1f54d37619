"""pytest glue: the ``fake_github`` fixture.

Enable it in ``tests/conftest.py`` with one line, either::

    pytest_plugins = ["fakegithub.plugin"]

or::

    from fakegithub import fake_github_fixture  # noqa: F401  (provides fake_github)

Each test gets a fresh, started :class:`~fakegithub.server.FakeGitHub` serving
``owner/repo`` on a random port of 127.0.0.1; it is stopped after the test. Options
other than the defaults: build ``FakeGitHub(...)`` yourself, as a context manager.
"""
from __future__ import annotations

import pytest

from .server import FakeGitHub


@pytest.fixture(name="fake_github")
def fake_github_fixture():
    """A started fake GitHub for ``owner/repo``; ``fake_github.url`` / ``.token``."""
    with FakeGitHub() as fake:
        yield fake
