"""`nano-brain trust`: allow a workspace's own `.nano-brain.yml` to set what needs trust."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ._app import echo_lines, emit, main, workspace_option


@main.command()
@click.option("--revoke", is_flag=True, help="Stop trusting the workspace's config file.")
@click.option("--list", "list_all", is_flag=True, help="List every trusted file and its state.")
@workspace_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def trust(revoke: bool, list_all: bool, workspace: Path | None, as_json: bool) -> None:
    """Trust this workspace's .nano-brain.yml as it is now (endpoints, keys, outside paths)."""
    from .. import paths
    from ..config import WORKSPACE_CONFIG_NAME
    from ..errors import InvalidInputError
    from ..trust import TrustStore

    if revoke and list_all:
        raise InvalidInputError("--revoke and --list cannot be combined")
    store = TrustStore()
    if list_all:
        _list(store, as_json)
        return
    file = paths.workspace_root(workspace) / WORKSPACE_CONFIG_NAME
    if revoke:
        removed = store.revoke(file)
        text = f"no longer trusted: {file}" if removed else f"{file} was not trusted"
        emit({"path": str(file), "revoked": removed is not None}, as_json, lambda: click.echo(text))
        return
    _allow(store, file, as_json)


def _allow(store: Any, file: Path, as_json: bool) -> None:
    from ..config import brief
    from ..configfile import read_config_file
    from ..errors import NotFoundError
    from ..trust import digest, sensitive_keys

    read = read_config_file(file)
    if read is None:
        raise NotFoundError(f"{file} does not exist: nothing to trust")
    data, raw = read
    entry = store.allow(file, digest(raw))
    keys = sensitive_keys(data)
    values = {key: _value(data, key) for key in keys}

    def human() -> None:
        click.echo(f"trusted {file} (sha256 {entry.sha256[:16]}); a change needs trusting again")
        if not keys:
            click.echo("it sets nothing that needs trust")
            return
        click.echo("these settings now take effect:")
        for key in keys:
            click.echo(f"  {key}: {brief(values[key])}")

    emit({"path": str(file), "sha256": entry.sha256, "settings": values}, as_json, human)


def _list(store: Any, as_json: bool) -> None:
    from ..configfile import read_config_file
    from ..errors import InvalidInputError
    from ..trust import digest

    rows = []
    for entry in store.entries().values():
        try:
            read = read_config_file(Path(entry.path))
        except InvalidInputError:
            read = None
        if read is None:
            state = "missing or unreadable"
        else:
            state = "trusted" if digest(read[1]) == entry.sha256 else "changed: trust it again"
        rows.append({"path": entry.path, "sha256": entry.sha256, "state": state})
    emit(
        rows,
        as_json,
        lambda: echo_lines((f"{r['path']}  {r['state']}" for r in rows), "no trusted files"),
    )


def _value(data: dict[str, Any], dotted: str) -> Any:
    value: Any = data
    for key in dotted.split("."):
        value = value[key]
    return value
