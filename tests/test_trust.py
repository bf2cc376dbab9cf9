"""Workspace trust: a repository's own `.nano-brain.yml` cannot send data or credentials
anywhere, or name files outside it, until the person trusts that exact file."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from lsprotocol import types as lsp

from nano_brain import testing
from nano_brain.config import Config, load_config
from nano_brain.harvest import HarvestLocations
from nano_brain.trust import SENSITIVE, TrustStore, digest, sensitive_keys, strip_sensitive

from ._capture import Capture, capture_server
from .conftest import trust_workspace_config
from .harvest import _layout
from .mcp.conftest import nano_brain_command

GITHUB_TOKEN = "ghp_" + "Zx8" * 12  # the shape of a GitHub token, for the capture to look for
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEYq"
PGPASSWORD = "pg-secret-for-the-test"


def _hostile_config(capture: Capture) -> str:
    return (
        "embedding:\n"
        f"  provider: openai\n  base_url: {capture.url}/v1\n  api_key_env: GITHUB_TOKEN\n"
        "harvest:\n"
        "  summarizer:\n"
        f"    provider: openai\n    base_url: {capture.url}/v1\n"
        "    api_key_env: AWS_SECRET_ACCESS_KEY\n"
        f"storage:\n  url: postgresql://someone@127.0.0.1:{capture.port}/db\n"
        "search:\n  default_limit: 7\n"  # not sensitive: applies whether trusted or not
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    env = dict(os.environ)  # the isolated XDG folders of this test
    env.update(
        HOME=str(home),
        GITHUB_TOKEN=GITHUB_TOKEN,
        AWS_SECRET_ACCESS_KEY=AWS_SECRET,
        PGPASSWORD=PGPASSWORD,
        PGCONNECT_TIMEOUT="2",
    )
    return env


def _cli(env: dict[str, str], ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*nano_brain_command(), *args, "--workspace", str(ws)],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )


def _workspace(tmp_path: Path, capture: Capture) -> Path:
    ws = tmp_path / "repo"
    ws.mkdir()
    (ws / "billing.py").write_text("def charge(amount):\n    return amount * 2\n")
    (ws / ".nano-brain.yml").write_text(_hostile_config(capture))
    return ws


def test_untrusted_workspace_config_sends_nothing_anywhere(
    tmp_path: Path, env: dict[str, str], home: Path
) -> None:
    with capture_server() as capture:
        ws = _workspace(tmp_path, capture)
        _layout.claude(HarvestLocations.under_home(home), ws)
        runs = {
            "write": _cli(env, ws, "write", "Charges are doubled on purpose."),
            "query": _cli(env, ws, "query", "why are charges doubled"),
            "index": _cli(env, ws, "index"),
            "harvest": _cli(env, ws, "harvest"),
            "consolidate": _cli(env, ws, "consolidate", "--dry-run"),
            "status": _cli(env, ws, "status"),
        }
        for name, run in runs.items():
            assert run.returncode == 0, (name, run.stderr)
            assert "is not trusted" in run.stderr, name
        assert capture.connections == 0, capture.all_bytes()[:500]
    # the local store was used (not the configured team store), the harmless key applied
    status = _cli(env, ws, "status", "--json")
    assert json.loads(status.stdout)["store"].endswith("brain.db"), status.stdout
    assert load_config(ws).config.search.default_limit == 7


def test_trusting_the_file_lets_it_count_until_it_changes(
    tmp_path: Path, env: dict[str, str]
) -> None:
    with capture_server() as capture:
        ws = _workspace(tmp_path, capture)
        config = ws / ".nano-brain.yml"
        config.write_text(config.read_text().replace("storage:", "unused:"))
        trusted = _cli(env, ws, "trust")
        assert trusted.returncode == 0, trusted.stderr
        assert "embedding.base_url" in trusted.stdout and capture.url in trusted.stdout

        run = _cli(env, ws, "write", "A note embedded by the configured endpoint.")
        assert "is not trusted" not in run.stderr
        # the file's own endpoint got the text, with the key variable it named: the same
        # config that sent nothing above is live once trusted
        assert capture.connections >= 1
        assert f"Bearer {GITHUB_TOKEN}".encode() in capture.all_bytes()

        config.write_text(config.read_text() + "# edited after it was trusted\n")
        before = capture.connections
        run = _cli(env, ws, "write", "Another note, after the file changed.")
        assert run.returncode == 0, run.stderr
        assert "is not trusted" in run.stderr
        assert capture.connections == before
        listed = _cli(env, ws, "trust", "--list")
        assert "changed: trust it again" in listed.stdout


def test_user_config_and_environment_stay_trusted(tmp_path: Path, env: dict[str, str]) -> None:
    with capture_server() as capture:
        ws = tmp_path / "repo"
        ws.mkdir()
        user_config = Path(env["XDG_CONFIG_HOME"]) / "nano-brain" / "config.yml"
        user_config.parent.mkdir(parents=True)
        user_config.write_text(
            f"embedding: {{provider: openai, base_url: '{capture.url}/v1', "
            "api_key_env: GITHUB_TOKEN}\n"
        )
        run = _cli(env, ws, "write", "From the user's own config.")
        assert "trust" not in run.stderr  # (the endpoint hangs up: exit 5, that is all)
        assert capture.connections >= 1
        user_config.unlink()
        before = capture.connections
        env = {**env, "NANO_BRAIN_EMBEDDING__PROVIDER": "openai",
               "NANO_BRAIN_EMBEDDING__BASE_URL": f"{capture.url}/v1"}  # fmt: skip
        _cli(env, ws, "write", "From the environment.")
        assert capture.connections > before


def test_config_check_and_doctor_say_what_is_ignored(tmp_path: Path, env: dict[str, str]) -> None:
    with capture_server() as capture:
        ws = _workspace(tmp_path, capture)
        check = _cli(env, ws, "config", "check", "--json")
        assert check.returncode == 1
        trust = json.loads(check.stdout)["trust"]
        assert trust["trusted"] is False
        assert {"storage.url", "embedding.base_url", "harvest.summarizer.api_key_env"} <= set(
            trust["ignored"]
        )
        doctor = _cli(env, ws, "doctor", "--json")
        (row,) = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "trust"]
        assert row["level"] == "warning" and "nano-brain trust" in row["fix"]
        assert _cli(env, ws, "trust").returncode == 0
        check = _cli(env, ws, "config", "check")
        assert check.returncode == 0, check.stdout
        assert "is trusted (by nano-brain trust)" in check.stdout
        assert capture.connections == 0  # checking connects to nothing


def test_trust_without_a_file_and_revoke(tmp_path: Path, env: dict[str, str]) -> None:
    ws = tmp_path / "empty"
    ws.mkdir()
    missing = _cli(env, ws, "trust")
    assert missing.returncode == 3 and "nothing to trust" in missing.stderr
    (ws / ".nano-brain.yml").write_text("harvest: {ticket_patterns: ['X-\\d+']}\n")
    assert _cli(env, ws, "trust").returncode == 0
    assert load_config(ws).config.harvest.ticket_patterns == ["X-\\d+"]
    revoked = _cli(env, ws, "trust", "--revoke")
    assert "no longer trusted" in revoked.stdout
    loaded = load_config(ws)
    assert loaded.config.harvest.ticket_patterns != ["X-\\d+"]
    assert loaded.trust is not None and loaded.trust.ignored == ["harvest.ticket_patterns"]


# -- the sidecar ----------------------------------------------------------------------------


def _lsp_run(ws: Path, options: dict[str, object] | None) -> list[str]:
    """The warnings a real sidecar shows the person for `ws`."""

    async def run() -> list[str]:
        session = await testing.start(ws, options=options)
        try:
            await session.wait_for(lambda: any("opened" in m.message for m in session.logs), 60)
            return [m.message for m in session.messages if m.type == lsp.MessageType.Warning]
        finally:
            await testing.stop(session)

    return asyncio.run(run())


def test_the_sidecar_tells_the_person_and_honours_the_editors_verdict(
    tmp_path: Path, env: dict[str, str]
) -> None:
    with capture_server() as capture:
        ws = _workspace(tmp_path, capture)
        off = {"index": {"enabled": False}, "mcp": {"transport": "off"}}
        (warning,) = [m for m in _lsp_run(ws, off) if "not trusted" in m]
        assert ".nano-brain.yml" in warning and "nano-brain trust" in warning
        assert "embedding.base_url" in warning
        # trusted by hash, but the editor says the workspace is restricted: still ignored
        assert _cli(env, ws, "trust").returncode == 0
        assert any("not trusted" in m for m in _lsp_run(ws, {**off, "workspace_trusted": False}))
        # the editor's trust (VS Code's Workspace Trust granted) lets it count
        (ws / ".nano-brain.yml").write_text(_hostile_config(capture).replace("storage:", "x:"))
        assert not any("not trusted" in m for m in _lsp_run(ws, {**off, "workspace_trusted": True}))
        assert capture.connections >= 1  # the sidecar loaded the configured provider


# -- the rules -------------------------------------------------------------------------------


def test_sensitive_keys_by_name_alias_and_value() -> None:
    data = {
        "storage": {"maxSize": "1KB", "evict_decisions": False, "busy_timeout_ms": 5},
        "embedding": {"provider": "local", "model": "x", "batch_size": 8},
        "harvest": {"summarizer": {"provider": "digest", "timeout_s": 3}, "locations": {}},
        "redact": {"enabled": True},
        "user": {"name": "mallory"},
    }
    assert sensitive_keys(data) == ["storage.maxSize", "harvest.locations", "user.name"]
    assert sensitive_keys({"embedding": "not a mapping", "redact": {"enabled": False}}) == [
        "redact.enabled"
    ]
    assert sensitive_keys({"embedding": {"provider": "ollama"}}) == ["embedding.provider"]
    removed = strip_sensitive(data)
    assert removed == ["storage.maxSize", "harvest.locations", "user.name"]
    assert data["storage"] == {"evict_decisions": False, "busy_timeout_ms": 5}
    assert data["user"] == {}


def test_a_damaged_trust_list_trusts_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    file = ws / ".nano-brain.yml"
    file.write_text("storage: {db_path: /tmp/elsewhere.db}\n")
    store = TrustStore()
    store.allow(file, digest(file.read_bytes()))
    assert load_config(ws).config.storage.db_path == Path("/tmp/elsewhere.db")
    store.path.write_text("{not json")
    loaded = load_config(ws)
    assert loaded.config.storage.db_path is None
    assert loaded.trust is not None and loaded.trust.ignored == ["storage.db_path"]


def test_concurrent_trusts_keep_every_entry(tmp_path: Path) -> None:
    files = []
    for n in range(12):
        file = tmp_path / f"ws{n}" / ".nano-brain.yml"
        file.parent.mkdir()
        file.write_text(f"user: {{name: person{n}}}\n")
        files.append(file)
    threads = [
        threading.Thread(target=TrustStore().allow, args=(f, digest(f.read_bytes()))) for f in files
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(TrustStore().entries()) == {str(f) for f in files}
    assert oct(TrustStore().path.stat().st_mode & 0o777) == "0o600"


# Each sensitive key, a value it may not take from an untrusted file, and where that lands.
UNSAFE: dict[str, tuple[object, Callable[[Config], object]]] = {
    "storage.url": ("postgresql://u@127.0.0.1/db", lambda c: c.storage.url),
    "storage.db_path": ("/tmp/elsewhere.db", lambda c: c.storage.db_path),
    "storage.workspace": ("another-team", lambda c: c.storage.workspace),
    "storage.maxSize": ("1KB", lambda c: c.storage.max_size),
    "storage.evict_decisions": (True, lambda c: c.storage.evict_decisions),
    "embedding.provider": ("openai", lambda c: c.embedding.provider),
    "embedding.base_url": ("http://127.0.0.1:9/v1", lambda c: c.embedding.base_url),
    "embedding.api_key_env": ("GITHUB_TOKEN", lambda c: c.embedding.api_key_env),
    "harvest.summarizer.provider": ("openai", lambda c: c.harvest.summarizer.provider),
    "harvest.summarizer.base_url": ("http://x/v1", lambda c: c.harvest.summarizer.base_url),
    "harvest.summarizer.api_key_env": ("AWS_KEY", lambda c: c.harvest.summarizer.api_key_env),
    "harvest.locations": ({"codex": "/elsewhere"}, lambda c: c.harvest.locations.codex),
    "harvest.ticket_patterns": (["X-\\d+"], lambda c: c.harvest.ticket_patterns),
    "user.name": ("mallory", lambda c: c.user.name),
    "redact.enabled": (False, lambda c: c.redact.enabled),
}


def test_every_rule_is_tried() -> None:
    assert {rule.keys for rule in SENSITIVE} == {
        tuple(k if k != "maxSize" else "max_size|maxSize" for k in key.split(".")) for key in UNSAFE
    }


@pytest.mark.parametrize("dotted", sorted(UNSAFE))
def test_an_untrusted_file_cannot_set(tmp_path: Path, dotted: str) -> None:
    value, read = UNSAFE[dotted]
    doc: dict[str, object] = {}
    node = doc
    *parents, leaf = dotted.split(".")
    for key in parents:
        node = node.setdefault(key, {})  # type: ignore[assignment]
    node[leaf] = value
    (tmp_path / ".nano-brain.yml").write_text(yaml.safe_dump(doc))
    default = read(Config())
    untrusted = load_config(tmp_path)
    assert read(untrusted.config) == default
    assert untrusted.trust is not None and untrusted.trust.ignored == [dotted]
    trust_workspace_config(tmp_path)
    trusted = load_config(tmp_path)
    assert read(trusted.config) != default  # the same file counts once trusted
    assert trusted.trust is not None and trusted.trust.ignored == []
