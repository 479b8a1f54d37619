"""The optional C accelerator of the YAML loader (checker/_cnodes.c over the vendored libyaml in
vendor/libyaml). Everything else is declared in pyproject.toml.

The extension is optional: without a C compiler (or Python's headers) the build prints a
warning and the install goes on; olm-check then uses the pure path (PyYAML's libyaml events and
a Python node builder), with the same results, and ``olm-check --version`` says which is used.
"""
import os
import sys

from setuptools import Extension, setup

LIBYAML = os.path.join("vendor", "libyaml")
LIBYAML_SOURCES = ["api.c", "reader.c", "scanner.c", "parser.c", "loader.c", "emitter.c", "writer.c", "dumper.c"]

define_macros = [
    ("YAML_DECLARE_STATIC", "1"),
    ("YAML_VERSION_MAJOR", "0"),
    ("YAML_VERSION_MINOR", "2"),
    ("YAML_VERSION_PATCH", "5"),
    ("YAML_VERSION_STRING", '"0.2.5"'),
]
extra_compile_args = [] if sys.platform == "win32" else ["-fvisibility=hidden", "-O2"]

setup(
    ext_modules=[
        Extension(
            "checker._cnodes",
            sources=[os.path.join("checker", "_cnodes.c")] + [os.path.join(LIBYAML, "src", s) for s in LIBYAML_SOURCES],
            include_dirs=[os.path.join(LIBYAML, "include"), os.path.join(LIBYAML, "src")],
            define_macros=define_macros,
            extra_compile_args=extra_compile_args,
            optional=True,
        )
    ],
)
