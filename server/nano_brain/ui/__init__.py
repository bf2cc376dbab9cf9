"""The memory page: `nano-brain ui` in a browser, and the same bundle in the VS Code webview.

`app` is the ASGI app (static bundle + JSON API behind the MCP server's Host/Origin/token
guard), `views` what each view reads, `session` how the page gets the token, `server` the
loopback listener. The bundle in `static/` is built from vscode-extension/webview/ by
`npm run build:ui` and committed, so an install from a checkout or a wheel needs no Node.
"""
