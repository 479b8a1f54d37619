"""What needs no token, made first: the JSON report (and SARIF) in the workspace, the job
summary ($GITHUB_STEP_SUMMARY, 1 MiB at most) and the step outputs."""
from __future__ import annotations

import json
import os
import uuid
from typing import Any, Mapping, Optional

from ..report import render_report
from ..report.run import RunReport
from .common import MAX_STEP_SUMMARY, fitted_summary, utf8_len
from .env import ActionEnv
from .publish import PublishContext, PublishResult


def write_outputs(path: Optional[str], values: Mapping[str, object]) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        for name, value in values.items():
            value = str(value)
            if "\n" in value:
                delim = f"olm_check_{uuid.uuid4().hex}"
                fh.write(f"{name}<<{delim}\n{value}\n{delim}\n")
            else:
                fh.write(f"{name}={value}\n")


def append_summary(path: Optional[str], text: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


def write_report_files(env: ActionEnv, run: RunReport, rules: Mapping[str, Any]) -> dict[str, str]:
    """The JSON report (always) and SARIF (when asked), relative to the workspace."""
    done = {}
    path = env.workspace_path(env.report_file)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(run.to_json(), fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    done["report"] = os.path.relpath(path, env.workspace).replace(os.sep, "/")
    if env.sarif_file:
        sp = env.workspace_path(env.sarif_file)
        os.makedirs(os.path.dirname(sp) or ".", exist_ok=True)
        with open(sp, "w", encoding="utf-8") as fh:
            fh.write(render_report("sarif", run, rules))
        done["sarif"] = os.path.relpath(sp, env.workspace).replace(os.sep, "/")
    return done


class JobSummary:
    """The report files, the job summary (with the run's notes and graphs) and the outputs
    (``errors``, ``warnings``, ``bundles``, ``report``). A file that cannot be written is a
    note (the report file) or a line in the log; nothing here stops the others."""

    name = "job summary"
    fallback = False

    def __init__(self, env: ActionEnv, rules: Mapping[str, Any]):
        self.env, self.rules = env, rules

    def publish(self, run: RunReport, ctx: PublishContext) -> PublishResult:
        env = self.env
        try:
            files = write_report_files(env, run, self.rules)
        except OSError as e:
            files = {}
            ctx.notes.append(f"The report file could not be written ({e.strerror}).")
        try:
            tail = "".join(f"\n{n}\n" for n in ctx.notes)
            # GitHub's limit is 1 MiB per step, in bytes; what is appended later is short
            budget = MAX_STEP_SUMMARY - utf8_len(tail) - 16384
            budget -= utf8_len(ctx.graphs)
            summary = fitted_summary(run, budget, title=ctx.who.check_name, measure=utf8_len, blob=ctx.blob)
            append_summary(env.summary_file, summary + (f"\n{ctx.graphs}" if ctx.graphs else "") + tail)
        except OSError as e:
            ctx.log(f"olm-check: the job summary could not be written ({e.strerror})")
        try:
            write_outputs(env.output_file, {
                "errors": run.summary.errors, "warnings": run.summary.warnings,
                "bundles": json.dumps([b.path for b in run.bundles]),
                "report": files.get("report", ""),
            })
        except OSError as e:
            ctx.log(f"olm-check: the step outputs could not be written ({e.strerror})")
        return PublishResult()
