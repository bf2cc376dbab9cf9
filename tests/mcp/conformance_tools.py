"""The fixture tool the conformance suite's `json-schema-2020-12` scenario looks for.

That scenario checks one tool by name (`json_schema_2020_12_tool`) for `$schema`, `$defs`
and `additionalProperties` surviving tools/list. The tests load this module into
`nano-brain serve` through the hidden `--extra-tools` option, which is also how a second
family of tools (e.g. `tools_code`) plugs into the registry.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from nano_brain.mcp.registry import ToolRegistry, ToolSpec
from nano_brain.workspace import Workspace

SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"


class Address(BaseModel):
    street: str | None = None
    city: str | None = None


class FixtureInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    address: Address | None = None

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The scenario's schema verbatim (pydantic would name the definition `Address`)."""
        return {
            "$schema": SCHEMA_2020_12,
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                }
            },
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": False,
        }


class FixtureOutput(BaseModel):
    received: dict[str, Any]


def _echo(workspace: Workspace, params: FixtureInput) -> FixtureOutput:
    return FixtureOutput(received=params.model_dump(exclude_none=True))


def register(registry: ToolRegistry) -> None:
    registry.add(
        ToolSpec(
            name="json_schema_2020_12_tool",
            title="JSON Schema 2020-12 fixture",
            description="Tool with JSON Schema 2020-12 features (conformance fixture).",
            input_model=FixtureInput,
            output_model=FixtureOutput,
            handler=_echo,
            read_only=True,
        )
    )
