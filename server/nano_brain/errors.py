"""The one exception tree of nano-brain; front ends turn these into messages and exit codes."""

from __future__ import annotations


class NanoBrainError(Exception):
    """Base of every error nano-brain raises on purpose."""

    exit_code = 1


class InvalidInputError(NanoBrainError):
    """The caller's input is malformed or out of bounds; nothing was written."""

    exit_code = 2


class NotFoundError(NanoBrainError):
    """A document, symbol or other named thing does not exist in this workspace."""

    exit_code = 3


class StoreError(NanoBrainError):
    """The store cannot be opened, read or written (corrupt, unreadable, locked)."""

    exit_code = 4


class StoreReadOnlyError(StoreError):
    """A write to a store this process may only read (its file or folder is not writable)."""


class StoreCorruptError(StoreError):
    """The store file is damaged or is not a nano-brain store; nothing is written to it."""


class EmbeddingError(NanoBrainError):
    """An embedding provider failed or is misconfigured (missing model, endpoint down)."""

    exit_code = 5


class ModelMismatchError(EmbeddingError):
    """The store's vectors come from a different model than the configured one."""


class TombstonedError(NanoBrainError):
    """The source was deleted by the user; deriving it again is refused until `unforget`."""

    exit_code = 6
