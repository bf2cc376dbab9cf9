import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AnchoredNotes,
  age,
  anchoredNotesHandler,
  notePickItems,
  parseAnchoredNotes,
  symbolName,
  withDocument,
} from "../src/core/anchoredNotes";
import { SERVER_COMMANDS } from "../src/core/commandArgs";
import { type CommandTarget, Dispatch } from "../src/core/dispatch";

// What `nano-brain.notes` returns (server/nano_brain/lsp/commands.py `notes`).
const response = {
  symbol: "billing.py::apply_discount",
  notes: [
    {
      id: "a8e8fd762f3a",
      title: "Old rounding rule",
      status: "superseded",
      tags: [],
      stale: null,
      snippet: "Round half up.",
    },
    {
      id: "0c1d2e3f4a5b",
      title: "Why apply_discount rounds down",
      status: "active",
      tags: ["decision", "billing"],
      stale: "changed",
      snippet: "Whole cents,\n  so invoices never over-charge.",
    },
  ],
};

describe("the notes CodeLens: server result to QuickPick items", () => {
  it("reads the server's result", () => {
    const notes = parseAnchoredNotes(response);
    assert.equal(notes.symbol, "billing.py::apply_discount");
    assert.deepEqual(
      notes.notes.map((n) => [n.id, n.title, n.status, n.stale, n.createdMs]),
      [
        ["a8e8fd762f3a", "Old rounding rule", "superseded", null, null],
        ["0c1d2e3f4a5b", "Why apply_discount rounds down", "active", "changed", null],
      ],
    );
  });

  it("shows title, id, tags, status and staleness; current notes first", () => {
    const items = notePickItems(parseAnchoredNotes(response));
    assert.deepEqual(items, [
      {
        label: "$(warning) Why apply_discount rounds down",
        description: "#0c1d2e3f4a5b  #decision #billing  [may be stale: code changed since]",
        detail: "Whole cents, so invoices never over-charge.",
        id: "0c1d2e3f4a5b",
        title: "Why apply_discount rounds down",
      },
      {
        label: "$(note) Old rounding rule",
        description: "#a8e8fd762f3a  [superseded]",
        detail: "Round half up.",
        id: "a8e8fd762f3a",
        title: "Old rounding rule",
      },
    ]);
  });

  it("says when the code is gone, and shows the age when the server sends one", () => {
    const now = Date.parse("2026-03-10T12:00:00Z");
    const notes = parseAnchoredNotes({
      symbol: "s",
      notes: [
        { id: "1", title: "A", stale: "missing", created_at: "2026-03-05T12:00:00Z" },
        { id: "2", title: "B", created_at: now / 1000 - 3 * 3600 },
      ],
    });
    const [a, b] = notePickItems(notes, now);
    assert.equal(a?.description, "#1  5d ago  [may be stale: code removed]");
    assert.equal(b?.description, "#2  3h ago");
  });

  it("tolerates a malformed result instead of failing the click", () => {
    assert.deepEqual(parseAnchoredNotes(null), { symbol: "", notes: [] });
    assert.deepEqual(parseAnchoredNotes({ notes: "no" }), { symbol: "", notes: [] });
    const notes = parseAnchoredNotes({ notes: [{ title: "no id" }, { id: 7 }] });
    assert.deepEqual(notePickItems(notes).map((i) => i.label), ["$(note) #7"]);
  });

  it("names the symbol without its file, and ages like the hover", () => {
    assert.equal(symbolName("billing.py::Cart.total"), "Cart.total");
    assert.equal(symbolName("Cart"), "Cart");
    assert.deepEqual([age(45_000), age(12 * 60_000), age(8 * 86_400_000), age(400 * 86_400_000)], [
      "45s",
      "12m",
      "1w",
      "1y",
    ]);
  });
});

describe("the notes CodeLens: routing the lens command", () => {
  const lensArgs = [{ symbol: "billing.py::apply_discount", root: "/ws" }];
  const documentUri = "file:///ws/billing.py";

  function setup(documentIn: (target: CommandTarget) => string | undefined = () => documentUri) {
    const sent: { command: string; args: unknown[] }[] = [];
    const shown: { notes: AnchoredNotes; target: CommandTarget }[] = [];
    const dispatch = new Dispatch(async (command, args) => {
      sent.push({ command, args });
      return command === SERVER_COMMANDS.notes ? response : { id: "9" };
    });
    const handling = dispatch.handle(
      SERVER_COMMANDS.notes,
      anchoredNotesHandler({
        documentIn,
        show: async (notes, target) => void shown.push({ notes, target }),
      }),
    );
    return { dispatch, handling, sent, shown };
  }

  it("runs the command on the server and shows the notes it returned", async () => {
    const { dispatch, sent, shown } = setup();
    const result = await dispatch.run(SERVER_COMMANDS.notes, lensArgs);
    assert.deepEqual(sent, [
      { command: "nano-brain.notes", args: [{ symbol: "billing.py::apply_discount", root: "/ws", uri: documentUri }] },
    ]);
    assert.equal(shown.length, 1);
    assert.deepEqual(
      notePickItems(shown[0]!.notes).map((i) => i.title),
      ["Why apply_discount rounds down", "Old rounding rule"],
    );
    assert.deepEqual(shown[0]!.target, { uri: documentUri, root: "/ws" });
    assert.deepEqual(result, parseAnchoredNotes(response));
  });

  it("sends the lens's arguments unchanged when the active document is elsewhere", async () => {
    const { dispatch, sent, shown } = setup(() => undefined);
    await dispatch.run(SERVER_COMMANDS.notes, lensArgs);
    assert.deepEqual(sent[0]?.args, lensArgs);
    assert.deepEqual(shown[0]?.target, { root: "/ws" });
  });

  it("leaves the other commands alone: their result goes back to the caller", async () => {
    const { dispatch, sent, shown } = setup();
    assert.deepEqual(await dispatch.run(SERVER_COMMANDS.retract, [{ id: "9", reason: "x" }]), { id: "9" });
    assert.deepEqual(sent, [{ command: "nano-brain.retract", args: [{ id: "9", reason: "x" }] }]);
    assert.equal(shown.length, 0);
  });

  it("goes straight to the server again once the handler is disposed, and refuses a second handler", async () => {
    const { dispatch, handling, shown } = setup();
    assert.throws(() => dispatch.handle(SERVER_COMMANDS.notes, async () => undefined), /already has a client handler/);
    handling.dispose();
    assert.deepEqual(await dispatch.run(SERVER_COMMANDS.notes, lensArgs), response);
    assert.equal(shown.length, 0);
  });

  it("adds the document only to an argument object that names none", () => {
    assert.deepEqual(withDocument([{ root: "/ws" }], "file:///ws/a.py"), [{ root: "/ws", uri: "file:///ws/a.py" }]);
    assert.deepEqual(withDocument([{ uri: "file:///ws/b.py" }], "file:///ws/a.py"), [{ uri: "file:///ws/b.py" }]);
    assert.deepEqual(withDocument([], "file:///ws/a.py"), []);
    assert.deepEqual(withDocument([{ root: "/ws" }], undefined), [{ root: "/ws" }]);
  });
});
