"""CatalogSource rules: CatalogSource manifests (operators.coreos.com/v1alpha1) anywhere in the
checked tree. Today's API (the default) requires ``spec.sourceType`` and has no proposal
blocks; the catalog operator's reconciler picks the source: ``grpc`` with ``image`` (a
registry pod; ``address`` is then ignored), ``grpc`` with only ``address`` (no pod),
``configmap`` (``internal`` is its deprecated alias) with ``configMap`` (a registry pod built
from the ConfigMap). With ``catalogsource_schema: proposed`` in .olm-check.yaml the
provisional catalogsource-spec-update structure (``catalogImageSource`` /
``catalogServiceSource`` / ``configMapSource``) is the target and the legacy top-level fields
warn. Value shapes come from ``checker/data/catalogsource.schema.json`` (JSON Schema), turned
into one readable message per wrong value (never a bare "oneOf" failure)."""
