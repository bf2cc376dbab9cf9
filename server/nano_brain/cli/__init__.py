"""The `nano-brain` command line: thin command modules over Brain methods.

Each module registers its commands on `main` when imported; `main` imports a module only when
one of its commands runs (see `_app.COMMANDS`).
"""

from ._app import main

__all__ = ["main"]
