"""What an agent's edit touches, from the tool inputs the agents document."""

from __future__ import annotations

from pathlib import Path

from nano_brain.brief.edits import (
    MAX_FILE_BYTES,
    EditTarget,
    edit_targets,
    patch_targets,
    relative_path,
    touched_lines,
)

PATCH = """*** Begin Patch
*** Update File: src/billing.py
@@ def charge(customer, amount_cents):
     \"\"\"Charge a customer.\"\"\"
-    if amount_cents <= 0:
+    if amount_cents < 0:
*** Add File: src/new.py
+print("new")
*** Delete File: old.py
*** Update File: src/refund.py
*** Move to: src/refunds.py
@@
-    return 1
+    return 2
*** End Patch
"""


def test_claude_code_tools() -> None:
    assert edit_targets(
        "Edit", {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    ) == [EditTarget("/w/a.py", ("x = 1",))]
    multi = {
        "file_path": "/w/a.py",
        "edits": [{"old_string": "a"}, {"old_string": ""}, "junk", {"new_string": "b"}],
    }
    assert edit_targets("MultiEdit", multi) == [EditTarget("/w/a.py", ("a",))]
    assert edit_targets("Write", {"file_path": "/w/a.py", "content": "..."}) == [
        EditTarget("/w/a.py")
    ]
    assert edit_targets("NotebookEdit", {"notebook_path": "/w/n.ipynb", "new_source": "x"}) == [
        EditTarget("/w/n.ipynb")
    ]


def test_inputs_that_are_not_edits_give_nothing() -> None:
    assert edit_targets("Bash", {"command": "rm -rf /"}) == []
    assert edit_targets("Edit", {"file_path": 3, "old_string": "x"}) == []
    assert edit_targets("Edit", {}) == []
    assert edit_targets("MultiEdit", {"file_path": "/w/a.py", "edits": "not a list"}) == [
        EditTarget("/w/a.py")
    ]
    assert edit_targets("apply_patch", {"command": 42}) == []


def test_codex_apply_patch_names_files_and_their_old_lines() -> None:
    targets = patch_targets(PATCH)
    assert targets == [
        EditTarget("src/billing.py", ('    """Charge a customer."""\n    if amount_cents <= 0:',)),
        EditTarget("old.py"),
        EditTarget("src/refund.py", ("    return 1",)),
    ]
    assert edit_targets("apply_patch", {"command": PATCH}) == targets
    assert edit_targets("apply_patch", {"command": ["apply_patch", PATCH]}) == targets


def test_relative_path(tmp_path: Path) -> None:
    assert relative_path(tmp_path, str(tmp_path / "pkg" / "a.py")) == "pkg/a.py"
    assert relative_path(tmp_path, "pkg/../a.py") == "a.py"
    assert relative_path(tmp_path, "/etc/passwd") is None
    assert relative_path(tmp_path, "../outside.py") is None


def test_touched_lines(tmp_path: Path) -> None:
    file = tmp_path / "a.py"
    file.write_text("one\ntwo\nthree\nfour\ntwo\n")
    assert touched_lines(file, ("two\nthree",)) == [(2, 3)]
    assert touched_lines(file, ("two",)) == [(2, 2), (5, 5)]
    assert touched_lines(file, ()) == []
    assert touched_lines(file, ("absent",)) is None
    assert touched_lines(tmp_path / "missing.py", ("two",)) is None
    big = tmp_path / "big.py"
    big.write_bytes(b"x\n" * (MAX_FILE_BYTES // 2 + 1))
    assert touched_lines(big, ("x",)) == []  # too large to read: the whole file
