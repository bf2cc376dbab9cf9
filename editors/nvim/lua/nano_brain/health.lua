-- :checkhealth nano_brain
local M = {}

function M.check()
  local health = vim.health
  health.start("nano-brain")
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok("Neovim " .. tostring(vim.version()) .. " (vim.lsp.start)")
  else
    health.warn("Neovim older than 0.10: using vim.lsp.start_client fallback")
  end
  local cfg = require("nano_brain").config
  local exe = cfg.cmd[1]
  if vim.fn.executable(exe) == 1 then
    local out = vim.fn.system({ exe, "--version" })
    health.ok(("server: %s (%s)"):format(vim.fn.exepath(exe), vim.trim(out)))
    local status = vim.fn.system({ exe, "status", "--json", "-w", vim.fn.getcwd() })
    local ok, data = pcall(vim.json.decode, status)
    if ok and type(data) == "table" then
      health.ok("store: " .. tostring(data.store))
      local emb = data.embedding or {}
      health.ok(("model: %s (%s)"):format(tostring(emb.model), tostring(emb.provider)))
    else
      health.warn("`nano-brain status` failed: " .. vim.trim(status))
    end
  else
    health.error(("`%s` not found on PATH"):format(exe), { "pip install nano-brain", "or set cmd in setup()" })
  end
  local client = require("nano_brain").client()
  if client then
    health.ok("attached to this buffer (client id " .. client.id .. ")")
  else
    health.info("no nano-brain client attached to the current buffer")
  end
  health.info("log file: " .. vim.lsp.get_log_path())
end

return M
