-- nano-brain for Neovim: starts `nano-brain lsp` for the buffer's workspace and adds commands.
-- setup(opts) merges opts into the defaults, validates them and warns about unknown keys.
local M = {}

M.defaults = {
  cmd = { "nano-brain", "lsp" }, -- how to start the server
  filetypes = nil, -- nil: every file type; else a list
  root_markers = { ".git", "pyproject.toml", "package.json", "go.mod", "Cargo.toml" },
  init_options = {}, -- sent as initializationOptions (hover, index, mcp, code_lens, ...)
  capabilities = nil, -- merged over Neovim's client capabilities (e.g. file watchers)
  autostart = true,
}

M.config = vim.deepcopy(M.defaults)
M.client_name = "nano_brain"

local function warn(msg)
  vim.notify("nano-brain: " .. msg, vim.log.levels.WARN)
end

--- Merge and validate user options; unknown keys are reported, never fatal.
function M.setup(opts)
  opts = opts or {}
  for key in pairs(opts) do
    if M.defaults[key] == nil and key ~= "filetypes" and key ~= "capabilities" then
      warn("unknown option '" .. key .. "' ignored")
      opts[key] = nil
    end
  end
  local cfg = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts)
  local ok, err = pcall(vim.validate, {
    cmd = { cfg.cmd, "table" },
    filetypes = { cfg.filetypes, "table", true },
    root_markers = { cfg.root_markers, "table" },
    init_options = { cfg.init_options, "table" },
    capabilities = { cfg.capabilities, "table", true },
    autostart = { cfg.autostart, "boolean" },
  })
  if not ok then
    warn(tostring(err) .. "; using defaults")
    cfg = vim.deepcopy(M.defaults)
  end
  M.config = cfg
  if cfg.autostart then
    local group = vim.api.nvim_create_augroup("nano_brain", { clear = true })
    vim.api.nvim_create_autocmd({ "FileType", "BufReadPost", "BufNewFile" }, {
      group = group,
      callback = function(ev)
        M.start(ev.buf)
      end,
    })
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" then
        M.start(buf)
      end
    end
  end
  return cfg
end

--- The workspace root of a buffer: the nearest folder above its file (or, for a buffer that is
--- no file, above the current directory) holding a root marker; else the current directory.
function M.root_for(buf)
  local name = vim.api.nvim_buf_get_name(buf or 0)
  local from = (name ~= "" and not name:find("://")) and vim.fs.dirname(name) or vim.fn.getcwd()
  local found = vim.fs.find(M.config.root_markers, { path = from, upward = true })[1]
  return found and vim.fs.dirname(found) or vim.fn.getcwd()
end

--- Start (or reuse) the server for the buffer's root with vim.lsp.start (Neovim 0.10 and 0.11
--- are tested); older versions get vim.lsp.start_client + vim.lsp.buf_attach_client, untested.
function M.start(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  if vim.bo[buf].buftype ~= "" or vim.api.nvim_buf_get_name(buf) == "" then
    return nil
  end
  local ft = vim.bo[buf].filetype
  if M.config.filetypes and not vim.tbl_contains(M.config.filetypes, ft) then
    return nil
  end
  local root = M.root_for(buf)
  local spec = {
    name = M.client_name,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    -- an empty Lua table is encoded as the JSON array []; the server wants an object, or nothing
    init_options = next(M.config.init_options) ~= nil and M.config.init_options or nil,
    -- a client's capabilities replace the defaults: merge the user's over them
    capabilities = M.config.capabilities
      and vim.tbl_deep_extend("force", vim.lsp.protocol.make_client_capabilities(), M.config.capabilities),
  }
  if vim.lsp.start then
    return vim.lsp.start(spec, { bufnr = buf })
  end
  local id = vim.lsp.start_client(spec)
  if id then
    vim.lsp.buf_attach_client(buf, id)
  end
  return id
end

local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients

function M.client(buf)
  return get_clients({ name = M.client_name, bufnr = buf or vim.api.nvim_get_current_buf() })[1]
end

--- Every running nano-brain client, attached to any buffer.
function M.clients()
  return get_clients({ name = M.client_name })
end

-- Neovim 0.11 made client requests methods (client:request); 0.10 has plain functions.
local methods = vim.fn.has("nvim-0.11") == 1

function M.request(client, method, params, handler, bufnr)
  if methods then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout_ms, bufnr)
  if methods then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr)
end

local function exec(command, args, on_done)
  local client = M.client()
  if not client then
    warn("no nano-brain server attached to this buffer")
    return
  end
  M.request(client, "workspace/executeCommand", { command = command, arguments = { args } }, function(err, result)
    if err then
      vim.notify("nano-brain: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_done then
      on_done(result)
    end
  end, vim.api.nvim_get_current_buf())
end

local function selection_range(line1, line2)
  local last = vim.api.nvim_buf_get_lines(0, line2 - 1, line2, false)[1] or ""
  return {
    start = { line = line1 - 1, character = 0 },
    ["end"] = { line = line2 - 1, character = #last },
  }
end

local function notify_saved(result)
  if result and result.note then
    local where = type(result.anchored_to) == "string" and (" → " .. result.anchored_to) or ""
    vim.notify(("nano-brain: #%s %s%s"):format(result.note.id, result.note.title, where))
  end
end

--- :NanoBrainSave [title] on a range: the lines become a note anchored to their symbol.
function M.save(line1, line2, title)
  local args = { uri = vim.uri_from_bufnr(0), range = selection_range(line1, line2) }
  local function go(t)
    if t and t ~= "" then
      args.title = t
    end
    exec("nano-brain.saveSelection", args, notify_saved)
  end
  if title and title ~= "" then
    go(title)
  else
    vim.ui.input({ prompt = "Note title (empty: automatic): " }, go)
  end
end

function M.decision(line1, line2, title)
  local args = { uri = vim.uri_from_bufnr(0), range = selection_range(line1, line2) }
  local function go(t)
    if not t or t == "" then
      return
    end
    args.title = t
    exec("nano-brain.recordDecision", args, notify_saved)
  end
  if title and title ~= "" then
    go(title)
  else
    vim.ui.input({ prompt = "Decision: " }, go)
  end
end

--- :NanoBrainSearch [query]: structured results (nano-brain/search) in vim.ui.select.
function M.search(query)
  local function go(q)
    if not q or q == "" then
      return
    end
    local client = M.client()
    if not client then
      warn("no nano-brain server attached to this buffer")
      return
    end
    M.request(client, "nano-brain/search", { query = q, uri = vim.uri_from_bufnr(0) }, function(err, res)
      if err then
        vim.notify("nano-brain: " .. err.message, vim.log.levels.ERROR)
        return
      end
      vim.ui.select(res.results or {}, {
        prompt = "nano-brain: " .. q,
        format_item = function(r)
          return ("#%s %s — %s"):format(r.id, r.title, (r.snippet or ""):sub(1, 80))
        end,
      }, function(choice)
        if choice then
          vim.notify(("#%s %s\n%s"):format(choice.id, choice.title, choice.snippet or ""))
        end
      end)
    end, vim.api.nvim_get_current_buf())
  end
  if query and query ~= "" then
    go(query)
  else
    vim.ui.input({ prompt = "Search memory: ", default = vim.fn.expand("<cword>") }, go)
  end
end

--- :NanoBrainSupersede {old-id} [text]: replace a note (the selection is the new text).
function M.supersede(line1, line2, old, text)
  if not old or old == "" then
    warn("usage: :NanoBrainSupersede {note-id} [new text]")
    return
  end
  local args = { uri = vim.uri_from_bufnr(0), old = old, range = selection_range(line1, line2) }
  if text and text ~= "" then
    args.text = text
  end
  exec("nano-brain.supersede", args, notify_saved)
end

--- :NanoBrainWhy [symbol]: why the code under the cursor (or SYMBOL) is like this, in a
--- float: anchored notes and decisions, the commits that changed it, the sessions that
--- edited its file. :NanoBrainWhy! puts the same in the quickfix list instead.
function M.why(symbol, quickfix)
  local args = { uri = vim.uri_from_bufnr(0) }
  if symbol and symbol ~= "" then
    args.symbol = symbol
  else
    local pos = vim.api.nvim_win_get_cursor(0)
    args.position = { line = pos[1] - 1, character = pos[2] }
  end
  exec("nano-brain.why", args, function(view)
    if not view then
      return
    end
    M.last_why = view
    if quickfix then
      M.why_quickfix(view)
      return
    end
    local lines = vim.split(view.text or "", "\n", { plain = true })
    local buf, win = vim.lsp.util.open_floating_preview(lines, "markdown", {
      border = "rounded",
      max_width = math.min(100, vim.o.columns - 4),
      max_height = math.max(10, math.floor(vim.o.lines * 0.6)),
      focus_id = "nano-brain-why",
    })
    M.why_window = { buf = buf, win = win }
  end)
end

--- The why view as quickfix entries at the symbol's lines (notes, commits, sessions).
function M.why_quickfix(view)
  local root = vim.uri_to_fname(vim.uri_from_bufnr(0))
  local client = M.client()
  if client and client.config and client.config.root_dir then
    root = client.config.root_dir
  end
  local file = root .. "/" .. view.path
  local lnum = view.lines[1]
  local items = {}
  for _, n in ipairs(view.notes or {}) do
    local flags = n.decision and "decision, " or ""
    if n.stale then
      flags = flags .. "may be stale, "
    end
    table.insert(items, { filename = file, lnum = lnum,
      text = ("note #%s %s (%sby %s)"):format(n.id, n.title, flags, n.author) })
  end
  for _, c in ipairs(view.commits or {}) do
    table.insert(items, { filename = file, lnum = lnum,
      text = ("commit %s %s — %s, %s"):format(c.hash:sub(1, 8), c.subject, c.author, c.date:sub(1, 10)) })
  end
  for _, t in ipairs(view.sessions or {}) do
    table.insert(items, { filename = file, lnum = lnum,
      text = ("session #%s %s (%s)"):format(t.id, t.title, t.updated_at:sub(1, 10)) })
  end
  vim.fn.setqflist({}, " ", { title = "nano-brain: why " .. view.symbol, items = items })
  vim.cmd("copen")
end

function M.wake_up()
  exec("nano-brain.wakeUp", { uri = vim.uri_from_bufnr(0) }, function(result)
    vim.notify(result and result.text or "nano-brain: nothing yet")
  end)
end

return M
