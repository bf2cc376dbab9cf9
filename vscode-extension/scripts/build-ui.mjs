// Bundle the memory page (webview/src) for both of its homes: the Python package serves it
// (`nano-brain ui`) and the VS Code webview shows the same files, read from that server.
// Output: server/nano_brain/ui/static/{index.html,app.js,app.css}, committed so an install
// needs no Node. The output is deterministic (no source maps, no timestamps).
// Usage: node scripts/build-ui.mjs [--check]   --check: fail if the committed files differ.
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const target = resolve(root, "../server/nano_brain/ui/static");
const check = process.argv.includes("--check");
const out = check ? mkdtempSync(join(tmpdir(), "nano-brain-ui-")) : target;
const FILES = ["index.html", "app.js", "app.css"];

mkdirSync(out, { recursive: true });
const common = { bundle: true, minify: true, legalComments: "none", logLevel: "warning", charset: "utf8" };
await esbuild.build({
  ...common,
  entryPoints: [join(root, "webview/src/main.ts")],
  outfile: join(out, "app.js"),
  format: "iife",
  platform: "browser",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
});
await esbuild.build({ ...common, entryPoints: [join(root, "webview/src/style.css")], outfile: join(out, "app.css") });
copyFileSync(join(root, "webview/src/index.html"), join(out, "index.html"));

if (check) {
  const stale = FILES.filter((f) => {
    try {
      return !readFileSync(join(out, f)).equals(readFileSync(join(target, f)));
    } catch {
      return true;
    }
  });
  rmSync(out, { recursive: true, force: true });
  if (stale.length) {
    console.error(`the committed UI bundle is out of date (${stale.join(", ")}): run \`npm run build:ui\` and commit`);
    process.exit(1);
  }
  console.log("UI bundle up to date");
} else {
  console.log(`built the memory page into ${target}`);
}
