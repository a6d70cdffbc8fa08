import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkImports, formatProblem, formatReport, type Problem } from "./check_imports.ts";

type Tree = Record<string, string>;

/** A fake repository: writes `files` into a fresh temp dir, runs `fn`, removes it. */
async function withTree<T>(files: Tree, fn: (root: string) => Promise<T>): Promise<T> {
  const root = await Deno.makeTempDir({ prefix: "check_imports_" });
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    return await fn(root);
  } finally {
    await rm(root, { recursive: true });
  }
}

/** The problems of the folders' layout (`_`, `mod.ts`), which the graph tests' tiny trees ignore. */
const LAYOUT_KINDS: readonly Problem["kind"][] = ["private", "unexported", "no mod"];

/**
 * Each problem as `kind: from → to` (or `kind: folder`, `kind: file:line`);
 * without `all`, the layout problems are left out.
 */
function summarize(problems: Problem[], all = false): string[] {
  return problems.filter((problem) => all || !LAYOUT_KINDS.includes(problem.kind)).map((problem) =>
    problem.kind === "no rule" || problem.kind === "no mod"
      ? `${problem.kind}: ${problem.folder}`
      : problem.kind === "host"
      ? `${problem.kind}: ${problem.file}:${problem.line}`
      : problem.kind === "unexported"
      ? `${problem.kind}: ${problem.file}`
      : `${problem.kind}: ${
        [...problem.arrows.map((arrow) => arrow.from), problem.arrows.at(-1)!.to].join(" → ")
      }`
  );
}

/** A tree that follows every rule, with imports the check must not count. */
const CLEAN: Tree = {
  "mod.ts": [
    'export * from "./server/mod.ts";',
    'export { main } from "./cli/main.ts";',
    'import "./runtimes/mod.ts";',
    "if (import.meta.main) await import(`./cli.ts`);",
  ].join("\n"),
  "http.ts": 'export { handle } from "./server/handler.ts";\n',
  "cli.ts": 'import { main } from "./cli/main.ts";\nawait main();\n',
  "platform/mod.ts": 'import { VERSION } from "../version.ts";\nexport const platform = VERSION;\n',
  "version.ts": 'export const VERSION = "0.1.0";\n',
  "memory/mod.ts": 'export * from "./note.ts";\nexport type { Store } from "./store.ts";\n',
  "memory/note.ts": 'import { z } from "npm:zod@^4";\nexport const Note = z.string();\n',
  "memory/store.ts": [
    'import type { Note } from "./note.ts";',
    'import { readFile } from "node:fs/promises";',
    "export interface Store { get(): Note; read: typeof readFile }",
  ].join("\n"),
  "connectors/mod.ts": 'import { Note } from "@memo/memory";\nexport const connector = Note;\n',
  "runtimes/mod.ts": [
    'import { connector } from "@memo/connectors";',
    'import type { Store } from "../memory/store.ts";',
    'import { platform } from "../platform/mod.ts";',
    "export interface Runtime { store: Store }",
    "export const runtime = [connector, platform];",
  ].join("\n"),
  "server/mod.ts": [
    'import type { Runtime } from "../runtimes/mod.ts";',
    'import { type Store } from "../memory/mod.ts";',
    'export type { Runtime } from "../runtimes/mod.ts";',
    'export { type Runtime as R } from "../runtimes/mod.ts";',
    'import { platform } from "../platform/mod.ts";',
    'type Lazy = typeof import("../runtimes/mod.ts");',
    "export const server = (runtime: Runtime, store: Store, lazy?: Lazy) => [runtime, store, lazy];",
    "export { platform };",
    'export { handle } from "./handler.ts";',
  ].join("\n"),
  "server/handler.ts": 'export const handle = () => "handled";\n',
  "cli/main.ts": [
    'import { server } from "../server/mod.ts";',
    'import { runtime } from "../runtimes/mod.ts";',
    'import { connector } from "../connectors/mod.ts";',
    "export async function main() { return [server, runtime, connector]; }",
  ].join("\n"),
  "cli/mod.ts": 'export { main } from "./main.ts";\n',
  // Not checked: tests, tooling, hidden folders, node_modules.
  "memory/note_test.ts": 'import "../server/mod.ts";\nimport "./missing.ts";\n',
  "tests/e2e.ts": 'import "../cli/main.ts";\nimport "./nowhere.ts";\n',
  "scripts/tool.ts": 'import "../cli/main.ts";\n',
  "bench/run.ts": 'import "../cli/main.ts";\n',
  ".memo/x.ts": 'import "../cli/main.ts";\n',
  "node_modules/pkg/index.ts": 'import "../../cli/main.ts";\n',
};

Deno.test("checkImports() passes a clean tree and counts its imports", async () => {
  const result = await withTree(CLEAN, checkImports);
  assert.deepEqual(summarize(result.problems, true), []);
  assert.equal(result.files, 14);
  // 27 imports: 25 between files (the template-literal `import(\`./cli.ts\`)` among
  // them), 2 external (zod and node:fs/promises).
  assert.equal(result.imports, 27);
  assert.equal(result.external, 2);
  assert.equal(
    formatReport(result),
    "check_imports: ok, 14 files, 27 imports (25 between files, 2 external)",
  );
});

Deno.test("checkImports() reports a cycle with each of its arrows", async (t) => {
  const cases: { name: string; files: Tree; cycles: string[] }[] = [
    {
      name: "value imports",
      files: {
        "memory/a.ts": 'import { b } from "./b.ts";\nexport const a = b;\n',
        "memory/b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
      },
      cycles: ["cycle: memory/a.ts → memory/b.ts → memory/a.ts"],
    },
    {
      name: "type-only imports",
      files: {
        "memory/a.ts": 'import type { B } from "./b.ts";\nexport type A = B[];\n',
        "memory/b.ts": 'import { type A } from "./a.ts";\nexport type B = A | 1;\n',
      },
      cycles: ["cycle: memory/a.ts → memory/b.ts → memory/a.ts"],
    },
    {
      name: "a re-export and a dynamic import",
      files: {
        "platform/_serve.ts": 'export const serve = () => import("./_node_serve.ts");\n',
        "platform/_node_serve.ts": 'export type { serve } from "./_serve.ts";\n',
      },
      cycles: ["cycle: platform/_node_serve.ts → platform/_serve.ts → platform/_node_serve.ts"],
    },
    {
      name: "a file importing itself",
      files: { "memory/a.ts": 'export * from "./a.ts";\n' },
      cycles: ["cycle: memory/a.ts → memory/a.ts"],
    },
    {
      name: "a longer chain",
      files: {
        "memory/a.ts": 'import "./b.ts";\n',
        "memory/b.ts": 'import "./c.ts";\n',
        "memory/c.ts": 'import "./a.ts";\n',
      },
      cycles: ["cycle: memory/a.ts → memory/b.ts → memory/c.ts → memory/a.ts"],
    },
  ];
  for (const { name, files, cycles } of cases) {
    await t.step(name, async () => {
      const { problems } = await withTree(files, checkImports);
      assert.deepEqual(summarize(problems), cycles);
      const text = formatProblem(problems[0]);
      for (const arrow of problems[0].arrows) {
        assert.ok(text.includes(`${arrow.from} → ${arrow.to}`), text);
      }
    });
  }
  await t.step("names both arrows with their lines", async () => {
    const { problems } = await withTree(cases[0].files, checkImports);
    assert.deepEqual(
      problems[0].arrows.map(({ from, to, line, typeOnly }) => ({ from, to, line, typeOnly })),
      [
        { from: "memory/a.ts", to: "memory/b.ts", line: 1, typeOnly: false },
        { from: "memory/b.ts", to: "memory/a.ts", line: 1, typeOnly: false },
      ],
    );
  });
});

Deno.test("checkImports() fails arrows the rules forbid and passes those they allow", async (t) => {
  const base: Tree = {
    "_env.ts": "export const e = 1;\n",
    "platform/mod.ts": "export const p = 1;\n",
    "memory/mod.ts": "export const m = 1;\n",
    "connectors/mod.ts": "export const c = 1;\n",
    "runtimes/y.ts": "export type Y = 1;\nexport const y = 1;\n",
    "runtimes/mod.ts": "export const r = 1;\n",
    "server/errors.ts": "export class E extends Error {}\n",
    "server/http/mod.ts": "export const h = 1;\n",
    "version.ts": "export const VERSION = '0';\n",
    "cli/main.ts": "export const main = 1;\n",
    "mod.ts": "export const entry = 1;\n",
  };
  const cases: { name: string; files: Tree; forbidden: string[] }[] = [
    {
      name: "runtimes/ importing a value from server/",
      files: { "runtimes/x.ts": 'import { E } from "../server/errors.ts";\nexport { E };\n' },
      forbidden: ["forbidden: runtimes/x.ts → server/errors.ts"],
    },
    {
      name: "runtimes/ importing only a type from server/",
      files: {
        "runtimes/x.ts": 'import type { E } from "../server/errors.ts";\nexport type { E };',
      },
      forbidden: ["forbidden: runtimes/x.ts → server/errors.ts"],
    },
    {
      name: "server/ importing a value from runtimes/",
      files: { "server/x.ts": 'import { y } from "../runtimes/y.ts";\nexport { y };\n' },
      forbidden: ["forbidden: server/x.ts → runtimes/y.ts"],
    },
    {
      name: "server/ importing a type and a value in one import from runtimes/",
      files: { "server/x.ts": 'import { type Y, y } from "../runtimes/y.ts";\nexport { y };' },
      forbidden: ["forbidden: server/x.ts → runtimes/y.ts"],
    },
    {
      name: "server/ re-exporting values from runtimes/",
      files: { "server/x.ts": 'export * from "../runtimes/y.ts";\n' },
      forbidden: ["forbidden: server/x.ts → runtimes/y.ts"],
    },
    {
      name: "server/ importing types from runtimes/ (allowed)",
      files: {
        "server/x.ts": [
          'import type { Y } from "../runtimes/y.ts";',
          'import { type Y as Z } from "../runtimes/y.ts";',
          'export type { Y } from "../runtimes/y.ts";',
          'export { type Y as W } from "../runtimes/y.ts";',
          'export type Lazy = typeof import("../runtimes/y.ts");',
          "export type V = Y | Z;",
        ].join("\n"),
      },
      forbidden: [],
    },
    {
      name: "server/ importing a value from memory/",
      files: { "server/x.ts": 'import { m } from "../memory/mod.ts";\nexport { m };\n' },
      forbidden: ["forbidden: server/x.ts → memory/mod.ts"],
    },
    {
      name: "server/ importing @memo/memory/format, the note formatter (allowed)",
      files: {
        "memory/notes/format.ts": "export const f = 1;\n",
        "server/x.ts": 'import { f } from "@memo/memory/format";\nexport { f };\n',
      },
      forbidden: [],
    },
    {
      name: "memory/ importing @memo/connectors",
      files: { "memory/x.ts": 'import { c } from "@memo/connectors";\nexport { c };\n' },
      forbidden: ["forbidden: memory/x.ts → connectors/mod.ts"],
    },
    {
      name: "memory/ importing a root shared file",
      files: { "memory/x.ts": 'import { e } from "../_env.ts";\nexport { e };\n' },
      forbidden: ["forbidden: memory/x.ts → _env.ts"],
    },
    {
      name: "memory/ importing platform/",
      files: { "memory/x.ts": 'import { p } from "../platform/mod.ts";\nexport { p };\n' },
      forbidden: ["forbidden: memory/x.ts → platform/mod.ts"],
    },
    {
      name: "runtimes/, server/ and cloud/ importing platform/ (allowed)",
      files: {
        "runtimes/x.ts": 'export { p } from "../platform/mod.ts";\n',
        "server/x.ts": 'export { p } from "../platform/mod.ts";\n',
        "cloud/x.ts": 'export { p } from "../platform/mod.ts";\n',
      },
      forbidden: [],
    },
    {
      name: "platform/ importing a root shared file (allowed)",
      files: { "platform/x.ts": 'import { e } from "../_env.ts";\nexport { e };\n' },
      forbidden: [],
    },
    {
      name: "platform/ importing server/",
      files: { "platform/x.ts": 'import { E } from "../server/errors.ts";\nexport { E };\n' },
      forbidden: ["forbidden: platform/x.ts → server/errors.ts"],
    },
    {
      name: "a root shared file importing platform/",
      files: { "version.ts": 'import { p } from "./platform/mod.ts";\nexport { p };\n' },
      forbidden: ["forbidden: version.ts → platform/mod.ts"],
    },
    {
      name: "connectors/ importing runtimes/",
      files: { "connectors/x.ts": 'import { y } from "../runtimes/y.ts";\nexport { y };\n' },
      forbidden: ["forbidden: connectors/x.ts → runtimes/y.ts"],
    },
    {
      name: "server/ importing cli/",
      files: { "server/x.ts": 'import { main } from "../cli/main.ts";\nexport { main };\n' },
      forbidden: ["forbidden: server/x.ts → cli/main.ts"],
    },
    {
      name: "a root shared file importing cli/",
      files: { "_helper.ts": 'import { main } from "./cli/main.ts";\nexport { main };\n' },
      forbidden: ["forbidden: _helper.ts → cli/main.ts"],
    },
    {
      name: "a root shared file importing an entry point",
      files: { "version.ts": 'import { entry } from "./mod.ts";\nexport { entry };\n' },
      forbidden: ["forbidden: version.ts → mod.ts"],
    },
    {
      name: "cli/ importing the other folders through their mod.ts (allowed)",
      files: {
        "cli/x.ts": [
          'import "../memory/mod.ts";',
          'import "@memo/connectors";',
          'import "../runtimes/mod.ts";',
          'import "../server/http/mod.ts";',
          'import "../version.ts";',
        ].join("\n"),
      },
      forbidden: [],
    },
    {
      name: "cli/ reaching past another folder's mod.ts, into a root _ file, or into platform/",
      files: {
        "cli/x.ts": [
          'import "../runtimes/y.ts";',
          'import type { E } from "../server/errors.ts";',
          'import "../_env.ts";',
          'import "../platform/mod.ts";',
        ].join("\n"),
      },
      forbidden: [
        "forbidden: cli/x.ts → runtimes/y.ts",
        "forbidden: cli/x.ts → server/errors.ts",
        "forbidden: cli/x.ts → _env.ts",
        "forbidden: cli/x.ts → platform/mod.ts",
      ],
    },
    {
      name: "an entry point importing anything (allowed)",
      files: { "http.ts": 'import "./cli/main.ts";\nimport "./server/errors.ts";\n' },
      forbidden: [],
    },
    {
      name: "checked code importing tests",
      files: {
        "mod.ts": 'import "./tests/helpers.ts";\n',
        "tests/helpers.ts": "export {};\n",
        "memory/x.ts": 'import "./x_test.ts";\n',
        "memory/x_test.ts": "export {};\n",
      },
      forbidden: [
        "forbidden: memory/x.ts → memory/x_test.ts",
        "forbidden: mod.ts → tests/helpers.ts",
      ],
    },
  ];
  for (const { name, files, forbidden } of cases) {
    await t.step(name, async () => {
      const { problems } = await withTree({ ...base, ...files }, checkImports);
      assert.deepEqual(summarize(problems), forbidden);
    });
  }
});

Deno.test("checkImports() counts a dynamic import", async () => {
  const { problems } = await withTree({
    "server/x.ts": "export const x = 1;\n",
    "runtimes/y.ts": 'export const load = () => import("../server/x.ts");\n',
  }, checkImports);
  assert.deepEqual(summarize(problems), ["forbidden: runtimes/y.ts → server/x.ts"]);
  assert.equal(problems[0].arrows[0].kind, "import()");
});

Deno.test("checkImports() ignores imports in comments, JSDoc examples and strings", async () => {
  const result = await withTree({
    "server/x.ts": "export const x = 1;\n",
    "runtimes/y.ts": [
      "/**",
      " * Loads it.",
      " *",
      " * @example",
      " * ```ts",
      ' * import { x } from "../server/x.ts";',
      ' * export * from "../server/x.ts";',
      " * ```",
      " */",
      '// import { x } from "../server/x.ts";',
      '/* await import("../server/x.ts"); */',
      "export const a = 'import \"../server/x.ts\"';",
      'export const b = "await import(\\"../server/x.ts\\")";',
      'export const c = `import { x } from "../server/x.ts"; ${a}`;',
      'export const d = /import\\("..\\/server\\/x.ts"\\)/;',
    ].join("\n"),
  }, checkImports);
  assert.deepEqual(summarize(result.problems), []);
  assert.equal(result.imports, 0);
});

Deno.test("checkImports() fails a top-level folder with no rule", async () => {
  const { problems } = await withTree({
    "memory/mod.ts": "export const m = 1;\n",
    "site/page.ts": 'import "@memo/memory";\n',
    "site/app/main.ts": 'import "../page.ts";\n',
    "site/app/view.tsx": 'import "../page.ts";\n', // .tsx is browser source: not checked
  }, checkImports);
  assert.deepEqual(summarize(problems), ["no rule: site/"]);
  assert.match(formatProblem(problems[0]), /site\/ .*2 checked files.*no rule/);
});

Deno.test("checkImports() resolves workspace specifiers and reports missing files", async (t) => {
  const base: Tree = {
    "mod.ts": "export const entry = 1;\n",
    "http.ts": "export const http = 1;\n",
    "memory/mod.ts": "export const m = 1;\n",
    "memory/note.ts": "export const n = 1;\n",
    "connectors/mod.ts": "export const c = 1;\n",
  };
  // cli/ may import memory/ and connectors/ but no entry point, so an import of mod.ts
  // or http.ts shows up as forbidden, which shows where the specifier resolved.
  const cases: { name: string; file: string; expect: string[] }[] = [
    { name: "@memo/memory", file: 'import "@memo/memory";', expect: [] },
    {
      name: "@memo/memory subpath",
      file: 'import "@memo/memory/note.ts";',
      expect: ["forbidden: cli/x.ts → memory/note.ts"],
    },
    { name: "@memo/connectors", file: 'import "@memo/connectors";', expect: [] },
    {
      name: "@memo/mcp-server",
      file: 'import "@memo/mcp-server";',
      expect: ["forbidden: cli/x.ts → mod.ts"],
    },
    {
      name: "@memo/mcp-server/http",
      file: 'import "@memo/mcp-server/http";',
      expect: ["forbidden: cli/x.ts → http.ts"],
    },
    {
      name: "a missing relative file",
      file: 'import "../memory/gone.ts";',
      expect: ["unresolved: cli/x.ts → memory/gone.ts"],
    },
    {
      name: "a missing workspace subpath",
      file: 'export * from "@memo/memory/gone.ts";',
      expect: ["unresolved: cli/x.ts → memory/gone.ts"],
    },
    {
      name: "an unknown workspace package",
      file: 'import "@memo/nothing";',
      expect: ["unresolved: cli/x.ts → @memo/nothing"],
    },
    {
      name: "a path outside the repository",
      file: 'import "../../elsewhere.ts";',
      expect: ["unresolved: cli/x.ts → ../../elsewhere.ts"],
    },
    {
      name: "externals",
      file: 'import "npm:zod@4";\nimport "node:fs";\nimport "jsr:@std/x";\n' +
        'import "https://x.test/a.ts";\nimport "zod";',
      expect: [],
    },
  ];
  for (const { name, file, expect } of cases) {
    await t.step(name, async () => {
      const { problems } = await withTree({ ...base, "cli/x.ts": file }, checkImports);
      assert.deepEqual(summarize(problems), expect);
    });
  }
  await t.step("@memo/memory lands on memory/mod.ts", async () => {
    const result = await withTree({
      "memory/mod.ts": 'import "@memo/memory";\n',
    }, checkImports);
    assert.deepEqual(summarize(result.problems), ["cycle: memory/mod.ts → memory/mod.ts"]);
  });
});

Deno.test("checkImports() as a script exits 1 with file → file on a bad tree, 0 on a good one", async () => {
  const script = fileURLToPath(new URL("./check_imports.ts", import.meta.url));
  const repo = fileURLToPath(new URL("..", import.meta.url));
  const run = (root: string) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--lock=deno.dev.lock", script, root],
      cwd: repo,
      stdin: "null",
    }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

  const bad = await withTree({
    ...CLEAN,
    "runtimes/x.ts": 'import "../server/mod.ts";\n',
    "memory/a.ts": 'import "./b.ts";\n',
    "memory/b.ts": 'import type {} from "./a.ts";\n',
  }, run);
  const badOut = decode(bad.stdout) + decode(bad.stderr);
  assert.equal(bad.code, 1, badOut);
  assert.match(badOut, /runtimes\/x\.ts → server\/mod\.ts/);
  assert.match(badOut, /memory\/a\.ts → memory\/b\.ts → memory\/a\.ts/);
  // 2 in the graph, and 3 files that memory/mod.ts and runtimes/mod.ts do not re-export.
  assert.match(badOut, /^check_imports: 5 problems/m);
  assert.match(badOut, /memory\/a\.ts {2}memory\/mod\.ts does not re-export it/);

  const good = await withTree(CLEAN, run);
  const goodOut = decode(good.stdout) + decode(good.stderr);
  assert.equal(good.code, 0, goodOut);
  assert.match(decode(good.stdout), /^check_imports: ok, 14 files, 27 imports/);
});

Deno.test("checkImports() lets only platform/ folders touch Deno or process", async () => {
  const { problems } = await withTree({
    ...CLEAN,
    "memory/mod.ts": CLEAN["memory/mod.ts"] + 'export * from "./host.ts";\n',
    "memory/host.ts": [
      'import process from "node:process";',
      "export const a = Deno.args;",
      "export const b = globalThis.process;",
      "export const c = { Deno: 1 }.Deno; // a property name, not the global",
      "export const d = (process: number) => process; // a parameter",
      "export const e = process.argv;",
    ].join("\n"),
    "runtimes/platform/mod.ts": 'export const args = Deno.args;\nimport "node:process";\n',
    "runtimes/mod.ts": CLEAN["runtimes/mod.ts"] + '\nexport * from "./platform/mod.ts";\n',
  }, checkImports);
  assert.deepEqual(summarize(problems, true), [
    "host: memory/host.ts:1",
    "host: memory/host.ts:2",
    "host: memory/host.ts:3",
  ]);
  assert.match(
    formatProblem(problems[0]),
    /memory\/host\.ts:1 {2}imports node:process: only files under a platform\/ folder/,
  );
  assert.match(formatProblem(problems[1]), /touches Deno/);
});

Deno.test("checkImports() keeps a _ file to its folder, subfolders and parents included", async () => {
  const { problems } = await withTree({
    ...CLEAN,
    "memory/mod.ts": CLEAN["memory/mod.ts"] +
      'export * from "./sub/mod.ts";\nexport { x } from "./_x.ts";\n',
    "memory/_x.ts": 'import { y } from "./sub/_y.ts";\nexport const x = y;\n',
    "memory/_z.ts": 'import { x } from "./_x.ts";\nexport const z = x;\n',
    "memory/sub/mod.ts": 'import "../_x.ts";\nexport const s = 1;\n',
    "memory/sub/_y.ts": "export const y = 1;\n",
    "runtimes/mod.ts": CLEAN["runtimes/mod.ts"] + '\nimport "../memory/_z.ts";\n',
  }, checkImports);
  assert.deepEqual(summarize(problems, true), [
    "private: memory/_x.ts → memory/sub/_y.ts",
    "private: memory/mod.ts → memory/_x.ts",
    "private: memory/sub/mod.ts → memory/_x.ts",
    "private: runtimes/mod.ts → memory/_z.ts",
  ]);
  assert.match(formatProblem(problems[0]), /private to its folder \(memory\/sub\/\)/);
  assert.match(formatProblem(problems[1]), /a mod\.ts re-exports a _ file/);
});

Deno.test("checkImports() wants each file without _ re-exported by its folder's mod.ts", async () => {
  const { problems } = await withTree({
    ...CLEAN,
    "memory/mod.ts": CLEAN["memory/mod.ts"] + 'export type { Part } from "./part.ts";\n',
    "memory/part.ts": "export type Part = string;\nexport const hidden = 1;\n",
    "memory/loose.ts": "export const loose = 1;\n",
    "cloud/mod.ts": "export const cloud = 1;\n",
    "cloud/main.ts": 'import { cloud } from "./mod.ts";\nconsole.log(cloud);\n', // an entry point
    "shared.ts": "export const shared = 1;\n", // a root file: RULES names the root's
  }, checkImports);
  assert.deepEqual(summarize(problems, true), ["unexported: memory/loose.ts"]);
  assert.match(formatProblem(problems[0]), /memory\/mod\.ts does not re-export it/);
});

Deno.test("checkImports() wants a mod.ts in every library folder, subfolders too", async () => {
  const { problems } = await withTree({
    ...CLEAN,
    "runtimes/cloud/client.ts": 'import "../../server/mod.ts";\nexport const c = 1;\n',
    "web/mod.ts": "export const web = 1;\n",
    "web/src/api.ts": "export const api = 1;\n", // bundled browser source: no mod.ts
  }, checkImports);
  assert.deepEqual(summarize(problems, true), [
    // The folders' rules hold in a subfolder: its group is still runtimes/.
    "forbidden: runtimes/cloud/client.ts → server/mod.ts",
    "no mod: runtimes/cloud/",
  ]);
  assert.match(formatProblem(problems[1]), /runtimes\/cloud\/ {2}1 checked file and no mod\.ts/);
});
