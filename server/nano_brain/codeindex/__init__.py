"""The code index's parsing core: source files to symbols and edges, resolved across a workspace.

The parsing core is pure library code (no database): :func:`parse_file` reads one file,
:class:`CodeGraph` resolves the calls of a whole workspace, :func:`walk_workspace` and
:func:`scan_changes` find what to (re)index. :class:`CodeIndex` (``CodeIndex(brain)``) persists
all of it in the workspace store, incrementally, and answers symbols/callers/callees/impact
and code search for every front end.
"""

from __future__ import annotations

from ._changes import ChangedFile, Changes, FileState, WalkResult, scan_changes, walk_workspace
from ._route_service import MAX_FLOW_DEPTH, FlowStep, RouteFlow, RouteInfo, Routes
from .errors import CodeIndexError, GrammarMissingError, UnsupportedLanguageError
from .indexer import IndexReport
from .languages import (
    code_extensions,
    get_language,
    get_parser,
    is_available,
    language_for_path,
    supported_languages,
)
from .model import CallSite, FileIndex, ImportEdge, Symbol
from .parse import SEARCH_TEXT_CAP, parse_file
from .resolve import CodeGraph, ImpactEntry, Reference, build_graph
from .service import AnchorInfo, CallInfo, CodeIndex, Impact, ImpactItem, SymbolInfo
from .walk import DEFAULT_MAX_BYTES, DEFAULT_SKIP_DIRS, SkippedFile, WalkedFile, iter_workspace

__all__ = [
    "MAX_FLOW_DEPTH",
    "AnchorInfo",
    "CallInfo",
    "FlowStep",
    "RouteFlow",
    "RouteInfo",
    "Routes",
    "CodeIndex",
    "Impact",
    "ImpactItem",
    "IndexReport",
    "SymbolInfo",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_SKIP_DIRS",
    "SEARCH_TEXT_CAP",
    "CallSite",
    "ChangedFile",
    "Changes",
    "CodeGraph",
    "CodeIndexError",
    "FileIndex",
    "FileState",
    "GrammarMissingError",
    "ImpactEntry",
    "ImportEdge",
    "Reference",
    "SkippedFile",
    "Symbol",
    "UnsupportedLanguageError",
    "WalkResult",
    "WalkedFile",
    "build_graph",
    "code_extensions",
    "get_language",
    "get_parser",
    "is_available",
    "iter_workspace",
    "language_for_path",
    "parse_file",
    "scan_changes",
    "supported_languages",
    "walk_workspace",
]
