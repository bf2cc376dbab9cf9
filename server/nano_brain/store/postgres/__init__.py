"""The PostgreSQL dialect: a team's shared memory (pgvector, full-text search, row-level
security). Imported only when a store URL is configured (psycopg is loaded here)."""
