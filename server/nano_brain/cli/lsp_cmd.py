"""`nano-brain lsp`: the editor sidecar (language server over stdio, MCP for agents)."""

from __future__ import annotations

import logging
import sys

import click

from ._app import main


@main.command("lsp")
@click.option("--stdio", is_flag=True, help="Speak LSP over stdin/stdout (the default).")
def lsp(stdio: bool) -> None:
    """Run the language server the editor starts; logs go to the editor, never stdout."""
    from ..lsp import build_server  # pygls is only imported by this command
    from ..mcp.sidecar import McpSidecar

    # Anything a library prints would corrupt the protocol: stdout is reserved for JSON-RPC.
    # stderr keeps warnings only (an unread stderr pipe must not fill up); the rest of the
    # log goes to the client as window/logMessage.
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "stream", None) is sys.stdout:
            root.removeHandler(handler)
        else:
            handler.setLevel(logging.WARNING)
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    build_server(mcp_sidecar=McpSidecar).start_io(sys.stdin.buffer, protocol_out)
