/**
 * Builds the npm packages (`@memo/memory`, `@memo/connectors`,
 * `@memo/mcp-server`) into `npm/` with the TypeScript 6 compiler API: ESM
 * JavaScript plus `.d.ts`, relative `.ts` imports rewritten to `.js`, `npm:`
 * specifiers turned into bare package names and dependencies, and a generated
 * `package.json` per package (`memo` as the `bin` of `@memo/mcp-server`).
 * Each package's npm `exports` are derived from its `deno.json` `exports` (the
 * JSR ones), and the build fails if the written package.json drifts from them
 * or points at a file that was not emitted. A package holds only the emitted
 * `.js` and `.d.ts`, its README.md, LICENSE and package.json (`files`; tests,
 * `testing/`, sources and scripts never ship); `engines.node` is `>=20` and
 * `license` comes from `deno.json`.
 * Worker modules loaded by URL are compiled too, optional peers (transformers.js)
 * are listed as such and never as dependencies, and no emitted module may keep
 * an `npm:` specifier.
 *
 * Usage: `deno run -A scripts/build_npm.ts [--out DIR]`
 *
 * @module
 */

// deno-lint-ignore no-import-prefix
import ts from "npm:typescript@6.0.3";
import { chmod, cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { checkExportMaps, jsrExports, npmExports } from "./_npm_exports.ts";

const repo = resolve(new URL("..", import.meta.url).pathname);
const outArg = Deno.args.indexOf("--out");
const outRoot = resolve(outArg >= 0 ? Deno.args[outArg + 1] : join(repo, "npm"));

interface PackageSpec {
  /** Folder under the repo ("" for the root package). */
  dir: string;
  /** Folder under the output root. */
  out: string;
  /** The package.json `description`. */
  description: string;
  /** Extra entry points that are not exports (the CLI). */
  bins?: Record<string, string>;
  /**
   * Modules that nothing imports statically but that are loaded at run time by
   * URL, such as worker threads (`new URL("./_worker.js", import.meta.url)`):
   * compiled beside the others.
   */
  workers?: string[];
  /**
   * Optional peer dependencies (imported at run time through a specifier held
   * in a variable, so never a dependency): name → version range.
   */
  optionalPeers?: Record<string, string>;
}

const PACKAGES: PackageSpec[] = [
  {
    dir: "memory",
    out: "memory",
    description: "memo's core: the notes.md store and recall (BM25 and offline embeddings)",
    workers: ["./embed/_worker.ts"],
    // Hub embedding models; its install script fetches GPU binaries, so a plain
    // `npm install @memo/memory` must never run it.
    optionalPeers: { "@huggingface/transformers": "^4.3.1" },
  },
  {
    dir: "connectors",
    out: "connectors",
    description: "memo's connectors: GitHub Discussions and Notion pages into memo's notes",
  },
  {
    dir: "",
    out: "mcp-server",
    description: "memo: local-first memory for AI agents, as an MCP server and the memo command",
    bins: { memo: "./cli.ts" },
  },
];

/** Third-party packages the sources import by bare name, with their version ranges. */
const KNOWN_DEPENDENCIES: Record<string, string> = {};

async function readJson(path: string) {
  return JSON.parse(await readFile(path, "utf8"));
}

/** Adds the `npm:` entries of a deno.json's import map to the known dependencies. */
function addImportMap(config: { imports?: Record<string, string> }): void {
  for (const [name, target] of Object.entries(config.imports ?? {})) {
    const m = /^npm:((?:@[^/]+\/)?[^@/]+)@([^/]+)/.exec(target);
    if (m) KNOWN_DEPENDENCIES[name] = m[2];
  }
}

addImportMap(await readJson(join(repo, "deno.json")));

const workspaceNames: Record<
  string,
  { version: string; out: string; exports: Record<string, string> }
> = {};
for (const p of PACKAGES) {
  const config = await readJson(join(repo, p.dir, "deno.json"));
  addImportMap(config); // a member's own import map (memory's porter2) gives dependencies too
  workspaceNames[config.name] = {
    version: config.version,
    out: p.out,
    exports: jsrExports(config.exports),
  };
}

const NPM_SPECIFIER = /^npm:((?:@[^/@]+\/)?[^/@]+)(?:@([^/]+))?(\/.*)?$/;

/** Rewrites `npm:name@range/sub` string literals to `name/sub`. */
function rewriteNpmSpecifiers(text: string): string {
  return text.replace(
    /(["'])npm:((?:@[^/@"']+\/)?[^/@"']+)(?:@([^/"']+))?(\/[^"']*)?\1/g,
    (_m, q, name, _range, sub) => `${q}${name}${sub ?? ""}${q}`,
  );
}

/** The packages a source file really imports (comments and examples are ignored). */
function dependenciesOf(text: string, self: string): Record<string, string> {
  const deps: Record<string, string> = {};
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    const npm = NPM_SPECIFIER.exec(fileName);
    if (npm) {
      deps[npm[1]] = npm[2] ?? "*";
      continue;
    }
    if (fileName.startsWith(".") || fileName.startsWith("node:")) continue;
    const name = fileName.startsWith("@")
      ? fileName.split("/").slice(0, 2).join("/")
      : fileName.split("/")[0];
    if (name === self) continue;
    if (workspaceNames[name]) deps[name] = `^${workspaceNames[name].version}`;
    else if (KNOWN_DEPENDENCIES[name]) deps[name] = KNOWN_DEPENDENCIES[name];
    else throw new Error(`Cannot build: unknown bare import ${JSON.stringify(fileName)}`);
  }
  return deps;
}

async function installTypes(deps: Record<string, string>): Promise<string> {
  const dir = join(outRoot, ".types");
  await mkdir(dir, { recursive: true });
  const wanted = { ...deps, "@types/node": "^20" };
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ private: true, dependencies: wanted }, null, 2),
  );
  const { code, stderr } = await new Deno.Command("npm", {
    args: ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`npm install failed: ${new TextDecoder().decode(stderr)}`);
  return join(dir, "node_modules");
}

async function build(spec: PackageSpec, typesDir: string): Promise<void> {
  const src = join(repo, spec.dir);
  const out = join(outRoot, spec.out);
  const config = await readJson(join(src, "deno.json"));
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });

  const exportsMap = jsrExports(config.exports);
  const entries = [
    ...Object.values(exportsMap),
    ...Object.values(spec.bins ?? {}),
    ...(spec.workers ?? []),
  ].map((e) => resolve(src, e));

  const deps: Record<string, string> = {};
  const paths: Record<string, string[]> = {};
  for (const [name, info] of Object.entries(workspaceNames)) {
    // Each export of a sibling package (`@memo/memory`, `@memo/memory/format`) by its .d.ts.
    for (const [key, target] of Object.entries(info.exports)) {
      const dts = target.replace(/^\.\//, "").replace(/\.tsx?$/, ".d.ts");
      paths[key === "." ? name : `${name}/${key.replace(/^\.\//, "")}`] = [
        join(outRoot, info.out, dts),
      ];
    }
  }
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    declaration: true,
    rewriteRelativeImportExtensions: true,
    allowImportingTsExtensions: true,
    strict: true,
    skipLibCheck: true,
    noEmitOnError: true,
    // ES2023 is what Node 20 (engines) runs: an ES2024 API such as Promise.withResolvers fails here.
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: ["node"],
    typeRoots: [join(typesDir, "@types")],
    rootDir: src,
    outDir: out,
    paths,
  };
  const host = ts.createCompilerHost(options);
  const readFileOrig = host.readFile.bind(host);
  host.readFile = (file: string) => {
    const text = readFileOrig(file);
    if (text === undefined || !file.startsWith(src) || file.includes("node_modules")) return text;
    return rewriteNpmSpecifiers(text);
  };
  const getSourceFileOrig = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, onError, create) => {
    if (file.startsWith(src) && !file.includes("node_modules") && !file.startsWith(outRoot)) {
      const text = host.readFile(file);
      return text === undefined ? undefined : ts.createSourceFile(file, text, lang, true);
    }
    return getSourceFileOrig(file, lang, onError, create);
  };
  // Resolve bare third-party names from the types install.
  const resolveOrig = ts.resolveModuleName;
  host.resolveModuleNames = (names, containing) =>
    names.map((name) => {
      const r = resolveOrig(name, containing, options, host).resolvedModule;
      if (r) return r;
      return resolveOrig(name, join(typesDir, "index.ts"), options, host).resolvedModule;
    });

  // Deno's `import.meta.main` (mod.ts runs the CLI when it is the main module) is not in
  // TypeScript's DOM/ES libs; on Node it is undefined, so the check is simply false there.
  const shim = join(typesDir, "..", "deno_shims.d.ts");
  await writeFile(shim, "interface ImportMeta { readonly main?: boolean }\n");
  const program = ts.createProgram([...entries, shim], options, host);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length) {
    const text = ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => repo,
      getNewLine: () => "\n",
    });
    throw new Error(`TypeScript reported problems in ${config.name}:\n${text}`);
  }
  // web/src/ is the web page's browser source: only its bundle (web/assets.ts) ships.
  const browserSource = join(src, "web", "src") + "/";
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(src) || file.fileName.includes("node_modules")) continue;
    if (file.fileName.startsWith(browserSource)) {
      throw new Error(`Cannot build ${config.name}: ${file.fileName} is browser source (web/src/)`);
    }
    Object.assign(deps, dependenciesOf(readFileOrig(file.fileName) ?? "", config.name));
  }

  const toJs = (p: string) => "./" + relative(src, resolve(src, p)).replace(/\.ts$/, ".js");
  const pkg: Record<string, unknown> = {
    name: config.name,
    version: config.version,
    description: spec.description,
    license: config.license,
    type: "module",
    engines: { node: ">=20" },
    exports: npmExports(exportsMap),
    // npm adds package.json, README.md and LICENSE itself.
    files: ["**/*.js", "**/*.d.ts"],
    dependencies: deps,
  };
  if (typeof config.license !== "string") {
    throw new Error(`Cannot build ${config.name}: deno.json has no license`);
  }
  if (spec.optionalPeers) {
    for (const name of Object.keys(spec.optionalPeers)) {
      if (deps[name]) {
        throw new Error(`Cannot build ${config.name}: optional peer ${name} is also a dependency`);
      }
    }
    pkg.peerDependencies = spec.optionalPeers;
    pkg.peerDependenciesMeta = Object.fromEntries(
      Object.keys(spec.optionalPeers).map((name) => [name, { optional: true }]),
    );
  }
  for (const worker of spec.workers ?? []) {
    if (!(await exists(join(out, toJs(worker))))) {
      throw new Error(`Cannot build ${config.name}: worker ${worker} was not emitted`);
    }
  }
  await checkEmitted(out, config.name);
  if (spec.bins) {
    pkg.bin = Object.fromEntries(Object.entries(spec.bins).map(([k, v]) => [k, toJs(v)]));
    for (const v of Object.values(spec.bins)) {
      const file = join(out, toJs(v));
      const js = await readFile(file, "utf8");
      await writeFile(file, `#!/usr/bin/env node\n${js}`);
      await chmod(file, 0o755);
    }
  }
  await writeFile(join(out, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  // The package's own README (the root one for @memo/mcp-server); one LICENSE for all.
  const readme = join(src, "README.md");
  if (!(await exists(readme))) throw new Error(`Cannot build ${config.name}: no ${readme}`);
  await cp(readme, join(out, "README.md"));
  await cp(join(repo, "LICENSE"), join(out, "LICENSE"));
  await checkPackage(src, out);
}

/**
 * The written package against its deno.json: the same export keys, each
 * pointing at emitted files, and nothing but built JavaScript, declarations,
 * README.md, LICENSE and package.json in it.
 */
async function checkPackage(src: string, out: string): Promise<void> {
  const config = await readJson(join(src, "deno.json"));
  const pkg = await readJson(join(out, "package.json"));
  checkExportMaps(config.name, jsrExports(config.exports), pkg.exports ?? {});
  for (const [key, entry] of Object.entries(pkg.exports as Record<string, object>)) {
    for (const file of Object.values(entry) as string[]) {
      if (!(await exists(join(out, file)))) {
        throw new Error(
          `Cannot build ${config.name}: export ${key} points at ${file}, not emitted`,
        );
      }
    }
  }
  for (const entry of await readdir(out, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = relative(out, join(entry.parentPath, entry.name));
    const allowed = ["package.json", "README.md", "LICENSE"].includes(file) ||
      ((file.endsWith(".js") || file.endsWith(".d.ts")) &&
        !/(^|\/)(tests|testing|bench|scripts)\//.test(file) &&
        !/_test\.(js|d\.ts)$/.test(file));
    if (!allowed) {
      throw new Error(`Cannot build ${config.name}: ${file} must not be in the package`);
    }
  }
}

/** No emitted module may keep an `npm:` specifier (Node cannot load it). */
async function checkEmitted(dir: string, name: string): Promise<void> {
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!entry.endsWith(".js")) continue;
    const text = await readFile(join(dir, entry), "utf8");
    const left = /(["'])npm:[^"']*\1/.exec(text);
    if (left) throw new Error(`Cannot build ${name}: ${entry} still holds ${left[0]}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await readFile(path);
    return true;
  } catch {
    return false;
  }
}

const allDeps: Record<string, string> = { ...KNOWN_DEPENDENCIES };
// Scan sources for npm: specifiers so their types are installed before compiling.
for await (const file of walkTs(repo)) {
  const text = await readFile(file, "utf8");
  for (const [name, range] of Object.entries(dependenciesOf(text, ""))) {
    if (!workspaceNames[name]) allDeps[name] = range;
  }
}
const typesDir = await installTypes(allDeps);
for (const p of PACKAGES) await build(p, typesDir);
await rm(join(outRoot, ".types"), { recursive: true, force: true });
console.error(`build_npm: wrote ${PACKAGES.map((p) => join(outRoot, p.out)).join(", ")}`);

async function* walkTs(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      // Only the packages' sources: no tests, benches, scripts or dot-folders (.scratch, .git).
      if (
        entry.name.startsWith(".") ||
        ["node_modules", "npm", "tests", "testing", "bench", "scripts"].includes(entry.name)
      ) {
        continue;
      }
      yield* walkTs(path);
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      yield path;
    }
  }
}
