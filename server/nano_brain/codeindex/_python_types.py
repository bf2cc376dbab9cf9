"""Types written in Python source text, read without inference: the calls a receiver makes
(``Cls(...)`` in ``Cls(...).m()``) and what a function declares it returns (``-> Cls``).

Pure string functions; the resolver decides what the names denote.
"""

from __future__ import annotations

#: Spellings of ``typing.Self``: the class the method was called on.
SELF_TYPES = frozenset({"Self", "typing.Self", "typing_extensions.Self"})


def call_chain(receiver: str) -> list[str] | None:
    """The names a receiver calls when it is calls and nothing else, outermost first:
    ``["Cls"]`` for ``Cls(1, f(x))``, ``["mod.Cls", "copy"]`` for ``mod.Cls().copy()``; None
    for ``x[0]()``, ``f()()``, ``Cls().attr``, or a receiver cut short inside a call."""
    names: list[str] = []
    at = 0
    while at < len(receiver):
        open_at = receiver.find("(", at)
        if open_at < 0:
            return None
        name = receiver[at:open_at]
        if names:  # a method of what the previous call returned: `.m(...)`
            name = name[1:] if name.startswith(".") else ""
            if not name.isidentifier():
                return None
        elif not _is_dotted(name):
            return None
        close_at = _closing_paren(receiver, open_at)
        if close_at < 0:
            return None
        names.append(name)
        at = close_at + 1
    return names or None


def return_annotation(signature: str) -> str | None:
    """The return type a ``def`` signature declares when it is a plain (possibly quoted)
    dotted name: ``Cls``, ``"Cls"``, ``m.Cls``; None for ``X | None``, ``list[X]``, none,
    or an ``async def`` (calling it makes a coroutine)."""
    params_end = signature.rfind(")")
    if params_end < 0 or signature.startswith("async"):
        return None
    _, arrow, annotation = signature[params_end:].partition("->")
    if not arrow:
        return None
    text = annotation.strip()
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        text = text[1:-1].strip()
    return text if _is_dotted(text) else None


def _is_dotted(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def _closing_paren(text: str, open_at: int) -> int:
    """Index of the parenthesis closing the one at ``open_at`` (-1 if none); brackets and
    quoted strings inside are skipped over."""
    depth = 0
    quote = ""
    i = open_at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i if ch == ")" else -1
        i += 1
    return -1
