// Bundle the extension with esbuild: dist/extension.js (CommonJS, `vscode` external).
// Usage: node scripts/build.mjs [--production] [--watch]
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const options = {
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["vscode"],
  sourcemap: !production,
  minify: production,
  logLevel: "info",
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log("esbuild: watching src/");
} else {
  console.log(`esbuild: src/extension.ts -> dist/extension.js${production ? " (production)" : ""}`);
  await esbuild.build(options);
}
