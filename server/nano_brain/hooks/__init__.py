"""Agent hooks: the memory an agent gets inside its own loop (session start, before an edit, on a prompt, at the end), and their installation into agents' settings."""
