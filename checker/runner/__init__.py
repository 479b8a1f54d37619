"""The runner: how a run is carried out, apart from what is checked (``checker.engine``).

``run`` (``stream.run_stream``) takes a planned repository (``discover.plan``) one operator
at a time: it loads the operator's context (``discover.operator_context``: ci.yaml,
file-based catalogs, its bundles' light facts), loads each bundle and hands it to the core
(``engine.check_bundle``), then the operator's facts (``engine.check_operator``), in worker
processes (``workers``), answering unchanged bundles and operators from the result cache
(``cache``); ``snapshot`` keeps whole runs' reports, ``merge`` joins the reports of a
sharded audit. Rules know nothing of any of it.
"""
from __future__ import annotations

from .stream import run_stream as run

__all__ = ["run"]
