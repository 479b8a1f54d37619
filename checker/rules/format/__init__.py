"""Format rules: whether a bundle can be read and built at all -- files that do not parse or
are refused, the bundle directory's layout, its annotations, the shape of each manifest, the
kinds it may hold, its CRDs, images and size. Every target, ``minimal`` included, reports
them."""
