# olm-check as a GitHub Docker container action and a local `docker run` tool.
# The action runs it as root (GitHub mounts the workspace owned by another uid, so git's
# safe.directory is set for every path); the entrypoint is exec-form so signals reach it.

# The wheel, with the C accelerator of the YAML loader (checker/_cnodes.c over the vendored
# libyaml) compiled here: the compiler stays in this stage. The build fails if the accelerator
# was not built (the extension is optional for a pip install, not for the image).
FROM python:3.11-slim AS build
# python:3.11-slim has Python's headers; a base without them (a Debian python3) gets python3-dev.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && if [ ! -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; then \
      apt-get install -y --no-install-recommends python3-dev; fi \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY checker ./checker
COPY vendor ./vendor
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
 && python -c "import glob, sys, zipfile; names = zipfile.ZipFile(glob.glob('/wheels/*.whl')[0]).namelist(); sys.exit(0 if any('/_cnodes.' in n for n in names) else 'the C accelerator was not built')"

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
COPY entrypoint.py ./
COPY --from=build /wheels /tmp/wheels
# The wheel built above, plus the `action` extra (the action's GitHub API client; the command
# line alone does not need it). pip compiles the package's bytecode as it installs it, since
# PYTHONDONTWRITEBYTECODE (below) keeps runs from writing it: otherwise every run compiles
# olm-check from source first (a one-bundle check in the image: 0.73-0.80 -> 0.58-0.65 s). The
# entrypoint imports the installed package (no source beside it here). --version must name the
# C accelerator.
RUN wheel=$(ls /tmp/wheels/*.whl) \
 && pip install --no-cache-dir "${wheel}[action]" \
 && rm -rf /tmp/wheels \
 && python -m checker --version | tee /dev/stderr | grep -q "yaml: C accelerator"

ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
USER root
# `docker run --rm -v "$PWD:/work" IMAGE path/to/bundle`: paths are relative to the mount.
# (GitHub runs the action with --workdir /github/workspace, so this changes nothing there.)
WORKDIR /work
ENTRYPOINT ["python", "/opt/olm-check/entrypoint.py"]
