"""Drive a real `nano-brain lsp` over stdio with pygls's own client.

Shared by the test suite and the benchmarks (benchmarks/bench_lsp.py), so it lives in the
package and needs neither pytest nor the tests folder: only pygls and lsprotocol, which the
server itself depends on. Not used by nano-brain at run time.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, Union

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

__all__ = ["Session", "server_command", "start", "stop"]


def server_command() -> list[str]:
    """`nano-brain lsp`: the console script beside this interpreter (a venv), else on PATH,
    else this interpreter running the package."""
    script = Path(sys.executable).with_name("nano-brain")
    if script.exists():
        return [str(script), "lsp"]
    found = shutil.which("nano-brain")
    return [found, "lsp"] if found else [sys.executable, "-m", "nano_brain", "lsp"]


@dataclass
class Session:
    """A started client, plus everything the server sent on its own."""

    client: LanguageClient
    root: Path
    progress: list[tuple[str, Any]] = field(default_factory=list)
    """The index passes' work-done progress: (kind, value), kind ``create`` with the token."""
    embedding: list[tuple[str, Any]] = field(default_factory=list)
    """The background embedding's work-done progress, the same way."""
    messages: list[lsp.ShowMessageParams] = field(default_factory=list)
    logs: list[lsp.LogMessageParams] = field(default_factory=list)
    diagnostics: dict[str, Sequence[lsp.Diagnostic]] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    registrations: list[lsp.Registration] = field(default_factory=list)
    lens_refreshes: int = 0

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    async def wait_for(self, predicate: Any, timeout: float = 60.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError("timed out waiting for the server")
            await asyncio.sleep(0.05)

    async def indexed(self, timeout: float = 120.0) -> None:
        """Wait for the end of the first index pass ($/progress end)."""
        await self.wait_for(lambda: any(kind == "end" for kind, _ in self.progress), timeout)

    def passes(self) -> int:
        """Index passes finished so far ($/progress end notifications)."""
        return sum(kind == "end" for kind, _ in self.progress)

    async def status(self) -> Any:
        return await self.client.protocol.send_request_async("nano-brain/indexStatus", {})

    async def symbols(self, query: str) -> list[str]:
        """workspace/symbol names for ``query``."""
        found = await self.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query))
        return [s.name for s in found or []]

    def open(self, rel: str, text: str | None = None) -> str:
        uri = self.uri(rel)
        body = text if text is not None else (self.root / rel).read_text(encoding="utf-8")
        self.versions[uri] = 1
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=body)
            )
        )
        return uri

    def replace(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def hover(self, uri: str, line: int, character: int) -> lsp.Hover | None:
        return await self.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, character))
        )

    async def command(self, name: str, args: dict[str, Any]) -> Any:
        return await self.client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=name, arguments=[args])
        )


_Handler = TypeVar("_Handler", bound=Callable[..., Any])


def _on(client: LanguageClient, method: str) -> Callable[[_Handler], _Handler]:
    """`client.feature(method)`, typed (pygls leaves its client's decorator unannotated): it
    registers the handler and returns it unchanged."""
    register: Callable[[_Handler], _Handler] = client.feature(method)
    return register


async def start(
    root: Path,
    *,
    options: Any = None,
    folders: list[Path] | None = None,
    workspace: lsp.WorkspaceClientCapabilities | None = None,
) -> Session:
    """Start `nano-brain lsp` and initialize it; ``workspace`` replaces the client's default
    workspace capabilities (folders only: no dynamically registered file watchers)."""
    client = LanguageClient("nano-brain-tests", "0")
    session = Session(client, root)

    @_on(client, lsp.CLIENT_REGISTER_CAPABILITY)
    def register(params: lsp.RegistrationParams) -> None:
        session.registrations.extend(params.registrations)

    def of(token: lsp.ProgressToken) -> list[tuple[str, Any]]:
        embedding = str(token).startswith("nano-brain-embed-")
        return session.embedding if embedding else session.progress

    @_on(client, lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create(params: lsp.WorkDoneProgressCreateParams) -> None:
        of(params.token).append(("create", params.token))

    @_on(client, lsp.PROGRESS)
    def progress(params: lsp.ProgressParams) -> None:
        # lsprotocol types the value LSPAny (Any | None); it is a progress object or its dict
        kind = getattr(params.value, "kind", None) or params.value.get("kind")  # type: ignore[union-attr]
        of(params.token).append((kind, params.value))

    @_on(client, lsp.WINDOW_SHOW_MESSAGE)
    def show(params: lsp.ShowMessageParams) -> None:
        session.messages.append(params)

    @_on(client, lsp.WINDOW_LOG_MESSAGE)
    def log(params: lsp.LogMessageParams) -> None:
        session.logs.append(params)

    @_on(client, lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diags(params: lsp.PublishDiagnosticsParams) -> None:
        session.diagnostics[params.uri] = params.diagnostics

    @_on(client, lsp.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params: None) -> None:
        session.lens_refreshes += 1

    # lsprotocol 2025.0.0 structures every code action that carries a `command` as a bare
    # Command (stringifying the nested object); decide by the type of `command` instead.
    converter = client.protocol._converter

    def code_action(obj: Any, _: type) -> Any:
        kind = lsp.Command if isinstance(obj.get("command"), str) else lsp.CodeAction
        return converter.structure(obj, kind)

    converter.register_structure_hook(Union[lsp.Command, lsp.CodeAction], code_action)  # noqa: UP007

    cmd = server_command()
    await client.start_io(cmd[0], *cmd[1:], cwd=str(root))
    roots = folders or [root]
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                window=lsp.WindowClientCapabilities(work_done_progress=True),
                workspace=workspace or lsp.WorkspaceClientCapabilities(workspace_folders=True),
            ),
            root_uri=roots[0].as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots],
            initialization_options=options,
        )
    )
    client.initialized(lsp.InitializedParams())
    return session


async def stop(session: Session) -> None:
    """shutdown + exit, and the server process must end by itself."""
    server = session.client._server  # the subprocess: never leave it behind
    try:
        await asyncio.wait_for(session.client.shutdown_async(None), 15)
        session.client.exit(None)
        if server is not None and server.stdin is not None:
            await server.stdin.drain()  # `exit` reaches the server before the client stops
            await asyncio.wait_for(server.wait(), 15)
    finally:
        try:
            # pygls leaves JsonRPCClient.stop unannotated
            await asyncio.wait_for(session.client.stop(), 15)  # type: ignore[no-untyped-call]
        except TimeoutError:
            if server is not None and server.returncode is None:
                server.kill()
            raise
