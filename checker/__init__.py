"""olm-check: a static checker for OLM operator bundles, catalogs and CatalogSources."""

__version__ = "0.1.0"
TOOL_NAME = "olm-check"
INFORMATION_URI = "https://github.com/olm-check/olm-check"
