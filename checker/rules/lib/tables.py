"""The data tables rules read (``checker/data/``), each loaded once."""
from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any

import yaml

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "data")


def data_file(name: str) -> str:
    """The path of ``checker/data/<name>``."""
    return os.path.join(DATA_DIR, name)


@lru_cache(maxsize=None)
def table(name: str) -> Any:
    """``checker/data/<name>`` parsed (YAML, or JSON for ``.json``), loaded once; callers must
    not change what it returns."""
    with open(data_file(name), encoding="utf-8") as fh:
        if name.endswith(".json"):
            return json.load(fh)
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
