"""Code search with the real default model: symbol chunks in the hybrid pipeline, kind=code."""

from __future__ import annotations

from pathlib import Path

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.embedding import EmbeddingProvider
from nano_brain.search import validate_request

from .conftest import write_tree

FILES = {
    "net/download.py": '''
        import urllib.request

        def fetch_url(url, timeout=10):
            """Download a web page and return its body as text."""
            with urllib.request.urlopen(url, timeout=timeout) as resp:
                return resp.read().decode("utf-8")
        ''',
    "mathx/stats.py": '''
        def mean(values):
            """Arithmetic average of a list of numbers."""
            return sum(values) / len(values)
        ''',
    "text/case.py": '''
        def snake_to_camel(name):
            """Convert snake_case identifiers to camelCase."""
            head, *rest = name.split("_")
            return head + "".join(p.title() for p in rest)
        ''',
}


def test_vector_and_hybrid_search_find_symbols_by_meaning(
    workspace: Path, real_provider: EmbeddingProvider
) -> None:
    write_tree(workspace, FILES)
    with Brain(workspace, provider=real_provider) as brain:
        brain.write("Our team prefers retrieving pages over http with retries", title="http note")
        code = CodeIndex(brain)
        report = code.index()
        assert report.pending_embeddings == 3  # the note was embedded on write
        assert brain.embed_pending() == 3
        # no word of the query is in the function: only the vector leg can find it
        vector = code.search("average of numbers", mode="vector").results
        assert vector[0].source_path == "code://mathx/stats.py::mean"
        hybrid = code.search("get the html of a website", limit=3).results
        assert hybrid[0].source_path == "code://net/download.py::fetch_url"
        assert {h.kind for h in hybrid} == {"code"}  # the http note is filtered out
        both = brain.search(validate_request(query="retrieving web pages over http", limit=5))
        assert {"note", "code"} <= {h.kind for h in both.results}
