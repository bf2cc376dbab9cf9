"""Session harvesting: agent transcripts -> normalized sessions -> redacted digests.

Pure library code: parsers read transcripts (never write them), `digest` turns a session
into a deterministic Markdown summary plus search text, `redact` scrubs secrets. Storing,
watching and incremental bookkeeping live with the Brain.
"""

from .digest import Digest, ErrorNote, build_digest, conversation_text
from .model import (
    AGENTS,
    Message,
    Session,
    SessionSource,
    SourceInfo,
    ToolCall,
    TranscriptError,
    fingerprint,
)
from .redact import Redaction, redact, redact_text
from .sources import HarvestLocations, discover_sessions, load_session

__all__ = [
    "AGENTS",
    "Digest",
    "ErrorNote",
    "HarvestLocations",
    "Message",
    "Redaction",
    "Session",
    "SessionSource",
    "SourceInfo",
    "ToolCall",
    "TranscriptError",
    "build_digest",
    "conversation_text",
    "discover_sessions",
    "fingerprint",
    "load_session",
    "redact",
    "redact_text",
]
