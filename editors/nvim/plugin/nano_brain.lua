-- Only user commands here; the module loads on first use (require is lazy).
if vim.g.loaded_nano_brain then
  return
end
vim.g.loaded_nano_brain = true

local function nb()
  return require("nano_brain")
end

vim.api.nvim_create_user_command("NanoBrainSave", function(o)
  nb().save(o.line1, o.line2, o.args)
end, { range = true, nargs = "?", desc = "nano-brain: save the selected lines as a note" })

vim.api.nvim_create_user_command("NanoBrainDecision", function(o)
  nb().decision(o.line1, o.line2, o.args)
end, { range = true, nargs = "?", desc = "nano-brain: record a decision" })

vim.api.nvim_create_user_command("NanoBrainSearch", function(o)
  nb().search(o.args)
end, { nargs = "?", desc = "nano-brain: search memory (vim.ui.select)" })

vim.api.nvim_create_user_command("NanoBrainSupersede", function(o)
  nb().supersede(o.line1, o.line2, o.fargs[1], table.concat(vim.list_slice(o.fargs, 2), " "))
end, { range = true, nargs = "+", desc = "nano-brain: supersede a note" })

vim.api.nvim_create_user_command("NanoBrainWakeUp", function()
  nb().wake_up()
end, { desc = "nano-brain: what this workspace remembers" })

vim.api.nvim_create_user_command("NanoBrainWhy", function(o)
  nb().why(o.args, o.bang)
end, {
  nargs = "?",
  bang = true,
  desc = "nano-brain: why is this code like this (! = quickfix list)",
})
