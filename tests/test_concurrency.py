"""Several processes on one store (sidecar, `nano-brain mcp`, CLI) all succeed."""

import subprocess
import sys
import textwrap
from pathlib import Path

from nano_brain import Brain, SearchRequest

from .conftest import TinyEmbedder

_WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[3])
    from conftest import TinyEmbedder
    from nano_brain import Brain, SearchRequest
    root, name = sys.argv[1], sys.argv[2]
    with Brain(root, provider=TinyEmbedder()) as brain:
        for i in range(60):
            brain.write(f"note {i} from writer {name} about topic{i % 7}", tags=[name])
            if i % 10 == 0:
                brain.search(SearchRequest(query=f"topic{i % 7}"))
    print("done", name)
    """
)


def test_two_processes_write_one_store_concurrently(workspace: Path) -> None:
    tests_dir = str(Path(__file__).parent)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(workspace), name, tests_dir],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta", "gamma")
    ]
    outputs = [p.communicate(timeout=240) for p in procs]
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "locked" not in err
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        status = brain.status()
        assert status["documents"] == 180
        assert status["vectors"] == 180 and status["pending_embeddings"] == 0
        user_tags = {t: n for t, n in brain.tags() if not t.startswith("auto:")}
        assert user_tags == {"alpha": 60, "beta": 60, "gamma": 60}
        hits = brain.search(SearchRequest(query="writer beta", tags=["beta"], limit=200)).results
        assert len(hits) == 60
