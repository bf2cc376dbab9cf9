"""A bare date as an upper bound (as-of, created-before, updated-before) means the end of that
day, UTC, on every surface; as a lower bound (created-after) it means its start."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nano_brain.mcp.tools_memory import QueryInput
from nano_brain.search import SearchRequest
from nano_brain.timeutil import MAX_EPOCH, parse_instant

from .test_cli import run

DAY = 86400


def test_a_date_as_an_upper_bound_is_the_end_of_that_day() -> None:
    start = parse_instant("2026-12-03")
    assert start == datetime(2026, 12, 3, tzinfo=UTC).timestamp()
    end = parse_instant("2026-12-03", upper=True)
    assert start + DAY - 0.001 < end < start + DAY
    # anything with a time of day, or an age, is that instant either way
    for text in ("2026-12-03T10:00:00Z", "2026-12-03T10:00", "7d"):
        assert parse_instant(text, upper=True, now=1e9) == parse_instant(text, now=1e9)
    assert parse_instant("9999-12-31", upper=True) == MAX_EPOCH


def test_search_requests_read_upper_bounds_as_the_end_of_the_day() -> None:
    """The one request every front end builds (CLI, MCP, the page's search)."""
    filters = SearchRequest(
        query="x",
        created_after="2026-12-03",
        created_before="2026-12-03",
        updated_before="2026-12-03",
        as_of="2026-12-03",
    ).filters()
    midnight = datetime(2026, 12, 3, tzinfo=UTC).timestamp()
    assert filters.created_after == midnight
    for bound in (filters.created_before, filters.updated_before, filters.as_of):
        assert bound is not None and midnight + DAY - 0.001 < bound < midnight + DAY


def test_the_mcp_schema_says_so() -> None:
    schema = json.dumps(QueryInput.model_json_schema()["properties"])
    for name in ("created_before", "updated_before", "as_of"):
        field = json.dumps(QueryInput.model_json_schema()["properties"][name])
        assert "end of that day" in field, (name, field)
    assert "UTC" in schema


@pytest.mark.parametrize("command", ["search", "query", "vsearch"])
def test_every_upper_bound_option_says_so_in_its_help(workspace: Path, command: str) -> None:
    text = " ".join(run(workspace, command, "--help").stdout.decode().split())
    for option in ("--created-before", "--updated-before", "--as-of"):
        help_of = text.split(option, 1)[1].split(" --", 1)[0]
        assert "end of that day" in help_of and "UTC" in help_of, (option, help_of)
    after = text.split("--created-after", 1)[1].split(" --", 1)[0]
    assert "start of that day" in after, after


def test_a_note_written_today_is_found_by_todays_date(workspace: Path) -> None:
    out = run(workspace, "write", "Ship the cafeteria menu on Fridays.", "--json")
    assert out.returncode == 0, out.stderr
    created = json.loads(out.stdout)["document"]["created_at"]
    day = datetime.fromisoformat(created.replace("Z", "+00:00")).date()
    today, yesterday = day.isoformat(), (day - timedelta(days=1)).isoformat()

    def found(*options: str) -> int:
        out = run(workspace, "search", "cafeteria", *options, "--json")
        assert out.returncode == 0, out.stderr
        return len(json.loads(out.stdout)["results"])

    assert found("--as-of", today) == 1
    assert found("--created-before", today) == 1
    assert found("--updated-before", today) == 1
    assert found("--created-after", today) == 1  # from that day's midnight on
    assert found("--created-before", yesterday) == 0
    assert found("--as-of", yesterday) == 0
    tomorrow = (day + timedelta(days=1)).isoformat()
    assert found("--created-after", tomorrow) == 0
