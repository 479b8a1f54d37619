# olm-check as a GitHub Docker container action and a local `docker run` tool.
# The action runs it as root (GitHub mounts the workspace owned by another uid, so git's
# safe.directory is set for every path); the entrypoint is exec-form so signals reach it.
FROM python:3.11-slim

LABEL org.opencontainers.image.title="olm-check" \
      org.opencontainers.image.description="Static checker for OLM operator bundles, OpenShift-version aware" \
      org.opencontainers.image.source="https://github.com/olm-check/olm-check" \
      org.opencontainers.image.licenses="Apache-2.0"

# git: change discovery (git diff base...head) when the checkout has history. apt's lists and
# caches go too (where the base image does not disable its caches, they are 60-140 MB).
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && git config --system --add safe.directory '*'

WORKDIR /opt/olm-check
COPY pyproject.toml README.md entrypoint.py ./
COPY checker ./checker
# The same install as the README's, without the editable flag, plus the `action` extra (the
# action's GitHub API client; the command line alone does not need it). The entrypoint imports the
# package beside it; its bytecode is compiled here, since PYTHONDONTWRITEBYTECODE (below)
# keeps runs from writing it: otherwise every run compiles olm-check from source first
# (a one-bundle check in the image: 0.73-0.80 -> 0.58-0.65 s).
RUN pip install --no-cache-dir '.[action]' \
 && python -m compileall -q checker \
 && python -m checker --version

ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
USER root
# `docker run --rm -v "$PWD:/work" IMAGE path/to/bundle`: paths are relative to the mount.
# (GitHub runs the action with --workdir /github/workspace, so this changes nothing there.)
WORKDIR /work
ENTRYPOINT ["python", "/opt/olm-check/entrypoint.py"]
