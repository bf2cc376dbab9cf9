"""The page's JSON API against a real `nano-brain ui`: the guard, the one-time code, every
view's data (checked against the fixture's input) and the review actions, audited as `ui`."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..mcp.conftest import make_env
from .conftest import DAY, T0, Fixture, UiServer, run_ui, start_ui

pytestmark = pytest.mark.timeout(600)


def test_the_page_refuses_requests_without_the_token_or_from_a_foreign_origin(
    ui: UiServer,
) -> None:
    token = ui.page_token()
    with ui.http(token=None) as anonymous:
        missing = anonymous.get("/api/info")
        assert missing.status_code == 401 and "Bearer" in missing.headers["www-authenticate"]
        wrong = anonymous.get("/api/info", headers={"Authorization": f"Bearer {token[:-1]}x"})
        assert wrong.status_code == 401
        for path in ("/api/search", "/api/documents/0123456789ab/confirm", "/api/code"):
            assert anonymous.post(path, json={"query": "x"}).status_code == 401
    with ui.http() as http:
        assert http.get("/api/info").status_code == 200
        foreign = http.get("/api/info", headers={"Origin": "http://evil.example.com"})
        assert foreign.status_code == 403
        rebinding = http.get("/api/info", headers={"Host": "evil.example.com"})
        assert rebinding.status_code == 421
        # the public page itself is guarded by Host and Origin too
        assert http.get("/", headers={"Host": "evil.example.com:80"}).status_code == 421
        assert http.get("/", headers={"Origin": "https://evil.example.com"}).status_code == 403
        assert http.get("/api/info", headers={"Origin": ui.url.rstrip("/")}).status_code == 200


def test_the_one_time_code_gives_a_page_token_once(ui: UiServer) -> None:
    code = ui.endpoint["open_url"].split("#code=", 1)[1]
    assert ui.token() not in ui.endpoint["open_url"]
    with ui.http(token=None) as anonymous:
        first = anonymous.post("/api/session", json={"code": code})
        assert first.status_code == 200 and set(first.json()) == {"token"}
        page_token = first.json()["token"]
        assert page_token != ui.token()  # the page's own, not the workspace's MCP token
        assert anonymous.get("/api/info", headers=_bearer(page_token)).status_code == 200
        again = anonymous.post("/api/session", json={"code": code})
        assert again.status_code == 403 and "already used" in again.json()["error"]
        # two presentations of one code: the session it opened is over
        assert anonymous.get("/api/info", headers=_bearer(page_token)).status_code == 401
        assert anonymous.post("/api/session", json={"code": "guess"}).status_code == 403
        form = anonymous.post(
            "/api/session",
            content=f"code={code}",
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert form.status_code == 400
        foreign = anonymous.post(
            "/api/session", json={"code": code}, headers={"Origin": "http://evil.example.com"}
        )
        assert foreign.status_code == 403
    with ui.http(token=ui.token()) as cli:  # as a second `nano-brain ui` asks
        fresh = cli.post("/api/code").json()["code"]
    with ui.http(token=None) as anonymous:
        token = anonymous.post("/api/session", json={"code": fresh}).json()["token"]
        assert token != ui.token()
        assert anonymous.get("/api/info", headers=_bearer(token)).status_code == 200


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_page_is_served_with_a_strict_policy(ui: UiServer) -> None:
    with ui.http(token=None) as anonymous:
        page = anonymous.get("/")
        assert page.status_code == 200 and '<div id="app">' in page.text
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        for directive in ("frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"):
            assert directive in policy
        assert page.headers["referrer-policy"] == "no-referrer"
        script = anonymous.get("/assets/app.js")
        assert script.status_code == 200 and script.headers["content-type"].startswith(
            "text/javascript"
        )
        assert "/api/session" in script.text  # the bundle that trades the code
        assert anonymous.get("/assets/../app.py").status_code == 404
        assert anonymous.get("/assets/nothing.js").status_code == 404


def test_bad_requests_get_a_clear_error_and_change_nothing(ui: UiServer, built) -> None:
    fx: Fixture = built[1]
    with ui.http() as http:
        before = http.get("/api/log", params={"limit": 1}).json()["entries"]
        big = http.post("/api/search", json={"query": "x" * 70_000})
        assert big.status_code == 413
        not_json = http.post(
            "/api/search", content=b"{", headers={"content-type": "application/json"}
        )
        assert not_json.status_code == 400 and "JSON" in not_json.json()["error"]
        unknown = http.post("/api/search", json={"query": "x", "wildcard": True})
        assert unknown.status_code == 400 and "wildcard" in unknown.json()["error"]
        bad_time = http.post("/api/search", json={"query": "x", "created_after": "yesterday-ish"})
        assert bad_time.status_code == 400 and "invalid time" in bad_time.json()["error"]
        assert http.get("/api/documents/nothex").status_code == 400
        assert http.get("/api/documents/0123456789ab").status_code == 404
        both = http.post(
            f"/api/documents/{fx.ids['day1']}/supersede",
            json={"by": fx.ids["day2"], "replaces": fx.ids["day3"]},
        )
        assert both.status_code == 400
        itself = http.post(
            f"/api/documents/{fx.ids['day1']}/supersede", json={"by": fx.ids["day1"]}
        )
        assert itself.status_code == 400 and "itself" in itself.json()["error"]
        assert http.get("/api/review", params={"limit": "0"}).status_code == 400
        assert (
            http.get(
                f"/api/documents/{fx.ids['versioned']}/diff", params={"from": 1, "to": 9}
            ).status_code
            == 400
        )
        after = http.get("/api/log", params={"limit": 1}).json()["entries"]
    assert after == before


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
SEARCH_KEYS = [
    "query",
    "mode",
    "limit",
    "kind",
    "status",
    "collection",
    "tags",
    "as_of",
    "created_after",
    "include_superseded",
    "explain",
]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    body=st.dictionaries(
        st.sampled_from(SEARCH_KEYS) | st.text(max_size=10), JSON_VALUES, max_size=6
    )
    | JSON_VALUES
)
def test_any_search_body_is_answered_or_refused_never_a_server_error(
    ui: UiServer, body: object
) -> None:
    with ui.http() as http:
        response = http.post(
            "/api/search", content=json.dumps(body), headers={"content-type": "application/json"}
        )
    assert response.status_code in (200, 400), response.text
    assert isinstance(response.json(), dict)


def test_search_applies_every_filter(ui: UiServer, built) -> None:
    fx: Fixture = built[1]
    with ui.http() as http:

        def ids(**body: object) -> list[str]:
            response = http.post("/api/search", json={"mode": "lexical", "limit": 50, **body})
            assert response.status_code == 200, response.text
            return [r["id"] for r in response.json()["results"]]

        invoices = ids(query="invoices")
        assert fx.ids["new_decision"] in invoices
        assert fx.ids["old_decision"] not in invoices  # superseded: hidden by default
        assert fx.ids["old_decision"] in ids(query="invoices", include_superseded=True)
        assert ids(query="invoices", tags=["storage"]) == [fx.ids["new_decision"]]
        days = ids(
            query="invoice batch",
            tags=["ops"],
            created_after="2023-11-16T00:00:00Z",
            created_before="2023-11-18T00:00:00Z",
        )
        assert sorted(days) == sorted(
            fx.ids[f"day{d}"] for d in range(10) if "2023-11-16" <= _day(d) < "2023-11-18"
        )
        assert set(ids(query="agent", status=["unreviewed"])) == fx.unreviewed
        assert ids(query="invoice", kind=["session"]) == []
        assert ids(query="invoice", collection=["nowhere"]) == []
        # as of before the supersede, the old decision was active and found by default
        as_of = ids(query="invoices PDF", as_of="2023-11-18T00:00:00Z")
        assert fx.ids["old_decision"] not in ids(query="invoices PDF")
        assert isinstance(as_of, list)
        explained = http.post(
            "/api/search", json={"query": "tax rate", "explain": True, "track": False}
        ).json()
        assert explained["results"][0]["explain"]


def _day(d: int) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(T0 + d * DAY, datetime.UTC).strftime("%Y-%m-%d")


def test_timeline_counts_documents_per_bucket_and_draws_the_supersede_chain(
    ui: UiServer, built
) -> None:
    fx: Fixture = built[1]
    with ui.http() as http:
        data = http.get("/api/timeline", params={"tag": "ops"}).json()
        # nine days: the smallest bucket with fewer than 160 of them is six hours
        assert data["total"] == 10 and data["unit"] == "6 hours" and data["width"] == 6 * 3600
        starts = {data["origin"] + b["i"] * data["width"]: b["count"] for b in data["buckets"]}
        # one daily note per day, each in the bucket its creation time falls in
        assert starts == {T0 + d * DAY - (T0 + d * DAY) % (6 * 3600): 1 for d in range(10)}
        assert data["points"] == []  # no decision among the daily notes
        everything = http.get("/api/timeline").json()
        points = {p["id"]: p for p in everything["points"]}
        assert fx.decisions <= set(points)
        assert points[fx.ids["old_decision"]]["superseded_by"] == fx.ids["new_decision"]
        assert points[fx.ids["old_decision"]]["status"] == "superseded"
        assert fx.ids["day3"] not in points
        bucket = http.get(
            "/api/timeline/bucket",
            params={"tag": "ops", "start": T0 + 3 * DAY - 1, "end": T0 + 3 * DAY + 1},
        ).json()
        assert [d["id"] for d in bucket["documents"]] == [fx.ids["day3"]]


def test_document_page_versions_diff_and_anchors(ui: UiServer, built) -> None:
    fx: Fixture = built[1]
    with ui.http() as http:
        page = http.get(f"/api/documents/{fx.ids['versioned']}").json()
        assert [v["version"] for v in page["versions"]] == [1, 2, 3]
        assert "Retry failed charges 4 times." in page["document"]["content"]
        diff = http.get(
            f"/api/documents/{fx.ids['versioned']}/diff", params={"from": 1, "to": 3}
        ).json()
        removed = [line["text"] for line in diff["lines"] if line["op"] == "-"]
        added = [line["text"] for line in diff["lines"] if line["op"] == "+"]
        assert removed == ["Retry failed charges 2 times.", "Back off 10 seconds between tries."]
        assert added == ["Retry failed charges 4 times.", "Back off 30 seconds between tries."]
        discount = http.get(f"/api/documents/{fx.ids['discount_decision']}").json()
        assert discount["anchors"] == [
            {
                "path": "billing.py",
                "symbol": "billing.py::apply_discount",
                "state": "ok",
                "line": 4,
                "end_line": 6,
            }
        ]
        tax = http.get(f"/api/documents/{fx.ids['tax_note']}").json()
        assert [a["state"] for a in tax["anchors"]] == ["changed"]
        old = http.get(f"/api/documents/{fx.ids['old_decision']}").json()
        assert old["superseded_by"]["id"] == fx.ids["new_decision"]
        new = http.get(f"/api/documents/{fx.ids['new_decision']}").json()
        assert [s["id"] for s in new["supersedes"]] == [fx.ids["old_decision"]]
        assert [e["action"] for e in old["events"]][:1] == ["supersede"]


def test_map_counts_anchored_notes_per_file_and_marks_stale_ones(ui: UiServer) -> None:
    with ui.http() as http:
        data = http.get("/api/map").json()
        assert [(f["path"], f["notes"], f["stale"]) for f in data["files"]] == [
            ("billing.py", 2, 1)
        ]
        file = http.get("/api/map/file", params={"path": "billing.py"}).json()
        states = {a["symbol"].split("::")[1]: a["state"] for a in file["anchors"]}
        assert states == {"apply_discount": "ok", "tax": "changed"}


def test_review_actions_change_status_through_the_brain_and_are_audited_as_ui(
    built,
) -> None:
    env, fx = built
    server = start_ui(env)
    try:
        with server.http() as http:
            queue = http.get("/api/review").json()
            assert queue["review"] is True
            assert {d["id"] for d in queue["documents"]} >= fx.unreviewed
            first, second = fx.ids["agent0"], fx.ids["agent1"]
            confirmed = http.post(f"/api/documents/{first}/confirm").json()
            assert confirmed["status"] == "active"
            retracted = http.post(f"/api/documents/{second}/retract", json={"reason": "wrong"})
            assert retracted.json()["status"] == "retracted"
            chain = http.post(
                f"/api/documents/{fx.ids['day8']}/supersede", json={"replaces": fx.ids["day7"]}
            )
            assert chain.status_code == 200
            log = http.get("/api/log", params={"limit": 5}).json()["entries"]
            mine = [(e["action"], e["doc_id"], e["actor"]) for e in log[:3]]
            assert mine == [
                ("supersede", fx.ids["day7"], "ui"),
                ("retract", second, "ui"),
                ("confirm", first, "ui"),
            ]
            assert log[1]["details"] == {"reason": "wrong"}
            left = {d["id"] for d in http.get("/api/review").json()["documents"]}
            assert not (left & {first, second})
    finally:
        server.stop()


def test_many_confirms_at_once_change_the_status_once(ui: UiServer, built) -> None:
    fx: Fixture = built[1]
    target = fx.ids["agent2"]

    def confirm(_: int) -> int:
        with ui.http() as http:
            return http.post(f"/api/documents/{target}/confirm").status_code

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(confirm, range(8))) == [200] * 8
    with ui.http() as http:
        entries = http.get("/api/log", params={"id": target}).json()["entries"]
        assert [e["action"] for e in entries].count("confirm") == 1
        assert http.get(f"/api/documents/{target}").json()["document"]["status"] == "active"


def test_a_second_ui_reuses_the_running_server_with_a_fresh_link(ui: UiServer) -> None:
    proc = run_ui(ui.env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    again = json.loads(out)
    assert again["reused"] is True and again["url"] == ui.url
    code = again["open_url"].split("#code=", 1)[1]
    token = httpx.post(f"{ui.url}api/session", json={"code": code}).json()["token"]
    assert token != ui.token()
    assert httpx.get(f"{ui.url}api/info", headers=_bearer(token)).status_code == 200


def test_the_endpoint_file_goes_when_the_server_stops(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    server = start_ui(env, "--port", "0")
    assert server.endpoint["reused"] is False
    endpoints = list((env.state_dir() / "workspaces").glob("*/ui-endpoint.json"))
    assert len(endpoints) == 1 and oct(endpoints[0].stat().st_mode & 0o777) == "0o600"
    assert json.loads(endpoints[0].read_text())["url"] == server.url
    assert server.stop() == 0
    assert not endpoints[0].exists()
