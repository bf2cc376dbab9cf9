"""The `nano-brain` command line: thin command modules over Brain methods."""

from . import (  # noqa: F401  (each module registers its commands)
    code_cmd,
    config_cmd,
    doctor_cmd,
    documents,
    harvest_cmd,
    lsp_cmd,
    maintenance,
    mcp_cmd,
    memory,
    search,
    ui_cmd,
)
from ._app import main

__all__ = ["main"]
