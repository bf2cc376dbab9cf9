"""`python -m nano_brain` runs the CLI (editors fall back to it without `nano-brain` on PATH)."""

from .cli import main

main()
