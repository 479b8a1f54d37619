"""The JSON report. Laid out for people and diffs -- each top-level key, bundle and finding on
a line of its own -- and written with the C encoder: ``json.dumps(indent=...)`` falls back to
the pure-Python encoder, seconds for a whole catalog's report."""
from __future__ import annotations

import json
from typing import Any, Iterator

from .run import RunReport


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def chunks(run: RunReport) -> Iterator[str]:
    """The report as pieces of text, a line at a time, for writing out without ever holding
    it as one string: a whole catalog's report is ~25 MB of text, and a single character
    outside Latin-1 makes Python store all of it at 2-4 bytes a character."""
    items = list(run.to_json().items())
    yield "{\n"
    for n, (key, value) in enumerate(items):
        end = ",\n" if n < len(items) - 1 else "\n"
        if isinstance(value, list):
            if value:
                yield f"  {_dumps(key)}: [\n"
                last = len(value) - 1
                for i, v in enumerate(value):
                    yield "    " + _dumps(v) + (",\n" if i < last else "\n")
                yield "  ]" + end
            else:
                yield f"  {_dumps(key)}: []" + end
        else:
            yield f"  {_dumps(key)}: {_dumps(value)}" + end
    yield "}\n"


def render(run: RunReport) -> str:
    return "".join(chunks(run))
