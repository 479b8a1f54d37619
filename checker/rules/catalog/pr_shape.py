"""
What: checked in a catalog repository (one with `operators/<name>/<version>/` bundle
directories) when olm-check knows what a pull request changes (the GitHub Action, or
`olm-check check --changed-since REF`). It reports, each once, a pull request that

- changes files outside `operators/` and `catalogs/`;
- changes more than one operator;
- modifies an existing bundle (one the base already has: a published bundle is immutable);
- adds more than one bundle, or adds and deletes bundles together;
- deletes a bundle that a catalog (`catalogs/v4.X/<name>/catalog.yaml`) still lists, or
  deletes a bundle of an operator that does not use file-based catalogs
  (`fbc: {enabled: true}` in its ci.yaml);
- changes a bundle and the catalogs in the same pull request;
- puts files in `operators/<name>/<dir>/` where `<dir>` is not a bundle (no `manifests/`
  or `metadata/`): half-formed bundle directories are never silently skipped.

Why: community-operators style catalogs build and release one operator version per pull
request; their CI refuses these shapes (operator-pipelines' change detection,
`operatorcert/parsed_file.py`: "The PR affects more than one operator", "The PR
modifies existing bundles", ...), after a long queue. olm-check says so on the first
push, on the file concerned. Like the pipeline's detect-changes (which reads each changed
file's name from GitHub, never its previous name), a renamed or moved file counts by its
new name only: renaming `operators/x/0.70.0` to `0.70.1` adds bundle 0.70.1 and deletes
nothing.

Fix: split the pull request (one bundle, or one operator's catalog change, per PR); add a
new version directory instead of editing a released one; remove the bundle from every
catalog before deleting it. This is a policy: turn it off (`rules: {pr-shape: off}`) or
per path (`paths: [{path: ".github/**", rules: {pr-shape: off}}]`) in `.olm-check.yaml`.
Directories other than bundles that may sit in an operator directory are set with
`options: {pr-shape: {operator_dirs: [catalog-templates]}}` (the default).

Bad (one pull request):
    A  operators/foo/1.2.0/manifests/foo.clusterserviceversion.yaml
    M  operators/foo/1.1.0/manifests/foo.clusterserviceversion.yaml
    M  catalogs/v4.16/foo/catalog.yaml
Good:
    A  operators/foo/1.2.0/manifests/foo.clusterserviceversion.yaml
    A  operators/foo/1.2.0/metadata/annotations.yaml
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...nodes import Mapping, Scalar, Sequence
from .. import define, refusal

# Reads the change list the action (or ``--changed-since``) put on the model
# (``Repository.changes``) and the state of each touched ``operators/<name>[/<sub>]``
# directory (``Repository.change_dirs``, made by ``checker.changes``). Pure: no I/O.

RID = "pr-shape"
DEFAULT_OPERATOR_DIRS = ("catalog-templates",)

RULE = define(RID, "The pull request changes more than a catalog repository accepts at once", __doc__, category="catalog",
              refused_by=[
                  refusal("catalog-ci", "the pipeline's change detection refuses a pull request that touches non-operator files, more "
                          "than one operator or bundle, modifies a released bundle, deletes a bundle of a non-FBC operator or one a "
                          "catalog still uses, adds and deletes bundles together, or changes a bundle and catalogs at once",
                          "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/parsed_file.py"),
              ])


def _op(path: str):
    parts = path.split("/")
    if parts[0] == "operators" and len(parts) >= 3:
        return parts[1]
    if parts[0] == "catalogs" and len(parts) >= 4:
        return parts[2]
    return None


def _sub(path: str):
    """operators/<op>/<sub> for a file at least one level below it, else None."""
    parts = path.split("/")
    if parts[0] == "operators" and len(parts) >= 4:
        return "/".join(parts[:3])
    return None


def _fbc_enabled(op) -> bool:
    ci = op.ci_file if op is not None else None
    if ci is None or not ci.documents or not isinstance(ci.documents[0], Mapping):
        return False
    fbc = ci.documents[0].get("fbc")
    if not isinstance(fbc, Mapping):
        return False
    en = fbc.get("enabled")
    return isinstance(en, Scalar) and en.value is True


def _blobs(cat):
    """(mapping-or-dict, file, node, line, column) of each blob of a loaded catalog: a
    ``catalogs.FbcCatalog`` (``blobs``) or a plain ``SourceFile`` (``documents``)."""
    if hasattr(cat, "blobs"):
        for blob in cat.blobs:
            pos = getattr(blob, "pos", None)
            yield blob.root, (pos.path if pos is not None else cat.rel), \
                (pos.line if pos is not None else 1), (pos.column if pos is not None else 1)
    elif hasattr(cat, "documents"):
        for doc in cat.documents:
            if isinstance(doc, Mapping):
                yield doc, cat.rel, doc.line, doc.col


def _field(root, key):
    if isinstance(root, Mapping):
        v = root.get(key)
        return v.value if isinstance(v, Scalar) else v
    if isinstance(root, dict):
        return root.get(key)
    return None


def _catalog_entries(repo: Repository, op: str, version: str):
    """[(release, path, line, column)] of the catalogs that list ``op``'s bundle ``version``:
    an olm.bundle blob whose olm.package property has that version, or whose name is
    ``<package>.v<version>``."""
    want = version[1:] if version.startswith("v") and version[1:2].isdigit() else version
    out = []
    for release in sorted(repo.catalogs, key=lambda r: tuple(int(x) if x.isdigit() else 0 for x in r.split("."))):
        cat = (repo.catalogs.get(release) or {}).get(op)
        if cat is None or getattr(cat, "missing", False):
            continue
        for root, path, line, col in _blobs(cat):
            if _field(root, "schema") != "olm.bundle":
                continue
            name = _field(root, "name")
            hit = isinstance(name, str) and name.endswith((f".v{want}", f".{want}"))
            props = _field(root, "properties")
            for p in (props if isinstance(props, (Sequence, list)) else ()):
                if _field(p, "type") == "olm.package":
                    v = _field(p, "value")
                    if _field(v, "version") == want:
                        hit = True
            if hit:
                if isinstance(root, Mapping) and isinstance(root.get("name"), Scalar):
                    line, col = root.get("name").line, root.get("name").col
                out.append((release, path, line, col))
                break
    return out


def _as_pipeline_sees(changes) -> list:
    """[(status, path)] of the change list as detect-changes reads it: a rename is the new
    name, added (operator-pipelines@422dfd6e operatorcert/entrypoints/detect_changed_operators.py,
    github_pr_affected_files: ``{x.filename for x in gh_pr.get_files()}``)."""
    return [("added", c.path) if c.status == "renamed" else (c.status, c.path) for c in changes]


def _names(items, limit=5) -> str:
    items = list(items)
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


@RULE.check(scope="repo")
def pr_shape(repo: Repository, ctx: Context):
    changes = repo.changes
    if changes is None or not repo.is_catalog_repo:
        return
    dirs = repo.change_dirs
    allowed_dirs = set(ctx.option(RID, "operator_dirs", DEFAULT_OPERATOR_DIRS) or ())
    pairs = _as_pipeline_sees(changes)

    # files outside operators/ and catalogs/
    for s, p in pairs:
        top = p.split("/", 1)[0]
        if top not in ("operators", "catalogs") or (top == "catalogs" and p.count("/") < 3) or \
                (top == "operators" and p.count("/") < 2):
            what = "removes" if s == "removed" else "changes"
            yield RULE.at(p, None,
                          f"this pull request {what} {p}, outside operators/<name>/ and catalogs/<release>/<name>/",
                          detail="The catalog's CI accepts only operator and catalog files in a contribution. Move "
                          "this change to a separate pull request for the repository's maintainers.")

    # more than one operator
    ops: dict = {}
    for s, p in pairs:
        o = _op(p)
        if o is not None:
            ops.setdefault(o, p)
    if len(ops) > 1:
        names = sorted(ops)
        where = ops[names[1]]
        yield RULE.at(where, None,
                      f"this pull request changes {len(names)} operators ({_names(names)})",
                      detail="The catalog's CI builds and releases one operator per pull request. Split it into one "
                      "pull request per operator.")

    # bundles: added, modified, deleted (a rename is a delete plus an add)
    by_sub: dict = {}
    for s, p in pairs:
        sub = _sub(p)
        if sub is not None:
            by_sub.setdefault(sub, []).append((s, p))
    added, modified, deleted, half = [], [], [], []
    for sub, items in sorted(by_sub.items()):
        state = dirs.get(sub)
        name = sub.split("/")[2]
        if state in ("bundle", "new"):
            statuses = {s for s, _ in items}
            if state == "bundle" or statuses - {"added"}:
                modified.append((sub, next((p for s, p in items if s != "added"), items[0][1])))
            else:
                added.append((sub, items[0][1]))
        elif state == "absent":
            deleted.append((sub, items[0][1]))
        elif state == "dir" and name not in allowed_dirs:
            p = next((p for s, p in items if s != "removed"), None)
            if p is not None:
                half.append((sub, p))

    for sub, where in modified:
        yield RULE.at(where, None,
                      f"this pull request modifies the existing bundle {sub}",
                      detail="The catalog's CI refuses a change to a bundle directory its base already has: a merged "
                      "bundle is built and released as it is. Add a new version directory (with spec.replaces or "
                      "skips pointing at this one) instead.")

    per_op: dict = {}
    for sub, where in added:  # several operators are reported above; here: versions of one
        per_op.setdefault(sub.split("/")[1], []).append((sub, where))
    for op_name, items in sorted(per_op.items()):
        if len(items) > 1:
            names = [s for s, _ in items]
            yield RULE.at(items[1][1], None,
                          f"this pull request adds {len(items)} bundles of {op_name} ({_names(names)})",
                          detail="The catalog's CI builds and releases one bundle per pull request. Submit one version "
                          "per pull request, oldest first.")

    if added and deleted:
        yield RULE.at(added[0][1], None,
                      f"this pull request adds {_names([s for s, _ in added])} and deletes "
                      f"{_names([s for s, _ in deleted])}",
                      detail="The catalog's CI does not take additions and deletions together. Split them into two "
                      "pull requests.")

    for sub, where in deleted:
        op_name, version = sub.split("/")[1], sub.split("/")[2]
        op = repo.operators.get(op_name)
        hits = _catalog_entries(repo, op_name, version)
        if hits:
            _release, path, line, col = hits[0]
            cats = [f"v{r}" for r, _, _, _ in hits]
            yield RULE.at(path, None, line=line, column=col, message=(
                          f"this pull request deletes the bundle {sub}, but the catalog{'s' if len(cats) > 1 else ''} "
                          f"{_names(cats)} still list{'' if len(cats) > 1 else 's'} it"),
                          detail="The catalogs would point at a bundle that no longer exists. Remove it from the catalogs "
                          "(and their templates) in a pull request of its own first, then delete the directory.")
        elif dirs.get(f"operators/{op_name}") != "absent" and not _fbc_enabled(op):
            where_file = op.ci_file if op is not None and op.ci_file is not None else where
            yield RULE.at(where_file, None,
                          f"this pull request deletes the bundle {sub}, but {op_name} does not use file-based catalogs",
                          detail="Without `fbc: {enabled: true}` in its ci.yaml its bundles are released for good, and "
                          "the catalog's CI refuses deletions. Keep the directory; to stop offering the version, migrate "
                          "the operator to file-based catalogs and drop it from them.")

    if (added or modified) and any(p.startswith("catalogs/") for _, p in pairs):
        cat_file = next(p for _, p in pairs if p.startswith("catalogs/"))
        bundles = [s for s, _ in added + modified]
        yield RULE.at(cat_file, None,
                      f"this pull request changes the bundle {_names(bundles)} and the catalogs at once",
                      detail="The catalog's CI releases the bundle first and takes catalog changes in a separate pull "
                      "request (catalogs may only list bundles that are already released). Split the two.")

    for sub, where in half:
        yield RULE.at(where, None,
                      f"{sub} is not a bundle directory: it has no manifests/ or metadata/ directly inside",
                      detail="The catalog's tooling does not find a bundle there, and this file is never built or "
                      f"checked. Put the bundle's manifests in {sub}/manifests/ and its annotations in "
                      f"{sub}/metadata/annotations.yaml.")
