"""`python -m nano_brain` runs the CLI (editors fall back to it when `nano-brain` is not on PATH)."""

from .cli import main

main()
