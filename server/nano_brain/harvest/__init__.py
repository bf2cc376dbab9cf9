"""Session harvesting: agent transcripts -> normalized sessions -> redacted digests.

Parsers read transcripts (never write them), `digest` turns a session into a deterministic
Markdown summary plus search text, `redact` scrubs secrets, `summarize` optionally asks an
OpenAI-compatible endpoint for the summary, and `harvester` stores the summaries in a Brain,
incrementally (a stat per unchanged session), stickily (tombstones) and on file events.
"""

from ..redact import Redaction, redact, redact_text
from ._files import ReadLimits, fingerprint
from .config import HarvestConfig, load_harvest_config
from .digest import Digest, ErrorNote, build_digest, conversation_text
from .harvester import Harvester
from .model import (
    AGENTS,
    Message,
    Session,
    SessionSource,
    SourceInfo,
    ToolCall,
    TranscriptError,
)
from .report import HarvestItem, HarvestReport
from .sources import HarvestLocations, discover_sessions, load_session
from .summarize import (
    DigestSummarizer,
    OpenAISummarizer,
    Summarizer,
    Summary,
    create_summarizer,
)

__all__ = [
    "AGENTS",
    "Digest",
    "DigestSummarizer",
    "ErrorNote",
    "HarvestConfig",
    "HarvestItem",
    "HarvestLocations",
    "HarvestReport",
    "Harvester",
    "Message",
    "OpenAISummarizer",
    "ReadLimits",
    "Redaction",
    "Session",
    "SessionSource",
    "SourceInfo",
    "Summarizer",
    "Summary",
    "ToolCall",
    "TranscriptError",
    "build_digest",
    "conversation_text",
    "create_summarizer",
    "discover_sessions",
    "fingerprint",
    "load_harvest_config",
    "load_session",
    "redact",
    "redact_text",
]
