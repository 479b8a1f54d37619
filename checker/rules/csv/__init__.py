"""CSV rules: what the ClusterServiceVersion says -- its metadata and annotations, install
strategy, owned and required APIs, webhooks, permissions and the catalogs' own demands on
it -- checked against what OLM, the console and the catalog pipelines accept."""
