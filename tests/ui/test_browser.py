"""The memory page in a real browser (Debian's Chromium driven by Playwright) against a real
`nano-brain ui`: search with filters, a document and a diff of two versions, a review
confirmed and seen in the audit log, the timeline and the map. Screenshots of each step go
to test-artifacts/ui/flow-*.png (kept by CI); test_views.py shoots each view at 1280x800."""

from __future__ import annotations

import pytest

from .conftest import ARTIFACTS, Fixture, UiServer

pytestmark = pytest.mark.timeout(600)


def test_search_document_diff_review_and_audit_in_the_browser(browser, ui: UiServer, built) -> None:
    fx: Fixture = built[1]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    shot = lambda name: page.screenshot(path=str(ARTIFACTS / f"flow-{name}.png"), full_page=True)  # noqa: E731
    try:
        page.goto(ui.endpoint["open_url"])
        page.wait_for_selector("#search-form")
        # the one-time code left the address bar before anything else ran
        assert "code=" not in page.url and page.url.endswith("#/search")

        # search with filters: lexical, tag "storage", superseded included
        page.fill("#query", "invoices")
        page.select_option("select[name=mode]", "lexical")
        page.fill("input[name=tags]", "storage")
        page.check("input[name=include_superseded]")
        page.click("#search-form button[type=submit]")
        page.wait_for_selector("#results[data-state=ready]")
        found = page.locator("#results li.hit").evaluate_all("els => els.map(e => e.dataset.id)")
        assert sorted(found) == sorted([fx.ids["new_decision"], fx.ids["old_decision"]])
        old = page.locator(f"li.hit[data-id='{fx.ids['old_decision']}']")
        assert "superseded" in old.inner_text()
        page.click(f"li.hit[data-id='{fx.ids['new_decision']}'] button[data-action=explain]")
        page.wait_for_selector(f"[data-explain='{fx.ids['new_decision']}'] table.explain")
        shot("search")

        # a filter that excludes both: only unreviewed documents
        page.check("input[name=status][value=unreviewed]")
        page.click("#search-form button[type=submit]")
        page.wait_for_selector("#results[data-state=ready]")  # the submit set it to loading
        assert page.locator("#results li.hit").count() == 0
        assert "Nothing found" in page.inner_text("#results")

        # an unrelated question in hybrid mode: nothing clears the relevance floor, and the
        # page says that is why the list is empty
        page.uncheck("input[name=status][value=unreviewed]")
        page.fill("input[name=tags]", "")
        page.select_option("select[name=mode]", "hybrid")
        page.fill("#query", "kubernetes ingress certificate renewal")
        page.click("#search-form button[type=submit]")
        page.wait_for_selector("#results[data-state=ready]")
        assert page.locator("#results li.hit").count() == 0
        assert "relevance floor" in page.inner_text("#results")

        # open a document, diff its first and last versions
        page.goto(f"{ui.url}#/doc/{fx.ids['versioned']}")
        page.wait_for_selector("#document[data-state=ready]")
        assert "Retry failed charges 4 times." in page.inner_text("#content")
        page.select_option("select[name=from]", "1")
        page.select_option("select[name=to]", "3")
        page.click("button[data-action=diff]")
        page.wait_for_selector("#diff[data-state=ready]")
        added = page.locator("#diff .diff-add").all_inner_texts()
        removed = page.locator("#diff .diff-del").all_inner_texts()
        assert added == ["+Retry failed charges 4 times.", "+Back off 30 seconds between tries."]
        assert removed == ["-Retry failed charges 2 times.", "-Back off 10 seconds between tries."]
        shot("diff")

        # confirm an unreviewed note from the review queue
        target = sorted(fx.unreviewed)[0]
        page.click("a[data-tab=review]")
        page.wait_for_selector("#review[data-state=ready]")
        item = page.locator(f"li.review-item[data-id='{target}']")
        shot("review")
        item.locator("button[data-action=confirm]").click()
        page.wait_for_selector(f"li.review-item.done[data-id='{target}']")
        page.wait_for_selector(".toast", state="attached")

        # the audit log shows it, attributed to the page (`ui`)
        page.click("a[data-tab=log]")
        page.wait_for_selector("#log[data-state=ready]")
        first = page.locator("table.audit tbody tr").first
        assert first.get_attribute("data-action") == "confirm"
        assert first.get_attribute("data-actor") == "ui"
        assert f"doc/{target}" in (first.locator("a.doc-link").get_attribute("href") or "")
        shot("log")

        # the timeline draws the decisions and the supersede link; a point opens its document
        page.click("a[data-tab=timeline]")
        page.wait_for_selector("#timeline[data-state=ready]")
        link = page.locator(
            f"path.link[data-from='{fx.ids['old_decision']}'][data-to='{fx.ids['new_decision']}']"
        )
        assert link.count() == 1
        decisions = page.locator("#timeline-chart .pt.decision").evaluate_all(
            "els => els.map(e => e.dataset.id)"
        )
        assert set(decisions) == fx.decisions
        shot("timeline")
        page.locator(f".pt[data-id='{fx.ids['new_decision']}']").dispatch_event("click")
        page.wait_for_selector("#document[data-state=ready]")
        assert page.inner_text("h1.doc-title") == "Store invoices in the object store"

        # the map: billing.py carries two notes, one anchor stale
        page.click("a[data-tab=map]")
        page.wait_for_selector("#map[data-state=ready]")
        box = page.locator(".tm-file[data-path='billing.py']")
        assert "stale" in (box.get_attribute("class") or "")
        box.click()
        page.wait_for_selector("#file-panel li[data-state=changed]")
        shot("map")

        # the token lives in the page's memory only: a reload asks for a fresh link
        page.reload()
        page.wait_for_selector("main.signin")
        shot("reloaded")
        assert problems == []
    except BaseException:
        shot("failure")
        raise
    finally:
        page.close()
