"""What the HTTP front ends share, below them and above the services.

`security`: the workspace's bearer token, the Host/Origin/token guard and the bind policy;
`statefiles`: the private files a running server leaves in the workspace's state folder;
`http`: listening sockets, uvicorn, and serving until stopped. The MCP server (`nano-brain
serve`, the editor sidecar) and the memory page (`nano-brain ui`) both run on these. Nothing
is imported here: uvicorn and starlette load only with the module that needs them.
"""
