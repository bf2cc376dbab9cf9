"""A stand-in for `nano-brain lsp`, for checking the e2e harness before the real server exists.

NOT the product's server. It answers hover with `nano-brain query <word>` results and runs
`nano-brain.saveSelection` with `nano-brain write`, so the extension, code-server and the
playwright steps can be exercised end to end. Run through `stub-nano-brain` (see e2e.mjs --stub).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("nano-brain-e2e-stub", "0.0.0")
CLI = ["nano-brain"]


def _root() -> str:
    folders = server.workspace.folders
    first = next(iter(folders.values()), None)
    return unquote(urlparse(first.uri).path) if first else "."


def _cli(*args: str) -> object:
    out = subprocess.run(
        [*CLI, *args, "--workspace", _root(), "--json"], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(params: types.HoverParams) -> types.Hover | None:
    doc = server.workspace.get_text_document(params.text_document.uri)
    line = doc.lines[params.position.line]
    word = ""
    for m in re.finditer(r"\w+", line):
        if m.start() <= params.position.character <= m.end():
            word = m.group()
    if not word:
        return None
    results = _cli("query", word, "--limit", "5")["results"]  # type: ignore[index]
    if not results:
        return None
    text = "\n\n".join(f"**{r['title']}** (#{r['id']})\n\n{r['snippet']}" for r in results)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


@server.command("nano-brain.saveSelection")
def save_selection(args: dict) -> object:
    cmd = ["write", args["text"], "--title", args["title"]]
    for tag in args.get("tags", []):
        cmd += ["--tag", tag]
    return _cli(*cmd)


@server.feature("nano-brain/search")
def search(params: object) -> object:
    query = getattr(params, "query", None) or (params.get("query") if isinstance(params, dict) else "")
    return _cli("query", str(query))


if __name__ == "__main__":
    print("nano-brain e2e stub server on stdio", file=sys.stderr)
    server.start_io()
