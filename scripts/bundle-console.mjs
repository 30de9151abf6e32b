#!/usr/bin/env node
// Builds the web console (console/, docs/console.md) into <dist>/console/: its script and style
// bundled and minified by esbuild under content-hashed names in assets/, and index.html, a
// template the server fills in (the base and issuer URLs, the console's path) at run time.
// `npm run build` runs it after tsc; the release runs it on its own staging folder (an argument
// names another folder than dist/). The metafile beside it (<dist>/console-bundle.json, not
// shipped) says what went into the bundle.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const dist = resolve(process.argv[2] ?? join(root, "dist"));
const outdir = join(dist, "console");
rmSync(outdir, { recursive: true, force: true });
mkdirSync(join(outdir, "assets"), { recursive: true });
const result = await build({
  entryPoints: { console: join(root, "console/src/main.tsx") },
  outdir: join(outdir, "assets"),
  absWorkingDir: root,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  // The hash is of the content: a changed file gets a new name, an unchanged one keeps its own.
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  // The release compiles into a folder outside the checkout: packages come from the checkout's.
  nodePaths: [join(root, "node_modules")],
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const script = outputs.find((f) => f.endsWith(".js"));
const style = outputs.find((f) => f.endsWith(".css"));
if (script === undefined || style === undefined) throw new Error(`the console's bundle lacks a script or a style: ${outputs.join(", ")}`);
const template = readFileSync(join(root, "console/index.html"), "utf8");
writeFileSync(
  join(outdir, "index.html"),
  template.replace("{{script}}", `{{console_path}}/assets/${script}`).replace("{{style}}", `{{console_path}}/assets/${style}`),
);
writeFileSync(join(dist, "console-bundle.json"), JSON.stringify(result.metafile));
