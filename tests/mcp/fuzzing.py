"""Hypothesis strategies for MCP tool arguments: values that fit a tool's input JSON schema,
and hostile variants of them (wrong types, control characters, sizes at and past the bound,
deep nesting, unknown and missing keys).

Only the schema features our tools use are understood (object, array, string with length and
pattern, integer with bounds, boolean, null, enum, anyOf); anything else fails loudly, so a
new kind of schema is noticed here rather than fuzzed blindly.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

MAX_TEXT = 20_000
"""Longest string generated: long enough to cross every bound but content's, short enough
that embedding it stays quick."""

# Text over the whole of Unicode that UTF-8 can carry (no lone surrogates: the SDK client
# cannot encode them, and the raw-bytes stdio test covers them on the wire).
ANY_CHAR = st.characters(codec="utf-8")

INTERESTING_TEXT = [
    "7d", "24h", "0s", "1y", "2w", "9998y", "99999999999d", "1e3d", "-7d",
    "2024-05-01", "2024-05-01T12:00:00Z", "2024-05-01T12:00:00+25:00", "0001-01-01T00:00:00Z",
    "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-01:00",
    "10000-01-01", "memory", "decisions", "sessions", "note", "code", "#", "#0", "##",
    "\x00", "a\x00b", "\ufeff", "\ufeffBOM title", "\u202eevil", " ", "\t", "\n", "\r\n",
    "../../etc/passwd", "/abs/path.md", "C:\\win\\path", "'; DROP TABLE documents; --",
    '"quoted"', "NEAR(a b)", "a OR b", "col:val", "*", "^", "a AND NOT b", "\\", "%s%n",
    "\U0001f600" * 20, "ünïcödé", "x" * 65, "tag,with,commas", "two words",
]  # fmt: skip
"""Strings that sit on an edge of some rule (times, names, FTS syntax, encodings)."""

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(ANY_CHAR, max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(ANY_CHAR, max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


edge_ints = st.sampled_from(
    [0, -1, 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, True, False, 1.5, 10.0, "10", None]
)


def from_schema(schema: dict[str, Any], known: list[str]) -> st.SearchStrategy[Any]:
    """Values valid for `schema` (`known` adds real document refs to free strings)."""
    if "anyOf" in schema:
        return st.one_of([from_schema(s, known) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "string":
        return _strings(schema, known)
    if kind == "array":
        items = from_schema(schema["items"], known)
        return st.lists(items, max_size=min(schema.get("maxItems", 5), 5))
    if kind == "object":
        if "properties" in schema:
            return _objects(schema, known)
        keys = _strings({"type": "string", **schema.get("propertyNames", {})}, [])
        return st.dictionaries(keys, json_values, max_size=min(schema.get("maxProperties", 5), 5))
    raise AssertionError(f"schema feature not understood by the fuzzer: {schema}")


def _strings(schema: dict[str, Any], known: list[str]) -> st.SearchStrategy[str]:
    low, high = schema.get("minLength", 0), min(schema.get("maxLength", 200), 200)
    pattern = schema.get("pattern")
    if pattern:
        base = st.from_regex(pattern, fullmatch=True, alphabet=ANY_CHAR)
    else:
        base = st.text(ANY_CHAR, min_size=low, max_size=high)
    options = [base]
    for extra in (INTERESTING_TEXT, known):
        fitting = [s for s in extra if _fits(s, schema)]
        if fitting:
            options.append(st.sampled_from(fitting))
    return st.one_of(options).filter(lambda s: _fits(s, schema))


def _fits(text: str, schema: dict[str, Any]) -> bool:
    if not schema.get("minLength", 0) <= len(text) <= schema.get("maxLength", 10**9):
        return False
    pattern = schema.get("pattern")
    return pattern is None or re.fullmatch(pattern.strip("^$"), text) is not None


def _objects(schema: dict[str, Any], known: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    props = schema["properties"]
    required = set(schema.get("required", []))
    return st.fixed_dictionaries(
        {k: from_schema(v, known) for k, v in props.items() if k in required},
        optional={k: from_schema(v, known) for k, v in props.items() if k not in required},
    )


def _at_bound(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Strings exactly at and one past their length bound, numbers at and past theirs."""
    options: list[Any] = []
    for sub in schema.get("anyOf", [schema]):
        if sub.get("type") == "string" and "maxLength" in sub:
            n = min(sub["maxLength"], MAX_TEXT)
            options += ["x" * n, "x" * (n + 1), "é" * n, "\U0001f600" * (n // 2 + 1)]
        if sub.get("type") == "integer":
            for bound in ("minimum", "maximum"):
                if bound in sub:
                    options += [sub[bound], sub[bound] + (1 if bound == "maximum" else -1)]
    return st.sampled_from(options) if options else st.nothing()


def hostile_value(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        json_values,
        edge_ints,
        st.sampled_from(INTERESTING_TEXT),
        st.text(ANY_CHAR, min_size=1, max_size=80),
        st.sampled_from([17, 60, 199, 250]).map(nested),
        st.integers(0, 3).map(lambda n: ["\x00" * (n + 1)]),
        _at_bound(schema),
    )


def tool_arguments(schema: dict[str, Any], known: list[str]) -> st.SearchStrategy[dict]:
    """Valid arguments half the time; otherwise valid ones with one to three hostile changes."""
    valid = from_schema(schema, known)
    props: dict[str, Any] = schema.get("properties", {})
    changes: list[st.SearchStrategy[tuple[str, Any]]] = [
        st.tuples(
            st.text(ANY_CHAR, min_size=1, max_size=20).filter(lambda k: k not in props),
            json_values,
        ).map(lambda kv: ("add", kv)),
    ]
    if props:
        changes.append(
            st.sampled_from(sorted(props)).flatmap(
                lambda key: hostile_value(props[key]).map(lambda v: ("set", (key, v)))
            )
        )
        changes.append(st.sampled_from(sorted(props)).map(lambda key: ("drop", (key, None))))

    def apply(args: dict[str, Any], edits: list[tuple[str, tuple[str, Any]]]) -> dict:
        out = dict(args)
        for op, (key, value) in edits:
            if op == "drop":
                out.pop(key, None)
            else:
                out[key] = value
        return out

    mutated = st.builds(apply, valid, st.lists(st.one_of(changes), min_size=1, max_size=3))
    return st.one_of(valid, mutated)
