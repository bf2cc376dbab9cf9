import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SERVER_COMMANDS } from "../src/core/commandArgs";
import { Dispatch } from "../src/core/dispatch";
import { parseVirtualQuery, whyUriParts } from "../src/core/search";
import { type WhyView, parseWhyView, whyHandler } from "../src/core/why";

// What `nano-brain.why` returns (server/nano_brain/why.py `WhyView`), trimmed.
const response = {
  symbol: "billing.py::RefundPolicy.refund_amount",
  path: "billing.py",
  notes: [{ id: "0c1d2e3f4a5b", title: "Refund window", author: "agent (MCP)" }],
  commits: [{ hash: "a1b2c3d4e5", subject: "billing: no refunds after 30 days" }, { hash: "f0" }],
  sessions: [],
  text: "# Why `RefundPolicy.refund_amount`\n\n## Notes and decisions (1)",
};

describe("the why view", () => {
  it("reads the server's result", () => {
    assert.deepEqual(parseWhyView(response), {
      symbol: "billing.py::RefundPolicy.refund_amount",
      text: `${response.text}\n`,
      notes: 1,
      commits: 2,
    });
    assert.match(parseWhyView(null).text, /no view/);
  });

  it("the hover's link sends its symbol; the palette sends the cursor", async () => {
    const sent: unknown[][] = [];
    const shown: WhyView[] = [];
    const dispatch = new Dispatch(async (command, args) => {
      assert.equal(command, SERVER_COMMANDS.why);
      sent.push(args);
      return response;
    });
    const cursor = { uri: "file:///ws/billing.py", position: { line: 12, character: 10 } };
    dispatch.handle(
      SERVER_COMMANDS.why,
      whyHandler({ cursor: () => cursor, show: async (view) => void shown.push(view) }),
    );
    const link = [{ symbol: response.symbol, root: "/ws" }];
    await dispatch.run(SERVER_COMMANDS.why, link);
    await dispatch.run(SERVER_COMMANDS.why, []);
    assert.deepEqual(sent, [link, [cursor]]);
    assert.equal(shown.length, 2);
    assert.equal(shown[0]?.symbol, response.symbol);
  });

  it("without a cursor or a symbol there is nothing to explain", async () => {
    const dispatch = new Dispatch(async () => response);
    dispatch.handle(SERVER_COMMANDS.why, whyHandler({ cursor: () => undefined, show: async () => {} }));
    await assert.rejects(dispatch.run(SERVER_COMMANDS.why, []), /cursor on a symbol/);
  });

  it("the view's document names its folder and symbol", () => {
    const parts = whyUriParts("file:///ws", response.symbol);
    assert.equal(parts.path, "/why RefundPolicy.refund_amount.md");
    assert.deepEqual(parseVirtualQuery(parts.query), {
      kind: "why",
      folder: "file:///ws",
      symbol: response.symbol,
    });
  });
});
