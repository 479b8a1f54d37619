"""Catalog rules: what a catalog repository (community-operators style: ``operators/<name>/``,
``catalogs/<release>/<name>/``) holds across bundles and pull requests -- the upgrade graph of
each operator (replaces, skips, skipRange; per release catalog), its file-based catalogs and
release configs, operator names and ci.yaml, where a bundle sits, and what one pull request
may change. Most run once per operator on the repository's facts (``scope="repo"``); the
``minimal`` target reports none of them."""
