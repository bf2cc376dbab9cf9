"""Changes made outside the editor reach the code index: watchdog, client watchers, the rules."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lsprotocol import types as lsp

from nano_brain.codeindex import WalkedFile, code_extensions, iter_workspace
from nano_brain.codeindex.indexer import TEXT_SUFFIXES
from nano_brain.lsp.watch import PathRules

from .conftest import BILLING, start, stop

SHIPPING = "def compute_shipping_cost(weight):\n    return 4.5 + weight * 0.1\n"


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_path_rules_agree_with_the_index_walk(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _tree(
        root,
        {
            ".gitignore": "build_out/\n*.gen.py\n!keep.gen.py\n",
            ".git/info/exclude": "local_only.py\n",
            ".git/HEAD.py": "",
            "app.py": "",
            "keep.gen.py": "",
            "drop.gen.py": "",
            "local_only.py": "",
            "build_out/tool.py": "",
            "node_modules/lib/index.js": "",
            "pkg.egg-info/setup.py": "",
            "sub/.gitignore": "secret.py\n!/again.gen.py\n",
            "sub/secret.py": "",
            "sub/public.ts": "",
            "sub/again.gen.py": "",
            "sub/deep/secret.py": "",
            "docs/guide.md": "",
            "docs/private/plan.md": "",
            "notes.txt": "",
            "Makefile": "",
            "image.png": "",
            ".store/brain.md": "",
        },
    )
    exclude = ["docs/private/"]
    indexed = {
        item.path
        for item in iter_workspace(
            root, exclude=exclude, suffixes={*code_extensions(), *TEXT_SUFFIXES}
        )
        if isinstance(item, WalkedFile)
    }
    rules = PathRules(root, exclude, skip=root / ".store")
    every = {
        (Path(d) / f).relative_to(root).as_posix()
        for d, _, names in os.walk(root)
        for f in names
        if f != ".gitignore"
    }
    judged = {rel for rel in every if rules.relevant(rel)}
    assert judged == indexed - {".store/brain.md"}
    assert "sub/public.ts" in judged and "keep.gen.py" in judged and "app.py" in judged
    # folders: pruned ones never count, others do (a deleted or moved-in folder)
    assert not rules.relevant("build_out", is_dir=True)
    assert not rules.relevant("node_modules", is_dir=True)
    assert rules.relevant("sub/deep", is_dir=True)
    # .gitignore files change what is indexed; a changed one is read again
    assert rules.relevant("sub/.gitignore")
    assert not rules.relevant("build_out/.gitignore")
    (root / "sub/.gitignore").write_text("", encoding="utf-8")
    assert rules.relevant("sub/.gitignore")
    assert rules.relevant("sub/secret.py")


def test_changes_on_disk_reach_the_index_without_the_editor(project: Path) -> None:
    """No didOpen/didChange/didSave: the server's own watcher sees the files change."""
    (project / ".gitignore").write_text("generated/\n", encoding="utf-8")

    async def body() -> None:
        session = await start(project, options={"mcp": {"transport": "off"}})
        try:
            await session.indexed()
            status = await session.status()
            assert status.folders[0].watch == "server"
            assert status.folders[0].last_pass.paths is None  # the first pass walks it all
            assert session.registrations == []  # the client offered no watchers to register
            assert await session.symbols("checkout") == ["checkout"]

            passes = session.passes()
            (project / "shipping.py").write_text(SHIPPING, encoding="utf-8")
            (project / "billing.py").write_text(
                BILLING + "\n\ndef refund_fee(order):\n    return 1\n", encoding="utf-8"
            )
            (project / "util.py").unlink()
            await session.wait_for(lambda: session.passes() > passes, 20)
            await session.wait_for(lambda: not _indexing(session), 20)
            assert await session.symbols("compute_shipping_cost") == ["compute_shipping_cost"]
            assert await session.symbols("refund_fee") == ["refund_fee"]
            assert await session.symbols("checkout") == []
            # the watcher named the files: the pass looked at them, not at the whole tree
            last = (await session.status()).folders[0].last_pass
            assert 1 <= last.paths <= 3 and last.unchanged == 0

            # what the index ignores starts no pass at all
            passes = session.passes()
            _tree(project, {"generated/out.py": SHIPPING, "node_modules/x/y.js": "x", "a.log": ""})
            await asyncio.sleep(1.5)
            assert session.passes() == passes
            assert await session.symbols("compute_shipping_cost") == ["compute_shipping_cost"]
        finally:
            await stop(session)

    asyncio.run(body())


def _indexing(session: object) -> bool:
    kinds = [kind for kind, _ in session.progress]  # type: ignore[attr-defined]
    return kinds.count("begin") > kinds.count("end")


def test_client_file_watchers_are_used_when_the_client_offers_them(project: Path) -> None:
    caps = lsp.WorkspaceClientCapabilities(
        workspace_folders=True,
        did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
            dynamic_registration=True
        ),
    )

    async def body() -> None:
        session = await start(project, options={"mcp": {"transport": "off"}}, workspace=caps)
        try:
            await session.indexed()
            [reg] = session.registrations
            assert reg.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
            globs = [w["globPattern"] for w in reg.register_options["watchers"]]
            assert any(".py" in g or ",py," in g for g in globs) and "**/.gitignore" in globs
            await session.wait_for(lambda: _watch(session) is not None, 10)
            status = await session.status()
            assert status.folders[0].watch == "client"

            # no watchdog: a change the client does not report starts nothing
            passes = session.passes()
            (project / "shipping.py").write_text(SHIPPING, encoding="utf-8")
            await asyncio.sleep(1.5)
            assert session.passes() == passes
            # reported by the client: indexed
            session.client.workspace_did_change_watched_files(
                lsp.DidChangeWatchedFilesParams(
                    [lsp.FileEvent(session.uri("shipping.py"), lsp.FileChangeType.Created)]
                )
            )
            await session.wait_for(lambda: session.passes() > passes, 20)
            assert await session.symbols("compute_shipping_cost") == ["compute_shipping_cost"]
            last = (await session.status()).folders[0].last_pass
            assert (last.paths, last.new, last.unchanged) == (1, 1, 0)
            # events for paths the index ignores are dropped by the same rules
            passes = session.passes()
            session.client.workspace_did_change_watched_files(
                lsp.DidChangeWatchedFilesParams(
                    [lsp.FileEvent(session.uri("node_modules/a.js"), lsp.FileChangeType.Changed)]
                )
            )
            await asyncio.sleep(1.0)
            assert session.passes() == passes
        finally:
            await stop(session)

    asyncio.run(body())


def _watch(session: object) -> object:
    logs = session.logs  # type: ignore[attr-defined]
    return next((m for m in logs if "client watches files" in m.message), None)


def _inotify_watches(pid: int) -> int:
    """Watches the process holds on inotify descriptors (Linux: /proc/PID/fdinfo)."""
    count = 0
    for info in Path(f"/proc/{pid}/fdinfo").iterdir():
        try:
            count += info.read_text().count("inotify wd:")
        except OSError:
            continue
    return count


def test_removed_folder_is_no_longer_watched(tmp_path: Path) -> None:
    roots = []
    for name in ("alpha", "beta"):
        root = tmp_path / name
        for sub in ("a", "b", "c"):
            (root / sub).mkdir(parents=True)
        (root / f"{name}.py").write_text(BILLING, encoding="utf-8")
        roots.append(root)

    async def body() -> None:
        session = await start(roots[0], folders=roots, options={"mcp": {"transport": "off"}})
        pid = session.client._server.pid  # type: ignore[union-attr]
        try:
            await session.wait_for(lambda: session.passes() >= 2)
            both = _inotify_watches(pid)
            assert both >= 8  # each root and its three folders
            session.client.workspace_did_change_workspace_folders(
                lsp.DidChangeWorkspaceFoldersParams(
                    lsp.WorkspaceFoldersChangeEvent(
                        added=[], removed=[lsp.WorkspaceFolder(roots[0].as_uri(), "alpha")]
                    )
                )
            )
            await session.wait_for(lambda: _inotify_watches(pid) <= both - 4, 10)
            status = await session.status()
            assert [(Path(f.root).name, f.watch) for f in status.folders] == [("beta", "server")]
            passes = session.passes()
            (roots[0] / "late.py").write_text(SHIPPING, encoding="utf-8")
            await asyncio.sleep(1.0)
            assert session.passes() == passes
        finally:
            await stop(session)

    asyncio.run(body())
