"""The public face of each folder of the grading engine: a package names what others may use, and each
name is imported from its module on first use. Lazy on purpose: a batch's supervising process reads
``sandbox.Limits`` without importing torch (about 190 MB and a second of CPU), and a hidden suite that
imports the test kit does not pull in the sandbox."""

from __future__ import annotations

import importlib


def public_names(package: str, public: dict[str, str]):
    """A module ``__getattr__`` for ``package``: ``public`` maps each public name to its module's name."""

    def __getattr__(name: str):
        if name not in public:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{public[name]}"), name)

    return __getattr__
