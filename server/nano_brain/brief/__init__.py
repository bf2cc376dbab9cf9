"""Briefs: the memory an agent reads inside its own loop, and the agents' hook formats.

- `briefs`: the session-start, before-edit and prompt briefs (`Briefs`);
- `edits`: the files and lines an agent's edit touches;
- `hookio`: agents' hook inputs and outputs (`parse`, `answer`);
- `profile`: a workspace's hook settings, kept so a hook process loads no config;
- `render`: briefs as Markdown with each item's origin;
- `sidecar`: the same briefs answered by a running sidecar (a search by meaning for prompts).

Nothing at import time: a hook process imports only the modules it runs.
"""
