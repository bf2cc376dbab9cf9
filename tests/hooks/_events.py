"""The agents' hook inputs, as their documentation gives them (tests/hooks/fixtures), with the
test's workspace, prompt and edited text filled in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"

BILLING = '''\
"""Billing: charges and refunds."""


def charge(customer, amount_cents):
    """Charge a customer an amount in cents."""
    if amount_cents <= 0:
        raise ValueError("amount must be positive")
    return {"customer": customer, "amount": amount_cents}


def refund(customer, amount_cents):
    """Give money back."""
    return {"customer": customer, "amount": -amount_cents}
'''
DECISION = "Amounts are integer cents, never floats: float rounding lost money in the 2024 audit."
"""The decision the tests anchor to `billing.py::charge`."""
CHARGE_LINE = "    if amount_cents <= 0:"
REFUND_LINE = '    return {"customer": customer, "amount": -amount_cents}'


def event(agent: str, name: str, **values: str) -> dict[str, Any]:
    """The fixture `agent/name.json` with each ``{KEY}`` replaced by ``values[KEY]``."""
    data = json.loads((FIXTURES / agent / f"{name}.json").read_text())
    return _fill(data, values)


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    if isinstance(value, str):
        for key, text in values.items():
            value = value.replace("{" + key + "}", text)
    return value


def hook_program() -> list[str]:
    """The installed `nano-brain-hook` console script (beside this interpreter)."""
    script = Path(sys.executable).with_name("nano-brain-hook")
    assert script.exists(), "the nano-brain-hook console script is not installed (pip install -e .)"
    return [str(script)]


def run_hook(
    agent: str,
    name: str,
    payload: bytes | dict[str, Any],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `nano-brain-hook AGENT NAME` as the agent does: the input on stdin."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    env = {k: v for k, v in (env or os.environ).items() if k != "CLAUDE_PROJECT_DIR"}
    return subprocess.run(
        [*hook_program(), agent, name],
        input=data,
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
