/**
 * `deno task build:web`: bundles the web page (`web/src/`) into the committed
 * module `web/assets.ts`, which the HTTP handler serves. A fresh clone and
 * JSR cannot run a build step, so the bundle is committed; the tests rebuild
 * it and fail when the result differs (`--check`).
 *
 * How: `npm ci` installs the pinned tools and libraries
 * (esbuild, Preact, markdown-it: `web/build_deps.json`, locked by
 * `web/build_deps.lock.json`) into a temporary
 * folder, and esbuild, run by Node there, bundles `web/src/main.tsx` and
 * `web/src/style.css`. The page's source imports its libraries as `npm:`
 * specifiers (so `deno check` types it); a small esbuild plugin maps each to
 * the installed package and fails when the versions disagree. Asset names
 * carry a hash of their content.
 *
 * Usage:
 * - `deno run -A scripts/build_web.ts`: writes `web/assets.ts`;
 * - `deno run -A scripts/build_web.ts --check`: exits 1 when the committed
 *   file is not what a build gives;
 * - `--out PATH`: writes elsewhere.
 *
 * @module
 */

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WEB = join(ROOT, "web");
const SRC = join(WEB, "src");
const OUT = join(WEB, "assets.ts");

/** One built file. */
export interface BuiltAsset {
  /** Hashed name under `/_memo/assets/`. */
  name: string;
  /** Content-Type. */
  type: string;
  /** Text. */
  text: string;
}

/** What the bundler step gives, before naming. */
interface Bundled {
  js: string;
  css: string;
  versions: Record<string, string>;
}

// Run by Node in the folder where npm ci installed the tools. It prints the bundles as JSON.
const BUNDLER = `
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const [src] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const versions = {};
const npmSpecifiers = {
  name: "npm-specifiers",
  setup(b) {
    b.onResolve({ filter: /^npm:/ }, async (args) => {
      const m = /^npm:((?:@[^/@]+\\/)?[^/@]+)@([^/]+)(\\/.*)?$/.exec(args.path);
      if (!m) return { errors: [{ text: "Cannot read the specifier " + args.path }] };
      const [, name, version, sub = ""] = m;
      const installed = JSON.parse(readFileSync(require.resolve(name + "/package.json"), "utf8")).version;
      if (installed !== version) {
        return { errors: [{ text: args.path + " asks for " + version + " but web/build_deps.json installs " + installed }] };
      }
      versions[name] = version;
      const resolved = await b.resolve(name + sub, { resolveDir: process.cwd(), kind: args.kind });
      return resolved.errors.length ? { errors: resolved.errors } : { path: resolved.path };
    });
  },
};
const common = { bundle: true, write: false, minify: true, charset: "utf8", legalComments: "none", logLevel: "silent" };
const js = await build({
  ...common,
  entryPoints: [src + "/main.tsx"],
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  plugins: [npmSpecifiers],
});
const css = await build({ ...common, entryPoints: [src + "/style.css"] });
process.stdout.write(JSON.stringify({ js: js.outputFiles[0].text, css: css.outputFiles[0].text, versions }));
`;

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim();
    throw new Error(`Cannot build the web page: ${cmd} ${args.join(" ")} failed: ${err}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Installs the pinned tools in a temporary folder and bundles the page. */
async function bundle(): Promise<Bundled> {
  const dir = await mkdtemp(join(tmpdir(), "memo-web-build-"));
  try {
    // Not named package.json in web/: Deno would take that folder for a package of its own.
    await writeFile(join(dir, "package.json"), await readFile(join(WEB, "build_deps.json")));
    await writeFile(
      join(dir, "package-lock.json"),
      await readFile(join(WEB, "build_deps.lock.json")),
    );
    await run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], dir);
    await writeFile(join(dir, "bundle.mjs"), BUNDLER);
    return JSON.parse(await run("node", ["bundle.mjs", SRC], dir));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function hashed(stem: string, ext: string, text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${stem}-${hex.slice(0, 10)}.${ext}`;
}

/** The module's text for these assets. */
function moduleText(assets: BuiltAsset[], versions: Record<string, string>): string {
  const [script, style, icon] = assets.map((a) => a.name);
  const libraries = Object.entries(versions).sort().map(([n, v]) => `${n} ${v}`).join(", ");
  const entries = assets.map((a) =>
    `  {\n    name: ${JSON.stringify(a.name)},\n    type: ${JSON.stringify(a.type)},\n` +
    `    text: ${JSON.stringify(a.text)},\n  },\n`
  ).join("");
  return `// Generated by scripts/build_web.ts from web/src/ (${libraries}): do not edit.
// Rebuild with \`deno task build:web\`; the tests fail when this file is stale.

/** One bundled file of the web page. */
export interface WebAsset {
  /** File name under \`/_memo/assets/\`, content-hashed: \`app-1a2b3c4d5e.js\`. */
  readonly name: string;
  /** Its \`Content-Type\`. */
  readonly type: string;
  /** The file's text. */
  readonly text: string;
}

/** Every asset of the page. */
export const WEB_ASSETS: readonly WebAsset[] = [
${entries}];

/** The files the HTML links: the module script, the style sheet and the icon. */
export const WEB_ENTRY: { readonly script: string; readonly style: string; readonly icon: string } = {
  script: ${JSON.stringify(script)},
  style: ${JSON.stringify(style)},
  icon: ${JSON.stringify(icon)},
};
`;
}

/** Builds the page and returns the text of `web/assets.ts`. */
export async function buildWebModule(): Promise<string> {
  const built = await bundle();
  const banner = `/*! memo web page. Bundles ${
    Object.entries(built.versions).sort().map(([n, v]) => `${n} ${v}`).join(", ")
  } and their dependencies (MIT licensed; see their npm packages). */\n`;
  const js = banner + built.js;
  const icon = await readFile(join(SRC, "icon.svg"), "utf8");
  const assets: BuiltAsset[] = [
    { name: await hashed("app", "js", js), type: "text/javascript; charset=utf-8", text: js },
    {
      name: await hashed("app", "css", built.css),
      type: "text/css; charset=utf-8",
      text: built.css,
    },
    { name: await hashed("icon", "svg", icon), type: "image/svg+xml", text: icon },
  ];
  return formatted(moduleText(assets, built.versions));
}

/** Formats TypeScript text the way `deno fmt` does, so the committed file stays fmt-clean. */
async function formatted(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext", "ts", "-"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) {
    throw new Error(`Cannot format web/assets.ts: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

if (import.meta.main) {
  const args = Deno.args;
  const outIndex = args.indexOf("--out");
  const out = outIndex === -1 ? OUT : args[outIndex + 1];
  const text = await buildWebModule();
  if (args.includes("--check")) {
    const committed = await readFile(out, "utf8").catch(() => "");
    if (committed !== text) {
      console.error(
        `memo: ${out} is stale: web/src/ builds to something else; run \`deno task build:web\``,
      );
      Deno.exit(1);
    }
    console.error(`memo: ${out} is what web/src/ builds to`);
  } else {
    await writeFile(out, text);
    const sizes = text.length;
    console.error(`memo: wrote ${out} (${sizes} characters)`);
  }
}
