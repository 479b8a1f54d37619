"""The JSON report. Laid out for people and diffs -- each top-level key, bundle and finding on
a line of its own -- and written with the C encoder: ``json.dumps(indent=...)`` falls back to
the pure-Python encoder, seconds for a whole catalog's report."""
import json


def _dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def render(report, findings, rules) -> str:
    parts = []
    for key, value in report.items():
        if isinstance(value, list):
            if value:
                body = ",\n".join("    " + _dumps(v) for v in value)
                parts.append(f"  {_dumps(key)}: [\n{body}\n  ]")
            else:
                parts.append(f"  {_dumps(key)}: []")
        else:
            parts.append(f"  {_dumps(key)}: {_dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
