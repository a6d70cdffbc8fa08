import assert from "node:assert/strict";
import {
  cleanExamples,
  exampleModule,
  exampleName,
  exportedNames,
  extractExamples,
  sourceFiles,
  writeExamples,
} from "./doc_examples.ts";

const fence = "`".repeat(3);

/** A small tree with the cases Deno's `--doc` treats specially. */
const FIXTURE: Record<string, string> = {
  "deno.json": "{}\n",
  "lib/a.ts": [
    "/**",
    " * Module doc.",
    " *",
    ` * ${fence}ts`,
    " * import { one } from './a.ts';",
    " * if (one() !== 1) throw new Error();",
    ` * ${fence}`,
    " *",
    ` * ${fence}ts ignore`,
    " * not code",
    ` * ${fence}`,
    ` * ${fence}ts`,
    " * # const hidden = 1;",
    " * if (hidden !== 1) throw new Error();",
    ` * ${fence}`,
    " * @module",
    " */",
    "",
    "/**",
    " * Uses the exported names without importing them.",
    " *",
    ` * ${fence}ts`,
    " * const o: Options = { n: 1 };",
    " * if (one() !== o.n || two !== 2) throw new Error();",
    ` * ${fence}`,
    " */",
    "export function one(): number {",
    "  return 1; /* ```ts not a doc comment ``` */",
    "}",
    "export const two = 2;",
    "/** Options. */",
    "export interface Options {",
    "  n: number;",
    "}",
    "const glob = 'src/**/*.ts'; // not a comment start",
    "export { glob };",
    "",
  ].join("\n"),
  "lib/b_test.ts": [
    "/**",
    ` * ${fence}ts`,
    ' * import { two } from "./a.ts";',
    ' * Deno.test("own test", () => {',
    " *   if (two !== 2) throw new Error();",
    " * });",
    ` * ${fence}`,
    " */",
    'Deno.test("b", () => {});',
    "",
  ].join("\n"),
  "README.md": [
    "# Title",
    "",
    `${fence}ts`,
    "const x: number = 1;",
    "if (x !== 1) throw new Error();",
    `${fence}`,
    "",
    "<!--",
    `${fence}ts`,
    "throw new Error('commented out');",
    `${fence}`,
    "-->",
    "",
    `> ${fence}ts`,
    "> const quoted = 2;",
    "> if (quoted !== 2) throw new Error();",
    `> ${fence}`,
    "",
    `${fence}`,
    "no language",
    `${fence}`,
    "",
    `${fence}js`,
    "if (typeof Deno !== 'object') throw new Error();",
    `${fence}`,
    "",
  ].join("\n"),
};

async function fixture(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "doc_examples_" });
  for (const [path, text] of Object.entries(FIXTURE)) {
    await Deno.mkdir(`${root}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
  return root;
}

async function denoTest(root: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", ...args],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
  };
}

Deno.test("extractExamples finds the examples Deno's --doc finds, with the same names", async () => {
  const root = await fixture();
  try {
    const ours: string[] = [];
    for (const file of await sourceFiles(root)) {
      for (const e of extractExamples(file, await Deno.readTextFile(`${root}/${file}`))) {
        ours.push(exampleName(e));
      }
    }
    assert.deepEqual(
      ours.sort(),
      [
        "README.md#14-18.ts",
        "README.md#23-26.js",
        "README.md#3-7.ts",
        "lib/a.ts#12-16.ts",
        "lib/a.ts#22-26.ts",
        "lib/a.ts#4-8.ts",
        "lib/b_test.ts#2-8.ts",
      ].sort(),
    );
    const deno = await denoTest(root, ["--doc", "."]);
    assert.equal(deno.code, 0, deno.text);
    const theirs = [...deno.text.matchAll(/^running \d+ tests? from \.\/(\S+#\d+-\d+\.\w+)$/gm)]
      .map((m) => m[1]);
    assert.deepEqual(theirs.sort(), ours);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("writeExamples' runners pass, one test per example, and a failure names its example", async () => {
  const root = await fixture();
  try {
    const written = await writeExamples(root);
    assert.equal(written.examples, 7);
    assert.deepEqual(written.native, []);
    const run = await denoTest(root, written.runners);
    assert.equal(run.code, 0, run.text);
    for (
      const name of ["README.md#3-7.ts", "lib/a.ts#22-26.ts", "README.md#23-26.js", "own test"]
    ) {
      assert.match(
        run.text,
        new RegExp(`=> ${name.replaceAll(".", "\\.")} \\.\\.\\. ok|^${name} \\.\\.\\. ok`, "m"),
      );
    }
    const a = `${root}/lib/a.ts`;
    await Deno.writeTextFile(a, FIXTURE["lib/a.ts"].replace("o.n || two", "o.n || two + 1"));
    const failing = await denoTest(root, (await writeExamples(root)).runners);
    assert.notEqual(failing.code, 0);
    assert.match(
      failing.text,
      /^lib\/a\.ts#22-26\.ts => \.\/lib\/\.doc_examples\/examples_1_test\.ts:\d+:\d+$/m,
    );
    await cleanExamples(root);
    await assert.rejects(Deno.stat(`${root}/lib/.doc_examples`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("exportedNames and exampleModule follow Deno's imports and export removal", () => {
  const names = exportedNames(
    "m.ts",
    [
      "export const a = 1, { b } = { b: 2 };",
      "export type T = string;",
      "export interface I {}",
      "export { c as d, type E } from './x.ts';",
      "export { default } from './y.ts';",
      "const f = 3;",
      "export default f;",
      "declare module 'z' { export const hidden: 1; }",
    ].join("\n"),
  );
  assert.deepEqual([...names].sort(), [
    ["E", true],
    ["I", true],
    ["T", true],
    ["a", false],
    ["b", false],
    ["d", false],
    ["default as f", false],
  ]);
  const text = exampleModule(
    {
      file: "dir/m.ts",
      start: 3,
      end: 9,
      ext: "ts",
      code: [
        "import { a } from '../up.ts';",
        "export const b = 2;",
        "const { default: x } = await import('./m.ts');",
        "console.log(new URL('.', import.meta.url).href);",
      ].join("\n") + "\n",
    },
    names,
  );
  assert.equal(
    text,
    [
      "// dir/m.ts#3-9.ts, generated by scripts/doc_examples.ts",
      'import { a } from "../../up.ts";',
      'import { type E, type I, type T, d, default as f } from "../m.ts";',
      "export async function runExample$() {",
      "const b = 2;",
      'const { default: x } = await import("../m.ts");',
      "console.log(new URL('.', new URL(\"../m.ts#3-9.ts\", import.meta.url).href).href);",
      "}",
      "",
    ].join("\n"),
  );
});
