import json


def render(report, findings, rules) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
