"""The optional LLM summariser, against a local fake OpenAI-compatible endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from nano_brain import Brain
from nano_brain.harvest import (
    DigestSummarizer,
    HarvestConfig,
    Harvester,
    HarvestLocations,
    OpenAISummarizer,
    build_digest,
    claude_code,
    create_summarizer,
)
from nano_brain.harvest.config import SummarizerConfig

from . import _layout

LLM_TEXT = "## Summary\n\nThe user asked for three hello files; the assistant wrote them."
SECRET = "sk-ant-" + "api03-Kq8Wm2Zp5Rt7Yv9Bx3Nc6Lj4Hg1Df0Sa"


class FakeEndpoint:
    """A stand-in for the chat completions endpoint a user would configure."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.headers: list[httpx.Headers] = []
        self.fail = False

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        self.requests.append(json.loads(request.content))
        self.headers.append(request.headers)
        if self.fail:
            return httpx.Response(503, text="model is loading")
        return httpx.Response(
            200, json={"choices": [{"message": {"role": "assistant", "content": LLM_TEXT}}]}
        )

    def summarizer(self) -> OpenAISummarizer:
        return OpenAISummarizer(
            base_url="http://127.0.0.1:9/v1",
            model="fake-7b",
            api_key_env="NB_TEST_LLM_KEY",
            transport=httpx.MockTransport(self),
        )


def _config() -> HarvestConfig:
    return HarvestConfig(summarizer=SummarizerConfig(retry_after_s=0))


def test_llm_summary_is_stored_with_the_digest_facts(
    hbrain: Brain, home: HarvestLocations, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NB_TEST_LLM_KEY", "local-test-key")
    main = _layout.claude(home, workspace)
    main.write_text(main.read_text().replace("delete js", f"delete js, key {SECRET}"))
    endpoint = FakeEndpoint()

    item = Harvester(hbrain, home, endpoint.summarizer(), config=_config()).run_once().items[0]

    assert item.action == "added" and item.summarizer == "openai:fake-7b"
    doc = hbrain.get(f"#{item.doc_id}")
    assert LLM_TEXT in (doc.content or "")
    assert "## Goal\n\ncreate hello.py, md and js" in (doc.content or "")  # digest facts kept
    meta = doc.metadata["harvest"]
    assert meta["summarizer"] == "openai:fake-7b" and meta["summarizer_error"] is None
    [request] = endpoint.requests
    assert request["model"] == "fake-7b"
    sent = json.dumps(request)
    assert "create hello.py, md and js" in sent
    assert SECRET not in sent and "[REDACTED:anthropic_key]" in sent
    assert endpoint.headers[0]["authorization"] == "Bearer local-test-key"


def test_endpoint_failure_stores_the_digest_and_is_retried(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    _layout.claude(home, workspace)
    endpoint = FakeEndpoint()
    endpoint.fail = True
    harvester = Harvester(hbrain, home, endpoint.summarizer(), config=_config())

    first = harvester.run_once().items[0]

    assert first.action == "added" and first.summarizer == "digest"
    assert "503" in (first.error or "")
    doc = hbrain.get(f"#{first.doc_id}")
    meta = doc.metadata["harvest"]
    assert meta["summarizer"] == "digest" and meta["summarizer_wanted"] == "openai:fake-7b"
    assert "503" in meta["summarizer_error"]
    assert LLM_TEXT not in (doc.content or "") and "## Goal" in (doc.content or "")

    # still failing: tried again, nothing rewritten
    assert harvester.run_once().counts() == {"unchanged": 1}
    assert len(endpoint.requests) == 2

    # the endpoint is back: the next run (a new process, too) replaces the digest
    endpoint.fail = False
    fresh = Harvester(hbrain, home, endpoint.summarizer(), config=_config())
    report = fresh.run_once()
    assert report.counts() == {"updated": 1}
    doc = hbrain.get(f"#{first.doc_id}")
    assert doc.version == 2 and LLM_TEXT in (doc.content or "")
    assert doc.metadata["harvest"]["summarizer_error"] is None
    assert fresh.run_once().counts() == {"unchanged": 1}
    assert len(endpoint.requests) == 3


def test_failed_summary_waits_before_the_next_attempt(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    _layout.gemini(home, workspace)
    endpoint = FakeEndpoint()
    endpoint.fail = True
    config = HarvestConfig(summarizer=SummarizerConfig(retry_after_s=3600))
    harvester = Harvester(hbrain, home, endpoint.summarizer(), config=config)
    harvester.run_once()
    harvester.run_once()
    Harvester(hbrain, home, endpoint.summarizer(), config=config).run_once()
    assert len(endpoint.requests) == 1


def test_digest_summaries_are_upgraded_when_an_endpoint_is_configured(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    _layout.gemini(home, workspace)
    Harvester(hbrain, home, DigestSummarizer(), config=_config()).run_once()
    endpoint = FakeEndpoint()
    report = Harvester(hbrain, home, endpoint.summarizer(), config=_config()).run_once()
    assert report.counts() == {"updated": 1}
    # and an LLM summary is never downgraded when the endpoint is switched off again
    assert Harvester(hbrain, home, DigestSummarizer()).run_once().counts() == {"unchanged": 1}


def test_unexpected_answers_fall_back_to_the_digest() -> None:
    session = claude_code.parse(_layout.CLAUDE_DIR / _layout.CLAUDE_MAIN)
    digest = build_digest(session)
    for response in (
        httpx.Response(200, json={"choices": []}),
        httpx.Response(200, text="not json"),
        httpx.Response(200, json={"choices": [{"message": {"content": "   "}}]}),
    ):
        summarizer = OpenAISummarizer(
            base_url="http://127.0.0.1:9/v1",
            model="m",
            transport=httpx.MockTransport(lambda request, r=response: r),
        )
        summary = summarizer.summarize(session, digest)
        assert summary.summarizer == "digest" and summary.text == digest.markdown
        assert summary.error


def test_unreachable_endpoint_falls_back() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    session = claude_code.parse(_layout.CLAUDE_DIR / _layout.CLAUDE_MAIN)
    summary = OpenAISummarizer(
        base_url="http://127.0.0.1:9/v1", model="m", transport=httpx.MockTransport(refuse)
    ).summarize(session, build_digest(session))
    assert summary.summarizer == "digest" and "cannot reach" in (summary.error or "")


def test_prompt_is_bounded() -> None:
    session = claude_code.parse(_layout.CLAUDE_DIR / _layout.CLAUDE_MAIN)
    digest = build_digest(session)
    summarizer = OpenAISummarizer(base_url="http://x/v1", model="m", max_input_chars=1000)
    prompt = summarizer.prompt(digest)
    assert len(prompt) <= len(digest.markdown) + 1000
    assert prompt.startswith(digest.markdown)


def test_create_summarizer_from_config() -> None:
    assert isinstance(create_summarizer(SummarizerConfig()), DigestSummarizer)
    incomplete = SummarizerConfig(provider="openai", model="m")  # no base_url
    assert isinstance(create_summarizer(incomplete), DigestSummarizer)
    full = SummarizerConfig(provider="openai", base_url="http://127.0.0.1:1/v1", model="m")
    assert create_summarizer(full).name == "openai:m"
