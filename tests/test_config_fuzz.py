"""Config files of any content: loading never raises, never blocks, stays bounded, and every
bad value becomes one warning line and its default.

Covers `config.yml` (the global file, via NANO_BRAIN_CONFIG) and the workspace's
`.nano-brain.yml`: documents of random shapes, random values for every real key, invalid
YAML, binary, huge and deeply nested files, alias bombs, FIFOs and devices.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from nano_brain.config import WORKSPACE_CONFIG_NAME, Config, load_config
from nano_brain.configfile import MAX_CONFIG_BYTES

from .conftest import trust_workspace_config

FUZZ = settings(
    derandomize=True,
    database=None,  # the same examples every run, in CI and here
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
pytestmark = pytest.mark.timeout(300)

_scalar = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(["30d", "500MB", "local", "openai", "~/x", "[unclosed", "0", "-1", ""])
)
yaml_value = st.recursive(
    _scalar,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=10) | st.integers() | st.booleans(), inner, max_size=4)
    ),
    max_leaves=16,
)


def _sections(model: type[BaseModel]) -> dict[str, Any]:
    """Every key of the config tree: section -> {key: None or a sub-tree}."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            out[field.alias or name] = _sections(annotation)
        else:
            out[field.alias or name] = None
    return out


TREE = _sections(Config)


def _config_shaped(tree: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Mappings with real keys (and some unknown ones) holding values of any type."""
    return st.fixed_dictionaries(
        {},
        optional={
            **{
                key: (_config_shaped(sub) | yaml_value) if sub else yaml_value
                for key, sub in tree.items()
            },
            "unknown_key": yaml_value,
        },
    )


def _load(text: bytes, *, where: str, tmp: Path) -> Any:
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    global_file = tmp / "global.yml"
    target = ws / WORKSPACE_CONFIG_NAME if where == "workspace" else global_file
    target.write_bytes(text)
    if where == "workspace":  # its endpoints and paths count only once trusted (test_trust.py)
        trust_workspace_config(ws)
    os.environ["NANO_BRAIN_CONFIG"] = str(global_file)
    try:
        return load_config(ws, env={})
    finally:
        os.environ.pop("NANO_BRAIN_CONFIG", None)


def _assert_sane(loaded: Any) -> None:
    assert isinstance(loaded.config, Config)
    Config.model_validate(loaded.config.model_dump())  # what was kept is valid
    for warning in loaded.warnings:
        assert isinstance(warning, str) and "\n" not in warning and len(warning) < 1000


@FUZZ
@given(doc=yaml_value | _config_shaped(TREE), where=st.sampled_from(["workspace", "global"]))
def test_any_yaml_document_loads_with_warnings(doc: Any, where: str) -> None:
    text = yaml.safe_dump(doc, allow_unicode=True).encode()
    with tempfile.TemporaryDirectory() as tmp:
        loaded = _load(text, where=where, tmp=Path(tmp))
    _assert_sane(loaded)
    if not isinstance(doc, dict):
        assert any("must be a mapping" in w for w in loaded.warnings) or doc is None


def _leaf_paths(tree: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths: list[tuple[str, ...]] = []
    for key, sub in tree.items():
        paths += _leaf_paths(sub, (*prefix, key)) if sub else [(*prefix, key)]
    return paths


LEAVES = _leaf_paths(TREE)


def _field(path: tuple[str, ...]) -> tuple[type[BaseModel], str]:
    model: type[BaseModel] = Config
    for key in path[:-1]:
        name = next(n for n, f in model.model_fields.items() if (f.alias or n) == key)
        model = model.model_fields[name].annotation  # type: ignore[assignment]
    name = next(n for n, f in model.model_fields.items() if (f.alias or n) == path[-1])
    return model, name


@FUZZ
@given(path=st.sampled_from(LEAVES), value=yaml_value)
def test_every_bad_value_is_a_warning_and_its_default(path: tuple[str, ...], value: Any) -> None:
    doc: dict[str, Any] = {}
    node = doc
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    with tempfile.TemporaryDirectory() as tmp:
        loaded = _load(yaml.safe_dump(doc).encode(), where="workspace", tmp=Path(tmp))
    _assert_sane(loaded)
    model, name = _field(path)
    probe = model.model_construct()
    try:
        model.__pydantic_validator__.validate_assignment(probe, name, value)
        valid, expected = True, getattr(probe, name)
    except ValidationError:
        valid, expected = False, model.model_fields[name].get_default(call_default_factory=True)
    got: Any = loaded.config
    for depth in range(1, len(path)):
        got = getattr(got, _field(path[:depth])[1])
    assert getattr(got, name) == expected or (expected != expected)  # NaN != NaN
    dotted = ".".join(path)
    warned = [w for w in loaded.warnings if w.startswith(f"{dotted}:")]
    assert (len(warned) == 0) == valid, loaded.warnings


@FUZZ
@given(raw=st.binary(max_size=2000) | st.text(max_size=2000).map(str.encode))
def test_arbitrary_bytes_never_raise(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        loaded = _load(raw, where="workspace", tmp=Path(tmp))
    _assert_sane(loaded)


@FUZZ
@given(values=st.dictionaries(st.sampled_from(LEAVES), st.text(max_size=30), max_size=6))
def test_any_environment_values_never_raise(values: dict[tuple[str, ...], str]) -> None:
    env = {
        "NANO_BRAIN_" + "__".join(path[:2]).upper(): value
        for path, value in values.items()
        if len(path) == 2
    }
    with tempfile.TemporaryDirectory() as tmp:
        loaded = load_config(Path(tmp), env=env)
    _assert_sane(loaded)


def _warned(loaded: Any, text: str) -> bool:
    return any(text in warning for warning in loaded.warnings)


BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)
MERGE_BOMB = "l0: &l0 {k: v}\n" + "".join(
    f"l{i}: &l{i} {{<<: [*l{i - 1}, *l{i - 1}]}}\n" for i in range(1, 40)
)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (BILLION_LAUGHS, "aliases are not allowed here"),
        (MERGE_BOMB, "aliases are not allowed here"),
        ("search: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deep"),
        ("search: " + "{a: " * 100 + "1" + "}" * 100 + "\n", "nested too deep"),
        ("search:\n  rrf_k: " + "9" * 5000 + "\n", "ValueError"),
        ("x: " + "y" * (MAX_CONFIG_BYTES + 1) + "\n", f"larger than {MAX_CONFIG_BYTES} bytes"),
        ("search: [unclosed\n", "cannot be read"),
        ("\udcff", "cannot be read"),
    ],
    ids=["billion-laughs", "merge-bomb", "deep-list", "deep-map", "huge-int", "huge", "bad", "bin"],
)
def test_hostile_documents_are_refused_quickly(tmp_path: Path, content: str, expected: str) -> None:
    raw = content.encode("utf-8", "surrogateescape")
    started = time.monotonic()
    loaded = _load(raw, where="workspace", tmp=tmp_path)
    assert time.monotonic() - started < 20
    _assert_sane(loaded)
    assert _warned(loaded, expected), loaded.warnings
    assert loaded.config == Config()


@pytest.mark.parametrize("where", ["workspace", "global"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_a_config_path_that_is_no_regular_file(tmp_path: Path, where: str, kind: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = ws / WORKSPACE_CONFIG_NAME if where == "workspace" else tmp_path / "global.yml"
    if kind == "fifo":
        os.mkfifo(target)  # opening it for reading would wait for a writer forever
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        target.mkdir()
    os.environ["NANO_BRAIN_CONFIG"] = str(tmp_path / "global.yml")
    try:
        loaded = load_config(ws, env={})
    finally:
        os.environ.pop("NANO_BRAIN_CONFIG", None)
    assert loaded.config == Config()
    if kind == "directory":
        assert loaded.warnings == []
    else:
        assert loaded.warnings == [
            f"{target}: cannot be read (OSError: not a regular file); ignored"
        ]
