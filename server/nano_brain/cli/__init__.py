"""The `nano-brain` command line: thin command modules over Brain methods."""

from . import documents, maintenance, search  # noqa: F401  (each registers its commands)
from ._app import main

__all__ = ["main"]
