"""Which grammar parses which file, loaded from the per-language PyPI wheels.

Grammars are never downloaded at run time (see the deps notes): each language is one small
wheel exposing a ``language()`` capsule. Loading is lazy and cached, so a workspace with only
Python files never imports the Rust grammar, and a missing wheel only fails the files that
need it.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import threading
from pathlib import PurePath

import tree_sitter

from .errors import GrammarMissingError, UnsupportedLanguageError

log = logging.getLogger(__name__)

#: language name -> (module, function returning the grammar capsule, pip package)
_GRAMMARS: dict[str, tuple[str, str, str]] = {
    "python": ("tree_sitter_python", "language", "tree-sitter-python"),
    "javascript": ("tree_sitter_javascript", "language", "tree-sitter-javascript"),
    "typescript": ("tree_sitter_typescript", "language_typescript", "tree-sitter-typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx", "tree-sitter-typescript"),
    "go": ("tree_sitter_go", "language", "tree-sitter-go"),
    "rust": ("tree_sitter_rust", "language", "tree-sitter-rust"),
    "java": ("tree_sitter_java", "language", "tree-sitter-java"),
    "ruby": ("tree_sitter_ruby", "language", "tree-sitter-ruby"),
}

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".rb": "ruby",
    ".rake": "ruby",
}

_FILENAMES: dict[str, str] = {"Rakefile": "ruby", "Gemfile": "ruby"}

_local = threading.local()


def supported_languages() -> tuple[str, ...]:
    """Every language the code index has rules for (whether or not its wheel is installed)."""
    return tuple(_GRAMMARS)


def code_extensions() -> frozenset[str]:
    """File suffixes (with the dot) that map to a language."""
    return frozenset(_EXTENSIONS)


def language_for_path(path: str | PurePath) -> str | None:
    """The language of a file by its name, or None when it is not source code we parse."""
    # os.path, not PurePath: the walk asks this for every file of the workspace
    name = os.path.basename(os.fspath(path))
    if name in _FILENAMES:
        return _FILENAMES[name]
    return _EXTENSIONS.get(os.path.splitext(name)[1].lower())


@functools.cache
def get_language(name: str) -> tree_sitter.Language:
    """The tree-sitter grammar for ``name``; raises GrammarMissingError if its wheel is absent."""
    try:
        module_name, func, package = _GRAMMARS[name]
    except KeyError:
        raise UnsupportedLanguageError(f"no code-index rules for language {name!r}") from None
    try:
        module = importlib.import_module(module_name)
        return tree_sitter.Language(getattr(module, func)())
    except (ImportError, AttributeError, ValueError) as exc:
        # ValueError: the wheel's ABI is outside what this tree-sitter runtime accepts.
        raise GrammarMissingError(
            f"the {name} grammar is unavailable ({exc}); install it with `pip install {package}`"
        ) from exc


def is_available(name: str) -> bool:
    """Whether ``name``'s grammar loads here; lets callers skip a language instead of failing."""
    try:
        get_language(name)
    except GrammarMissingError:
        return False
    return True


def get_parser(name: str) -> tree_sitter.Parser:
    """A parser for ``name``, one per thread (tree-sitter parsers are not thread-safe)."""
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(name)
    if parser is None:
        parser = parsers[name] = tree_sitter.Parser(get_language(name))
    return parser
