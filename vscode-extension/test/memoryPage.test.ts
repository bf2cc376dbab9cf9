import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiRequest, nonce, parseUiEndpoint, webviewHtml, workspaceRelative } from "../src/core/memoryPage";

describe("the endpoint nano-brain ui announces", () => {
  const line = JSON.stringify({
    url: "http://127.0.0.1:41234/",
    open_url: "http://127.0.0.1:41234/#code=abc_DEF-123",
    pid: 77,
    workspace: "/w",
    reused: false,
    opened: false,
  });

  it("gives the url and the one-time code", () => {
    assert.deepEqual(parseUiEndpoint(line), { url: "http://127.0.0.1:41234/", code: "abc_DEF-123", pid: 77, reused: false });
  });

  it("refuses anything but a loopback page of its own", () => {
    const evil = JSON.parse(line) as Record<string, unknown>;
    evil["url"] = "http://evil.example.com:80/";
    evil["open_url"] = "http://evil.example.com:80/#code=abc";
    assert.equal(parseUiEndpoint(JSON.stringify(evil)), undefined);
    const elsewhere = JSON.parse(line) as Record<string, unknown>;
    elsewhere["open_url"] = "http://127.0.0.1:9/#code=abc";
    assert.equal(parseUiEndpoint(JSON.stringify(elsewhere)), undefined);
    assert.equal(parseUiEndpoint("nano-brain memory page for /w"), undefined);
    assert.equal(parseUiEndpoint("null"), undefined);
  });
});

describe("requests the page may have the extension make", () => {
  it("allows the memory API", () => {
    assert.ok(isApiRequest("GET", "/api/info"));
    assert.ok(isApiRequest("POST", "/api/documents/0123456789ab/confirm"));
    assert.ok(isApiRequest("GET", "/api/timeline?kind=note&tag=a%2Fb"));
  });

  it("refuses other hosts, other paths, the session and escapes", () => {
    for (const path of ["http://evil.example.com/api/info", "//evil.example.com/api/info", "/assets/app.js",
      "/api/session", "/api/../assets/app.js", "/api/%2e%2e/x", "/api/x\\y", "api/info", 42]) {
      assert.equal(isApiRequest("GET", path), false, String(path));
    }
    assert.equal(isApiRequest("DELETE", "/api/info"), false);
  });
});

describe("files the page may open", () => {
  it("keeps paths inside the workspace", () => {
    assert.equal(workspaceRelative("src/billing.py"), "src/billing.py");
    for (const bad of ["/etc/passwd", "../x", "a/../../x", "C:\\x", "", "a//b", null]) {
      assert.equal(workspaceRelative(bad), undefined, String(bad));
    }
  });
});

describe("the webview document", () => {
  it("inlines the bundle under a nonce and allows nothing else", () => {
    const n = nonce();
    assert.match(n, /^[A-Za-z0-9_-]{32}$/);
    const html = webviewHtml("console.log('</script><b>')", "body{}", n, "vscode-resource:");
    assert.match(html, new RegExp(`script-src 'nonce-${n}'`));
    assert.ok(html.includes("default-src 'none'"));
    assert.equal(html.match(/<\/script>/g)?.length, 1);
    assert.ok(!html.includes("unsafe-inline"));
  });

  it("forbids a <base> and form submissions, and keeps every other directive", () => {
    const html = webviewHtml("", "", nonce(), "vscode-resource:");
    const csp = /content="([^"]*)"/.exec(html)?.[1] ?? "";
    const directives = csp.split(";").map((d) => d.trim());
    for (const expected of ["default-src 'none'", "base-uri 'none'", "form-action 'none'", "font-src vscode-resource:",
      "img-src vscode-resource: data:"]) {
      assert.ok(directives.includes(expected), `${expected} in ${csp}`);
    }
    assert.ok(directives.some((d) => /^script-src 'nonce-[A-Za-z0-9_-]{32}'$/.test(d)), csp);
  });
});

describe("the nonce", () => {
  it("comes from the crypto generator, never Math.random", (t) => {
    t.mock.method(Math, "random", () => {
      throw new Error("Math.random must not make a nonce");
    });
    const first = nonce();
    assert.match(first, /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(nonce(), first);
  });

  it("is different every time, even when Math.random is not random at all", (t) => {
    t.mock.method(Math, "random", () => 0);
    const seen = new Set(Array.from({ length: 2000 }, () => nonce()));
    assert.equal(seen.size, 2000);
  });

  it("uses the whole alphabet evenly (192 random bits)", () => {
    const counts = new Map<string, number>();
    const samples = 4000;
    for (let i = 0; i < samples; i++) for (const ch of nonce()) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    assert.equal(counts.size, 64);
    const expected = (samples * 32) / 64;
    for (const [ch, n] of counts) assert.ok(Math.abs(n - expected) < expected * 0.2, `${ch}: ${n} vs ${expected}`);
  });
});
