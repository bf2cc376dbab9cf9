-- :checkhealth nano_brain
-- Neovim version; the server executable and its version; then, per workspace, the store path
-- and the embedding model. A running nano-brain client answers for its own folders (through
-- `nano-brain/indexStatus`); without one, `nano-brain status --json` answers for the workspace
-- of the current directory (the buffer :checkhealth runs in is its own report, not a file).
-- Last, `nano-brain doctor` checks the install, the store, the config and the private files.
local M = {}

local health = vim.health
-- Neovim 0.9 named these report_*; 0.10 renamed them
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local fail = health.error or health.report_error
local info = health.info or health.report_info

--- The command without its `lsp` subcommand: { "nano-brain" } or { "python", "-m", "nano_brain" }.
local function base_cmd(cmd)
  local out = {}
  for _, part in ipairs(cmd) do
    if part == "lsp" then
      break
    end
    table.insert(out, part)
  end
  return out
end

--- Run argv; returns (true, stdout) or (false, what went wrong).
local function run(argv)
  if vim.system then
    local okrun, proc = pcall(vim.system, argv, { text = true })
    if not okrun then
      return false, tostring(proc)
    end
    local res = proc:wait(30000)
    if res.code ~= 0 then
      return false, vim.trim((res.stderr or "") .. (res.stdout or ""))
    end
    return true, res.stdout or ""
  end
  local out = vim.fn.system(argv)
  return vim.v.shell_error == 0, out
end

local function model_text(model)
  if type(model) ~= "table" then
    return tostring(model)
  end
  if model.name == nil or model.name == vim.NIL then
    return ("none (%s)"):format(tostring(model.reason or model.provider))
  end
  -- the CLI reports no dimension until the store holds vectors (it does not load the model)
  local dim = (model.dim == nil or model.dim == vim.NIL) and "?" or tostring(model.dim)
  return ("%s (%s, %sd)"):format(model.name, tostring(model.provider), dim)
end

local function report_server(nb, client)
  local res = nb.request_sync(client, "nano-brain/indexStatus", {}, 5000)
  if not res or res.err or not res.result then
    warn(("client %d: nano-brain/indexStatus failed: %s"):format(client.id, vim.inspect(res and res.err)))
    return
  end
  local server = client.server_info or {}
  ok(("attached: client id %d, server %s %s"):format(client.id, server.name or "?", server.version or "?"))
  for _, f in ipairs(res.result.folders or {}) do
    ok(("workspace %s: store %s"):format(f.root, f.store))
    ok("model: " .. model_text(f.model))
    local counts = f.counts or {}
    local state = f.indexing and "indexing" or (f.indexed and "indexed" or "not indexed yet")
    info(("%s: %s files, %s symbols; watching changes: %s; MCP: %s"):format(
      state,
      tostring(counts.files),
      tostring(counts.symbols),
      tostring(f.watch),
      (f.mcp and f.mcp ~= vim.NIL) and tostring(f.mcp) or "off"
    ))
  end
end

local function report_cli(nb, base)
  local root = nb.root_for(0)
  local argv = vim.list_extend(vim.deepcopy(base), { "status", "--json", "-w", root })
  local okrun, out = run(argv)
  local okjson, data = pcall(vim.json.decode, okrun and out or "")
  if not (okrun and okjson and type(data) == "table") then
    if not okrun and out:find("no store", 1, true) then
      -- a workspace nothing was saved in yet: the server creates its store on first start
      info(vim.trim((out:gsub("^nano%-brain: error: ", ""))))
    else
      warn("`" .. table.concat(argv, " ") .. "` failed: " .. vim.trim(out))
    end
    return
  end
  ok(("workspace %s: store %s"):format(data.workspace or root, tostring(data.store)))
  local emb = data.embedding or {}
  ok("model: " .. model_text({ name = emb.model, provider = emb.provider, dim = emb.dim }))
  info(("no nano-brain server attached (%s documents in the store)"):format(tostring(data.documents)))
end

--- `nano-brain doctor --json` for the workspace: one line per check, each problem with its fix.
--- (doctor exits 1 when it found errors; its report is on stdout either way.)
local function report_doctor(nb, base)
  local argv = vim.list_extend(vim.deepcopy(base), { "doctor", "--json", "-w", nb.root_for(0) })
  local out = ""
  if vim.system then
    local okrun, proc = pcall(vim.system, argv, { text = true })
    out = okrun and (proc:wait(120000).stdout or "") or tostring(proc)
  else
    out = vim.fn.system(argv)
  end
  local okjson, data = pcall(vim.json.decode, out)
  start("nano-brain doctor")
  if not (okjson and type(data) == "table" and type(data.checks) == "table") then
    warn("`" .. table.concat(argv, " ") .. "` gave no report: " .. vim.trim(out))
    return
  end
  for _, c in ipairs(data.checks) do
    local text = ("%s %s: %s"):format(c.area, c.name, c.detail)
    local advice = (c.fix and c.fix ~= "") and { c.fix } or nil
    if c.level == "error" then
      fail(text, advice)
    elseif c.level == "warning" then
      warn(text, advice)
    else
      ok(text)
    end
  end
end

function M.check()
  start("nano-brain")
  if vim.fn.has("nvim-0.10") == 1 then
    ok("Neovim " .. tostring(vim.version()) .. " (vim.lsp.start)")
  else
    warn("Neovim older than 0.10 is not tested: using the vim.lsp.start_client fallback")
  end
  local nb = require("nano_brain")
  local base = base_cmd(nb.config.cmd)
  local exe = base[1]
  if not exe or vim.fn.executable(exe) ~= 1 then
    fail(("`%s` not found or not executable"):format(tostring(exe)), {
      "install nano-brain from its checkout: pipx install /path/to/nano-brain (puts `nano-brain` on PATH)",
      "or set cmd in require('nano_brain').setup({ cmd = { '/path/to/nano-brain', 'lsp' } })",
    })
  else
    local okrun, out = run(vim.list_extend(vim.deepcopy(base), { "--version" }))
    if okrun then
      ok(("server: %s (%s)"):format(vim.fn.exepath(exe), vim.trim(out)))
    else
      fail(("`%s --version` failed: %s"):format(exe, out))
    end
  end
  local clients = nb.clients()
  for _, client in ipairs(clients) do
    report_server(nb, client)
  end
  if #clients == 0 and exe and vim.fn.executable(exe) == 1 then
    report_cli(nb, base)
  end
  info("LSP log: " .. vim.lsp.get_log_path())
  if exe and vim.fn.executable(exe) == 1 then
    report_doctor(nb, base)
  end
end

return M
