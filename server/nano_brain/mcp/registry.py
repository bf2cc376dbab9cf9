"""How an MCP tool is declared once and served by every transport.

A tool is a `ToolSpec`: pydantic input and output models (they *are* the JSON schemas the
client sees, bounds included), a description that tells an agent when to call it, MCP hints,
and a plain synchronous handler that calls into the workspace (a
:class:`~nano_brain.workspace.Workspace`). A family of tools lives in one module exposing
`register(registry)`; the server loads the modules listed in `BUILTIN_TOOL_MODULES`, so adding
the code-index tools is one module (`tools_code.py`) and one line here.

Validation, error reporting and result shaping happen here, not in handlers, so every tool
answers bad input the same way: `isError` with a one-line message and nothing written.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import mcp_types as types
from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import InvalidInputError, NanoBrainError
from ..fields import PATTERN_RULES
from ..workspace import Workspace

log = logging.getLogger(__name__)

BUILTIN_TOOL_MODULES: tuple[str, ...] = ("nano_brain.mcp.tools_memory", "nano_brain.mcp.tools_code")
"""Modules whose `register(registry)` adds the server's tools (code-index tools: add
`nano_brain.mcp.tools_code` when it exists)."""

In = TypeVar("In", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel)
Handler = Callable[[Workspace, Any], BaseModel]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its wire contract (name, schemas, hints) and the handler behind it."""

    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    handler: Handler
    read_only: bool
    destructive: bool = False
    idempotent: bool = True
    render: Callable[[Any], str] | None = None
    """Text content for the result; default: the structured result as JSON."""
    notice: Callable[[Any], str] | None = None
    """A line about the result an agent must not miss (a search made while vectors are still
    being computed), sent as a second text block when not empty: the first stays the JSON."""

    def to_mcp(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_model.model_json_schema(),
            output_schema=self.output_model.model_json_schema(mode="serialization"),
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.read_only,
                destructive_hint=self.destructive,
                idempotent_hint=self.idempotent,
                open_world_hint=False,
            ),
        )


class StrictInput(BaseModel):
    """Base of every tool's input model: unknown arguments and loose types are errors.

    Strict: `true` or `"10"` is no integer and `"yes"` no boolean. A client that sends the
    wrong JSON type has a bug it should hear about, not a guess made for it.
    """

    model_config = ConfigDict(extra="forbid", strict=True)


class ToolModule(Protocol):
    def register(self, registry: ToolRegistry) -> None: ...


class ToolRegistry:
    """The tools one server offers, in registration order."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self._tools:
            raise ValueError(f"tool {spec.name!r} is registered twice")
        self._tools[spec.name] = spec

    def tool(
        self,
        name: str,
        *,
        title: str,
        input: type[In],
        output: type[Out],
        read_only: bool,
        destructive: bool = False,
        idempotent: bool = True,
        render: Callable[[Out], str] | None = None,
        notice: Callable[[Out], str] | None = None,
    ) -> Callable[[Callable[[Workspace, In], Out]], Callable[[Workspace, In], Out]]:
        """Register a handler; its docstring is the description the agent reads."""

        def decorator(func: Callable[[Workspace, In], Out]) -> Callable[[Workspace, In], Out]:
            description = " ".join((func.__doc__ or "").split())
            if not description:
                raise ValueError(f"tool {name!r} needs a docstring: it is the agent's guide")
            self.add(
                ToolSpec(
                    name=name,
                    title=title,
                    description=description,
                    input_model=input,
                    output_model=output,
                    handler=func,
                    read_only=read_only,
                    destructive=destructive,
                    idempotent=idempotent,
                    render=render,
                    notice=notice,
                )
            )
            return func

        return decorator

    def specs(self) -> list[ToolSpec]:
        return list(self._tools.values())

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def call(
        self, workspace: Workspace, name: str, arguments: Mapping[str, Any] | None
    ) -> types.CallToolResult:
        """Validate, run and shape one call; every failure becomes an `isError` result."""
        spec = self._tools.get(name)
        if spec is None:
            return error_result(f"unknown tool {name!r}; call tools/list for the tools offered")
        try:
            params = spec.input_model.model_validate(dict(arguments or {}))
        except ValidationError as exc:
            return error_result(f"{name}: invalid arguments: {describe_validation_error(exc)}")
        try:
            result = spec.handler(workspace, params)
        except NanoBrainError as exc:
            return error_result(f"{name}: {_one_line(str(exc))}")
        except ValidationError as exc:  # a request model built inside the handler
            return error_result(f"{name}: invalid arguments: {describe_validation_error(exc)}")
        except Exception as exc:  # a bug, not the caller's fault: log it, say little
            log.exception("tool %s failed", name)
            return error_result(f"{name}: internal error ({type(exc).__name__}); see server log")
        structured = result.model_dump(mode="json")
        text = spec.render(result) if spec.render else json.dumps(structured, ensure_ascii=False)
        notice = spec.notice(result) if spec.notice else ""
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=t) for t in (text, notice) if t],
            structured_content=structured,
        )


def error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def describe_validation_error(exc: ValidationError) -> str:
    """The first problem as `field: message` on one line (pydantic's text spans many)."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    where = ".".join(_loc_part(p) for p in first["loc"]) or "arguments"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown argument"
    elif first["type"] == "string_pattern_mismatch":
        rule = PATTERN_RULES.get(str(first.get("ctx", {}).get("pattern")))
        message = f"must be {rule}" if rule else message
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return _one_line(f"{where}: {message}{more}")


def _loc_part(part: object) -> str:
    """A path element of the error (a client's dict key may hold anything): escaped, short."""
    text = str(part)
    if not text.isprintable():
        text = repr(text)[1:-1]
    return text if len(text) <= 60 else text[:59] + "…"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def load_registry(modules: Iterable[str] = BUILTIN_TOOL_MODULES) -> ToolRegistry:
    """A registry filled by each module's `register(registry)`, in order."""
    registry = ToolRegistry()
    for name in modules:
        try:
            module: ToolModule = importlib.import_module(name)
        except ImportError as exc:
            raise InvalidInputError(f"cannot load MCP tool module {name!r}: {exc}") from exc
        if not callable(getattr(module, "register", None)):
            raise InvalidInputError(f"MCP tool module {name!r} has no register(registry)")
        module.register(registry)
    return registry
