"""The `nano-brain` command line: thin command modules over Brain methods."""

from . import config_cmd, documents, maintenance, memory, search  # noqa: F401  (register commands)
from ._app import main

__all__ = ["main"]
