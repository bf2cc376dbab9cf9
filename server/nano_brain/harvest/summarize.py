"""Who writes a session's summary: the deterministic digest, or an OpenAI-compatible endpoint.

The digest is always computed (it is cheap and it is the fallback). An endpoint only ever
sees text that `build_digest` already redacted, and its answer is redacted again before it
is stored, so a model that invents or echoes a secret cannot leak it into the store.

A failing endpoint never costs the session: the summariser answers with the digest and
says why the endpoint failed; the harvester records that in the document's metadata and
tries the endpoint again on a later run.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..redact import redact
from .config import SummarizerConfig
from .digest import Digest
from .model import Session

if TYPE_CHECKING:  # httpx (~50 ms) only when an endpoint is configured
    import httpx

log = logging.getLogger("nano_brain.harvest")

DIGEST = "digest"
_SYSTEM_PROMPT = (
    "You summarise one coding-agent session for a team's workspace memory. Write concise "
    "Markdown with these sections: '## Summary' (two to four sentences: what was asked and "
    "what was done), '## Decisions' (explicit choices and their reasons), '## Open issues' "
    "(errors left unresolved, follow-ups). Use only facts from the input; name files and "
    "commands exactly; omit a section that would be empty. Never include credentials."
)


@dataclass(frozen=True, slots=True)
class Summary:
    """A summary ready to store. `summarizer` names who actually wrote it.

    `error` is set when the configured summariser failed and the digest was used instead.
    """

    text: str
    summarizer: str
    error: str | None = None


class Summarizer(Protocol):
    """Turns a parsed session and its (redacted) digest into the summary text to store."""

    @property
    def name(self) -> str: ...

    def summarize(self, session: Session, digest: Digest) -> Summary: ...


class DigestSummarizer:
    """The default: the digest's Markdown, deterministic and free."""

    @property
    def name(self) -> str:
        return DIGEST

    def summarize(self, session: Session, digest: Digest) -> Summary:
        return Summary(text=digest.markdown, summarizer=DIGEST)


class SummarizerError(Exception):
    """Internal: an endpoint call failed; turned into a digest fallback, never raised out."""


class OpenAISummarizer:
    """A chat completion from an OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, Ollama).

    The LLM text goes above the digest's facts (files, commands, errors), which stay in the
    stored document because they are exact where a model may paraphrase.
    `transport` is for tests and unusual networks (an httpx transport, e.g. MockTransport).
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 60.0,
        max_input_chars: int = 24_000,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._api_key_env = api_key_env
        self._max_input = max_input_chars
        import httpx

        self._client = httpx.Client(timeout=timeout_s, transport=transport)

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    def close(self) -> None:
        self._client.close()

    def prompt(self, digest: Digest) -> str:
        """What is sent: the redacted digest, then as much redacted conversation as fits."""
        head = digest.markdown
        room = max(0, self._max_input - len(head) - 40)
        conversation = digest.conversation
        if len(conversation) > room:
            half = room // 2
            conversation = conversation[:half] + "\n\n[…]\n\n" + conversation[-half:]
        return f"{head}\n\n## Conversation\n\n{conversation}" if conversation else head

    def summarize(self, session: Session, digest: Digest) -> Summary:
        try:
            text = self._complete(self.prompt(digest))
        except SummarizerError as exc:
            log.warning("summary of %s session %s: %s", session.agent, session.session_id, exc)
            return Summary(text=digest.markdown, summarizer=DIGEST, error=str(exc))
        return Summary(text=text, summarizer=self.name)

    def complete(self, system: str, prompt: str) -> str:
        """One chat completion with another system prompt (consolidation drafts merged notes
        with it); raises SummarizerError. The prompt must already be redacted."""
        return self._complete(prompt, system)

    def _complete(self, prompt: str, system: str = _SYSTEM_PROMPT) -> str:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self._api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        payload = {
            "model": self._model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
        }
        import httpx

        try:
            response = self._client.post(self._url, json=payload, headers=headers)
        except httpx.HTTPError as exc:
            raise SummarizerError(f"{self.name}: cannot reach {self._url}: {exc}") from exc
        if response.status_code >= 400:
            raise SummarizerError(
                f"{self.name}: {self._url} answered {response.status_code}: "
                f"{redact(response.text[:200]).text}"
            )
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise SummarizerError(f"{self.name}: unexpected answer from {self._url}") from exc
        if not isinstance(content, str) or not content.strip():
            raise SummarizerError(f"{self.name}: empty answer from {self._url}")
        return redact(content.strip()).text


def create_summarizer(
    config: SummarizerConfig, *, transport: httpx.BaseTransport | None = None
) -> Summarizer:
    """The configured summariser; an incomplete endpoint config warns and uses the digest."""
    if config.provider == "openai":
        if not config.base_url or not config.model:
            log.warning(
                "harvest.summarizer: provider openai needs base_url and model; using the digest"
            )
            return DigestSummarizer()
        return OpenAISummarizer(
            base_url=config.base_url,
            model=config.model,
            api_key_env=config.api_key_env,
            timeout_s=config.timeout_s,
            max_input_chars=config.max_input_chars,
            transport=transport,
        )
    return DigestSummarizer()
