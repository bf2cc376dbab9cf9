#!/usr/bin/env node
// Real-editor end-to-end test: code-server 4.100.3 (VS Code 1.100.3) in headless Chromium,
// driven by playwright-core.
//
//   1. installs the built nano-brain.vsix into a fresh extensions dir;
//   2. opens a copy of e2e/fixture/ (isolated XDG dirs, so the store is fresh);
//   3. seeds a decision about `apply_discount` with the CLI, hovers the symbol and reads the
//      memory hover from `.monaco-hover` (screenshot: artifacts/hover.png);
//   4. selects the function and runs "nano-brain: Save Selection as Note" from the command
//      palette (title + tags typed into the input boxes);
//   5. checks that `nano-brain query` finds the new note, and that the hover on the symbol
//      now shows it (it is anchored there);
//   6. clicks the "1 note" CodeLens above the symbol, finds the note in the QuickPick, picks it
//      and sees it open in the read-only document (screenshot: artifacts/lens-notes.png);
//   7. an agent writes a decision anchored to `apply_discount` over MCP (`nano-brain mcp`,
//      JSON-RPC over stdio); the hover shows it "by agent (MCP)", with the commit that made
//      the function (the workspace is a git repository) (screenshot: artifacts/hover-agent.png);
//   8. "nano-brain: Why Is This Code Like This?" opens the full view as a read-only document
//      (screenshot: artifacts/why.png);
//   9. runs "nano-brain: Open Memory" and searches the memory page in its webview for the
//      seeded decision (screenshot: artifacts/memory-webview.png).
//
// Needs: `npm run package` done (nano-brain.vsix), code-server from
// scripts/install-code-server.sh (or CODE_SERVER=/path/to/code-server), /usr/bin/chromium
// (or CHROMIUM=...), `nano-brain` on PATH with the `lsp` command.
// Options: --stub  use e2e/stub-nano-brain (a tiny pygls stand-in) to check the harness only.
//          --keep  keep the temp dir.  ARTIFACTS=dir (default: e2e/artifacts).
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chromium } from "playwright-core";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const stub = process.argv.includes("--stub");
const keep = process.argv.includes("--keep");
const vsix = resolve(process.env.VSIX ?? join(root, "nano-brain.vsix"));
const codeServer =
  process.env.CODE_SERVER ?? join(root, ".e2e/code-server/node_modules/.bin/code-server");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const artifacts = resolve(process.env.ARTIFACTS ?? join(root, "e2e/artifacts"));
const nanoBrain = stub ? join(root, "e2e/stub-nano-brain") : (process.env.NANO_BRAIN ?? "nano-brain");

const SEEDED = "Why apply_discount rounds down";
const AGENT = "Discounts never exceed the list price";
const COMMIT = "billing: apply_discount rounds down to whole cents (NB-7)";
const SAVED = `e2e note ${Date.now().toString(36)}`;
const started = Date.now();

function step(message) {
  console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

function fail(message) {
  throw new Error(message);
}

async function freePort() {
  return new Promise((ok, err) => {
    const srv = createServer();
    srv.on("error", err);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

async function waitFor(what, fn, timeoutMs, intervalMs = 500) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  fail(`timed out after ${timeoutMs / 1000}s waiting for ${what}${last ? `: ${last.message}` : ""}`);
}

/** One tool call over MCP: `nano-brain mcp` on stdio, newline-delimited JSON-RPC. */
async function mcpCall(env, workspace, tool, args) {
  const child = spawn(nanoBrain, ["mcp", "--workspace", workspace], { env, stdio: ["pipe", "pipe", "pipe"] });
  let buffer = "";
  const answers = new Map();
  child.stdout.on("data", (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line === "") continue;
      const message = JSON.parse(line);
      if (message.id !== undefined) answers.set(message.id, message);
    }
  });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const answer = (id) => waitFor(`MCP answer ${id}`, () => answers.get(id), 60_000, 50);
  try {
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {},
      clientInfo: { name: "e2e-agent", version: "0" } } });
    await answer(1);
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: tool, arguments: args } });
    const reply = await answer(2);
    if (reply.error || reply.result?.isError) fail(`${tool}: ${JSON.stringify(reply.error ?? reply.result.content)}`);
    return reply.result.structuredContent;
  } finally {
    child.kill("SIGTERM");
  }
}

/** The absolute path of a command found on this process's PATH (as given when it has a /). */
async function absolute(command) {
  if (command.includes("/")) return resolve(command);
  const { stdout } = await run("sh", ["-c", 'command -v "$0"', command]);
  const found = stdout.trim();
  if (found === "") fail(`${command} is not on PATH`);
  return found;
}

async function cli(env, ...args) {
  const { stdout } = await run(nanoBrain, [...args, "--json"], { env, maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}

for (const [what, path] of [
  ["the .vsix (run `npm run package`)", vsix],
  ["code-server (run `npm run e2e:install`, or set CODE_SERVER)", codeServer],
  ["chromium (apt-get install chromium, or set CHROMIUM)", chromiumPath],
]) {
  if (!existsSync(path)) fail(`missing ${what}: ${path}`);
}

const tmp = mkdtempSync(join(tmpdir(), "nano-brain-e2e-"));
const workspace = join(tmp, "workspace");
const userData = join(tmp, "user-data");
const extensions = join(tmp, "extensions");
cpSync(join(root, "e2e/fixture"), workspace, { recursive: true });
mkdirSync(join(userData, "User"), { recursive: true });
mkdirSync(artifacts, { recursive: true });
const env = {
  ...process.env,
  XDG_DATA_HOME: join(tmp, "xdg-data"),
  XDG_STATE_HOME: join(tmp, "xdg-state"),
  XDG_CONFIG_HOME: join(tmp, "xdg-config"),
  XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? tmp, ".cache"),
};
writeFileSync(
  join(userData, "User/settings.json"),
  JSON.stringify(
    {
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.enableExperiments": false,
      "security.workspace.trust.enabled": false,
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "telemetry.telemetryLevel": "off",
      "editor.hover.delay": 150,
      // the nano-brain under test, by its absolute path: the extension host's PATH comes
      // from a login shell, which drops an activated virtualenv
      "nanoBrain.server.path": stub ? nanoBrain : await absolute(nanoBrain),
    },
    null,
    2,
  ),
);

let server;
let browser;
let page;
let serverLog = "";
try {
  step(`workspace ${workspace}${stub ? " (stub server)" : ""}`);
  const git = (...args) =>
    run("git", args, {
      cwd: workspace,
      env: { ...env, GIT_AUTHOR_NAME: "Grace Hopper", GIT_AUTHOR_EMAIL: "grace@example.com",
        GIT_COMMITTER_NAME: "Grace Hopper", GIT_COMMITTER_EMAIL: "grace@example.com",
        GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    });
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", COMMIT);
  await cli(env, "write", "--workspace", workspace, "--title", SEEDED, "--tag", "decision",
    "apply_discount rounds down to whole cents so invoices never over-charge.");

  step("installing the .vsix into code-server");
  await run(codeServer, ["--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix], { env });

  const port = await freePort();
  step(`starting code-server on 127.0.0.1:${port}`);
  server = spawn(
    codeServer,
    ["--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--user-data-dir", userData,
      "--extensions-dir", extensions, "--disable-telemetry", "--disable-update-check",
      "--disable-workspace-trust", workspace],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout.on("data", (d) => (serverLog += d));
  server.stderr.on("data", (d) => (serverLog += d));
  await waitFor("code-server to listen", () => serverLog.includes("HTTP server listening"), 60_000);

  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 60_000 });
  step("workbench loaded");

  const palette = async (command, { escape = true } = {}) => {
    if (escape) await page.keyboard.press("Escape"); // also clears the editor selection
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 10_000 });
    await input.fill(`>${command}`);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: command }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press("Enter");
  };
  // With `prompt`, wait for the input box that shows it: a command's second box replaces the
  // first in the same widget, and typing before it is there loses the text.
  const quickInput = async (text, prompt) => {
    const widget = prompt
      ? page.locator(".quick-input-widget:visible", { hasText: prompt })
      : page.locator(".quick-input-widget:visible");
    await widget.first().waitFor({ timeout: 10_000 });
    const input = widget.first().locator("input");
    await input.waitFor({ state: "visible", timeout: 10_000 });
    await input.fill(text);
    await page.keyboard.press("Enter");
  };
  const goTo = async (line, column) => {
    await palette("Go to Line/Column");
    await quickInput(`:${line}:${column}`); // the quick input's ":" prefix selects line mode
  };
  const readHover = async () => {
    await goTo(4, 8); // on `apply_discount` in `def apply_discount(...)`
    await palette("Show or Focus Hover");
    const hover = page.locator(".monaco-hover:visible").first();
    await hover.waitFor({ state: "visible", timeout: 5_000 });
    return hover.innerText();
  };

  step("opening billing.py");
  await page.keyboard.press("Control+P");
  const quickOpen = page.locator(".quick-input-widget input");
  await quickOpen.waitFor({ state: "visible", timeout: 10_000 });
  await quickOpen.fill("billing.py");
  // a git repository's first file search can take a while on a busy machine
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "billing.py" }).first().waitFor({ timeout: 60_000 });
  await page.keyboard.press("Enter");
  await page.locator(".monaco-editor .view-line", { hasText: "def apply_discount" }).first().waitFor({ timeout: 20_000 });

  step("waiting for the nano-brain server (status bar)");
  const status = page.locator(".statusbar-item", { hasText: /nano-brain|\bnotes?\b/ }).first();
  const statusText = await waitFor(
    "the status bar to show the note count",
    async () => {
      const text = await status.innerText({ timeout: 1_000 });
      if (/not found|stopped/.test(text)) fail(`status bar says: ${text}`);
      return /\d+ notes?/.test(text) ? text : undefined;
    },
    120_000,
  );
  step(`status bar: ${statusText.trim()}`);

  step("hovering apply_discount");
  const hoverText = await waitFor(
    `a hover that shows "${SEEDED}"`,
    async () => {
      const text = await readHover();
      return text.includes(SEEDED) ? text : undefined;
    },
    90_000,
    1_000,
  );
  await page.screenshot({ path: join(artifacts, "hover.png") });
  writeFileSync(join(artifacts, "hover.txt"), hoverText);
  step(`hover ok (${hoverText.length} chars), screenshot ${join(artifacts, "hover.png")}`);

  step("selecting apply_discount and running Save Selection as Note");
  await page.keyboard.press("Escape");
  await goTo(4, 1);
  for (let i = 0; i < 5; i++) await page.keyboard.press("Shift+ArrowDown");
  await palette("nano-brain: Save Selection as Note", { escape: false });
  await quickInput(SAVED, "Title");
  await quickInput("e2e, billing", "Tags");
  await page
    .locator(".notifications-toasts", { hasText: "saved note" })
    .first()
    .waitFor({ timeout: 30_000 });
  step("the extension reported the note saved");

  step("nano-brain query finds the note");
  const found = await waitFor(
    "nano-brain query to find the saved note",
    async () => {
      const result = await cli(env, "query", SAVED, "--workspace", workspace);
      return result.results.find((r) => r.title === SAVED);
    },
    30_000,
    1_000,
  );
  if (!found.tags.includes("e2e")) fail(`the note lost its tags: ${JSON.stringify(found.tags)}`);
  step(`found #${found.id} "${found.title}" [${found.tags.join(", ")}]`);

  step("the hover now shows the anchored note");
  await page.keyboard.press("Escape");
  const anchored = await waitFor(
    `a hover that shows "${SAVED}"`,
    async () => ((await readHover()).includes(SAVED) ? true : undefined),
    30_000,
    1_000,
  );
  if (anchored) await page.screenshot({ path: join(artifacts, "hover-anchored.png") });

  if (stub) {
    step("skipping the CodeLens steps: the stub server has no code lenses");
  } else {
    step("clicking the CodeLens above apply_discount");
    await page.keyboard.press("Escape");
    const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: /\d+ notes?/ }).first();
    await lens.waitFor({ state: "visible", timeout: 30_000 });
    const lensText = (await lens.innerText()).trim();
    await lens.click();
    const row = page.locator(".quick-input-widget:visible .quick-input-list .monaco-list-row", { hasText: SAVED });
    await row.first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(artifacts, "lens-notes.png") });
    step(`"${lensText}" lists the note in a QuickPick, screenshot ${join(artifacts, "lens-notes.png")}`);

    step("picking it opens the note read-only");
    await row.first().click();
    await page
      .locator(".monaco-editor .view-line", { hasText: `# ${SAVED}` })
      .first()
      .waitFor({ timeout: 20_000 });
    step("the note is open");

    step("an agent writes a decision anchored to apply_discount over MCP");
    const written = await mcpCall(env, workspace, "memory_write", {
      content: "apply_discount never returns more than the total: percent is checked first.",
      title: AGENT,
      tags: ["decision"],
      anchors: ["apply_discount"],
    });
    const anchoredTo = written.anchored_to.map((a) => a.symbol);
    if (!anchoredTo.includes("billing.py::apply_discount")) fail(`not anchored: ${JSON.stringify(anchoredTo)}`);
    step(`#${written.document.id} anchored to ${anchoredTo.join(", ")}`);

    step("the hover shows the agent's decision, its author and the commit");
    await page.keyboard.press("Escape");
    await page.locator(".tabs-container .tab", { hasText: "billing.py" }).first().click();
    await page.locator(".monaco-editor .view-line", { hasText: "def apply_discount" }).first().waitFor({ timeout: 20_000 });
    const agentHover = await waitFor(
      `a hover that shows "${AGENT}" by the agent and the commit`,
      async () => {
        const text = await readHover();
        return text.includes(AGENT) && text.includes("by agent (MCP)") && text.includes(COMMIT.slice(0, 40))
          ? text
          : undefined;
      },
      60_000,
      1_000,
    );
    await page.screenshot({ path: join(artifacts, "hover-agent.png") });
    writeFileSync(join(artifacts, "hover-agent.txt"), agentHover);

    step("Why Is This Code Like This? opens the full view");
    await page.keyboard.press("Escape");
    await goTo(4, 8);
    await palette("nano-brain: Why Is This Code Like This?", { escape: false });
    await page
      .locator(".monaco-editor .view-line", { hasText: "Why `apply_discount`" })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.locator(".monaco-editor .view-line", { hasText: AGENT }).first().waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(artifacts, "why.png") });
    step("the why view is open");

    step("running nano-brain: Open Memory");
    await palette("nano-brain: Open Memory");
    // a webview is an iframe in an iframe: VS Code's host frame, then the page's own
    const memory = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
    await memory.locator("#search-form").waitFor({ timeout: 90_000 });
    await memory.locator("#query").fill("apply_discount rounds");
    await memory.locator("#search-form button[type=submit]").click();
    await memory.locator("#results[data-state=ready]").waitFor({ timeout: 60_000 });
    const titles = await memory.locator("#results li.hit .doc-link").allInnerTexts();
    if (!titles.includes(SEEDED)) fail(`the memory page's search did not find "${SEEDED}": ${JSON.stringify(titles)}`);
    await page.screenshot({ path: join(artifacts, "memory-webview.png") });
    step(`the memory page in the webview found "${SEEDED}" (${titles.length} results)`);
  }
  console.log("e2e: 1 passed, 0 failed");
} catch (error) {
  if (page) await page.screenshot({ path: join(artifacts, "failure.png") }).catch(() => {});
  writeFileSync(join(artifacts, "code-server.log"), serverLog);
  console.error(`e2e failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error(`artifacts in ${artifacts} (failure.png, code-server.log); temp dir ${tmp}`);
  console.log("e2e: 0 passed, 1 failed");
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  server?.kill("SIGTERM");
  if (!keep && process.exitCode !== 1) rmSync(tmp, { recursive: true, force: true });
}
