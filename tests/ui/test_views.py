"""Each view of the memory page at 1280x800 on a store like a user's (a git repository of
240 files with its history, notes over four months, decisions and supersede chains, notes
anchored to five files), in Debian's Chromium: what each view must make legible, and a
screenshot of each in test-artifacts/ui/<view>.png (kept by CI) to judge it by eye."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import nano_brain.ui
from nano_brain.embedding import EmbeddingProvider

from .conftest import (
    ARTIFACTS,
    NOTED_FILES,
    STALE_FILE,
    UiServer,
    Workspace,
    build_workspace_store,
    make_env,
    start_ui,
)

pytestmark = pytest.mark.timeout(900)
VIEWPORT = {"width": 1280, "height": 800}
#: JavaScript: the bounding boxes of the elements a selector finds.
BOXES = """els => els.map(e => { const r = e.getBoundingClientRect();
  return {x: r.x, y: r.y, w: r.width, h: r.height, right: r.right, bottom: r.bottom}; })"""


@pytest.fixture(scope="module")
def shop(
    tmp_path_factory: pytest.TempPathFactory, real_provider: EmbeddingProvider
) -> Iterator[tuple[UiServer, Workspace]]:
    env = make_env(tmp_path_factory.mktemp("shop"))
    workspace = build_workspace_store(env, real_provider)
    server = start_ui(env)
    try:
        yield server, workspace
    finally:
        server.stop()


@pytest.fixture(scope="module")
def page(browser: Any, shop: tuple[UiServer, Workspace]) -> Iterator[Any]:
    """One signed-in page at 1280x800; fails a test that made the page log an error."""
    ui = shop[0]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    p = browser.new_page(viewport=VIEWPORT)
    p.problems = []
    p.on("pageerror", lambda e: p.problems.append(str(e)))
    p.on("console", lambda m: p.problems.append(m.text) if m.type == "error" else None)
    p.goto(ui.endpoint["open_url"])
    p.wait_for_selector("#search-form")
    try:
        yield p
    finally:
        p.close()


def open_view(page: Any, ui: UiServer, route: str, ready: str) -> None:
    page.goto(f"{ui.url}#/{route}")
    page.wait_for_selector(f"{ready}[data-state=ready]")
    page.mouse.move(0, 0)


def shot(page: Any, view: str) -> None:
    """The view as a user first sees it at 1280x800 (the viewport, not the full page)."""
    page.screenshot(path=str(ARTIFACTS / f"{view}.png"))
    assert page.problems == []


def apart(a: dict[str, float], b: dict[str, float], gap: float = 4.0) -> bool:
    """Two boxes on one line do not touch: `gap` pixels at least between them."""
    return a["right"] + gap <= b["x"] or b["right"] + gap <= a["x"]


# -- search -------------------------------------------------------------------------------


def test_search_ids_and_status_chips_are_apart(page: Any, shop: tuple[UiServer, Workspace]) -> None:
    ui, ws = shop
    open_view(page, ui, "search", "#search")
    page.fill("#query", "refunds delivery")
    page.check("input[name=include_superseded]")
    page.click("#search-form button[type=submit]")
    # the first hybrid search loads the model in the server: slow on a loaded machine
    done = "#results[data-state=ready], #results[data-state=error]"
    page.wait_for_selector(done, timeout=120_000)
    shot(page, "search")
    assert page.get_attribute("#results", "data-state") == "ready", page.inner_text("#results")
    superseded = page.locator(f"li.hit[data-id='{ws.chain[0]}']")
    assert superseded.count() == 1
    ident = superseded.locator(".doc-id").evaluate_all(BOXES)
    chip = superseded.locator(".badge.status-superseded").evaluate_all(BOXES)
    assert len(ident) == 1 and len(chip) == 1
    assert apart(ident[0], chip[0]), (ident, chip)


# -- timeline -----------------------------------------------------------------------------


def test_timeline_y_axis_has_ticks_and_bars_have_tooltips(
    page: Any, shop: tuple[UiServer, Workspace]
) -> None:
    ui, _ = shop
    open_view(page, ui, "timeline", "#timeline")
    shot(page, "timeline")
    ticks = page.locator("#timeline-chart .y-axis text").all_text_contents()
    values = [int(t) for t in ticks]
    assert len(values) >= 3 and values == sorted(values) and values[0] == 0, ticks
    assert page.locator("#timeline-chart .y-axis-title").text_content().startswith("documents per")
    # every bar says what, when and how many: as a <title> and in the page's own tooltip
    bar = page.locator("#timeline-chart rect.bar").first
    title = bar.locator("title").text_content()
    count = bar.get_attribute("data-count")
    assert count and re.search(rf"\b{count} (note|commit|session)", title), title
    assert re.search(r"\d{4}-\d{2}-\d{2}", title), title
    bar.hover()
    tip = page.locator("#chart-tip")
    tip.wait_for(state="visible")
    assert tip.inner_text() == title


def test_timeline_points_have_tooltips(page: Any, shop: tuple[UiServer, Workspace]) -> None:
    ui, ws = shop
    open_view(page, ui, "timeline", "#timeline")
    point = page.locator(f"#timeline-chart .pt[data-id='{ws.chain[1]}']")
    title = point.locator("title").text_content()
    assert "Refunds within 30 days" in title and "decision" in title, title
    assert re.search(r"created \d{4}-\d{2}-\d{2}", title) and "superseded by" in title, title
    point.hover()
    page.locator("#chart-tip").wait_for(state="visible")
    assert page.locator("#chart-tip").inner_text() == title
    page.screenshot(path=str(ARTIFACTS / "timeline-tooltip.png"))


def test_timeline_decisions_look_unlike_other_notes(
    page: Any, shop: tuple[UiServer, Workspace]
) -> None:
    ui, ws = shop
    open_view(page, ui, "timeline", "#timeline")
    decision = page.locator(f"#timeline-chart .pt[data-id='{ws.ids['decision0']}']")
    note = page.locator(f"#timeline-chart .pt[data-id='{ws.ids['checklist']}']")
    shapes = page.locator("#timeline-chart .pt.decision").evaluate_all(
        "els => [...new Set(els.map(e => e.tagName))]"
    )
    assert shapes == ["path"], shapes  # diamonds
    assert note.evaluate("e => e.tagName") == "circle"
    fill = "e => getComputedStyle(e).fill"
    assert decision.evaluate(fill) != note.evaluate(fill)
    ids = page.locator("#timeline-chart .pt.decision").evaluate_all(
        "els => els.map(e => e.dataset.id)"
    )
    assert set(ids) == ws.decisions
    # a title with markup in it is text in the chart, never elements
    marked = page.locator(f"#timeline-chart .pt[data-id='{ws.ids['decision7']}'] title")
    assert (marked.text_content() or "").startswith("Cache keys <b>per tenant</b>")
    assert page.locator("#timeline-chart b, #timeline-chart img").count() == 0
    # the legend draws the same shape, in the same colour
    swatch = page.locator("#timeline-chart .legend .swatch-decision path")
    assert swatch.count() == 1 and swatch.evaluate(fill) == decision.evaluate(fill)


def test_timeline_supersede_links_are_visible(page: Any, shop: tuple[UiServer, Workspace]) -> None:
    ui, ws = shop
    open_view(page, ui, "timeline", "#timeline")
    pairs = [*zip(ws.chain, ws.chain[1:], strict=False)]
    pairs.append((ws.ids["old_checklist"], ws.ids["checklist"]))
    for old, new in pairs:
        link = page.locator(f"#timeline-chart path.link[data-from='{old}'][data-to='{new}']")
        assert link.count() == 1
        width = float(link.evaluate("e => getComputedStyle(e).strokeWidth").removesuffix("px"))
        assert width >= 2
        assert link.get_attribute("marker-end") == "url(#arrow)"
        assert float(link.evaluate("e => getComputedStyle(e).opacity")) == 1
    assert page.locator("#timeline-chart .legend .swatch-link path.link").count() == 1
    # a chain is named by its newest document, beside it
    label = page.locator(f"#timeline-chart .pt-label[data-id='{ws.chain[-1]}']").text_content()
    assert label == "Refunds within 30 days, store cre… (chain of 3)", label


def test_the_bundle_never_parses_markup() -> None:
    """Memory text reaches the page as JSON and lands in text nodes: the bundle builds every
    element itself (`h`, `svg`) and never hands a string to the HTML parser."""
    bundle = (Path(nano_brain.ui.__file__).parent / "static" / "app.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser"):
        assert sink not in bundle, sink


# -- document and review ------------------------------------------------------------------


def test_document_id_and_status_chip_are_apart(page: Any, shop: tuple[UiServer, Workspace]) -> None:
    ui, ws = shop
    open_view(page, ui, f"doc/{ws.chain[1]}", "#document")
    shot(page, "document")
    ident = page.locator(".doc-meta .doc-id").evaluate_all(BOXES)
    chip = page.locator(".doc-meta .badge.status-superseded").evaluate_all(BOXES)
    assert len(ident) == 1 and len(chip) == 1
    assert apart(ident[0], chip[0]), (ident, chip)


def test_review(page: Any, shop: tuple[UiServer, Workspace]) -> None:
    ui, ws = shop
    open_view(page, ui, "review", "#review")
    shot(page, "review")
    shown = page.locator("li.review-item").evaluate_all("els => els.map(e => e.dataset.id)")
    assert set(shown) == {ws.ids["agent0"], ws.ids["agent1"]}
    for item in (page.locator(f"li.review-item[data-id='{i}']") for i in shown):
        title, ident = item.locator(".doc-link").evaluate_all(BOXES), item.locator(".doc-id")
        assert apart(title[0], ident.evaluate_all(BOXES)[0])


# -- map ----------------------------------------------------------------------------------


def test_map_files_with_notes_stand_out(page: Any, shop: tuple[UiServer, Workspace]) -> None:
    ui, ws = shop
    open_view(page, ui, "map", "#map")
    shot(page, "map")
    tiles = page.locator("#treemap .tm-file").evaluate_all(
        """els => els.map(e => ({path: e.dataset.path, notes: Number(e.dataset.notes),
          area: e.offsetWidth * e.offsetHeight, fill: getComputedStyle(e).backgroundColor,
          label: e.querySelector('.tm-label'),
          cut: e.querySelector('.tm-label') ? e.querySelector('.tm-label').scrollWidth >
               e.querySelector('.tm-label').clientWidth : null}))"""
    )
    noted = {t["path"]: t for t in tiles if t["notes"] > 0}
    plain = [t for t in tiles if t["notes"] == 0]
    assert set(noted) == set(NOTED_FILES)
    assert len(plain) >= 200  # every committed file is still there
    smallest_noted = min(t["area"] for t in noted.values())
    largest_plain = max(t["area"] for t in plain)
    assert smallest_noted > 2 * largest_plain, (smallest_noted, largest_plain)
    assert {t["fill"] for t in noted.values()}.isdisjoint({t["fill"] for t in plain})
    # the more notes, the stronger the colour; each noted file's name fits its box
    ranked = sorted(noted.values(), key=lambda t: -t["notes"])
    assert ranked[0]["fill"] != ranked[-1]["fill"]
    assert all(t["cut"] is False for t in noted.values()), noted
    # and a list of the files with notes, the most first, with their counts
    rows = page.locator("#map-files li").evaluate_all(
        "els => els.map(e => [e.dataset.path, Number(e.dataset.notes)])"
    )
    assert rows == [list(kv) for kv in sorted(NOTED_FILES.items(), key=lambda kv: (-kv[1], kv[0]))]
    stale = page.locator(f"#map-files li[data-path='{STALE_FILE}'] .badge.anchor-changed")
    assert stale.count() == 1
    page.locator("#map-files li button").first.click()
    page.wait_for_selector("#file-panel li[data-state]")
    assert page.locator("#file-panel li").count() == 5  # shop/billing/rules.py's notes
    page.screenshot(path=str(ARTIFACTS / "map-file.png"))


# -- log ----------------------------------------------------------------------------------


def test_log_details_read_as_text(page: Any, shop: tuple[UiServer, Workspace]) -> None:
    ui, ws = shop
    open_view(page, ui, "log", "#log")
    shot(page, "log")
    retract = page.locator("table.audit tbody tr[data-action=retract]")
    assert retract.count() == 1
    details = retract.locator("td.details").inner_text()
    assert "reason: coupons never stack: see the billing rules" in details, details
    writes = page.locator("table.audit tbody tr[data-action=write] td.details")
    assert writes.count() > 10
    for text in [*writes.all_inner_texts(), details]:
        assert not re.search(r'[{}"\[\]]', text), text
        assert "null" not in text and "None" not in text, text
    supersede = page.locator("table.audit tbody tr[data-action=supersede] td.details").first
    assert re.search(r"superseded by: #[0-9a-f]{12}", supersede.inner_text())
    # bounded: no entry is taller than a few lines
    heights = page.locator("table.audit td.details").evaluate_all(
        "els => els.map(e => e.offsetHeight)"
    )
    assert max(heights) <= 80, max(heights)
