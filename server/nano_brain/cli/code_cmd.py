"""Code index commands: index, symbols, callers, callees, impact."""
