"""The SQLite dialect: one file per workspace (FTS5 + sqlite-vec); also the code index."""
