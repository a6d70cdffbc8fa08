/**
 * The documentation examples of `deno task test`, run a folder at a time.
 *
 * `deno test --doc` turns every code block of a JSDoc comment or a markdown
 * file into a module of its own, and runs each module in a new isolate that
 * loads its whole module graph again: about 60 ms of CPU for the isolate and
 * as much again for the graph, 1,238 times. This script extracts the same
 * examples the same way (see {@linkcode extractExamples}), writes each as a
 * module under a hidden `.doc_examples/` folder beside its source file (so its
 * relative imports, its workspace member's configuration and its directory
 * stay the same), and writes one runner per folder that imports them and
 * registers one `Deno.test` per example, named like Deno names it
 * (`memory/recall.ts#12-30.ts`). `deno test` then type-checks them with the
 * rest of the suite in one pass and runs a folder's examples in one isolate.
 *
 * Each example module is what Deno generates for it ({@linkcode exampleModule}):
 * its `import` and `export … from` declarations at the top, an import of every
 * name its source file exports (unless the example declares or imports that
 * name itself), and the rest of the code in a function the runner hands to
 * `Deno.test`, with `export` dropped from declarations. An example that calls
 * `Deno.test` itself is not wrapped; a file with an example this script cannot
 * move faithfully (one that reads `import.meta` or starts with `#!`) keeps
 * Deno's own `--doc` treatment: {@linkcode writeExamples} returns it in
 * `native`.
 *
 * Usage: `deno run -A scripts/doc_examples.ts [ROOT]` writes the files and
 * prints the runners; `--clean` removes them.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix
import ts from "npm:typescript@6.0.3";

/** One code block of a documentation comment or a markdown file. */
export interface Example {
  /** Its source file, relative to the root, with `/`. */
  file: string;
  /** First and last line (1-based, fences included) and Deno's end mark. */
  start: number;
  /** Deno's end line: `start` plus the lines the block spans. */
  end: number;
  /** The extension Deno gives the example (`ts`, `tsx`, `js`, …). */
  ext: string;
  /** The code, comment markers removed. */
  code: string;
}

/** The name Deno's `--doc` gives an example, e.g. `memory/recall.ts#12-30.ts`. */
export function exampleName(example: Example): string {
  return `${example.file}#${example.start}-${example.end}.${example.ext}`;
}

const EXTENSIONS: Record<string, string> = {
  js: "js",
  javascript: "js",
  mjs: "mjs",
  cjs: "cjs",
  jsx: "jsx",
  ts: "ts",
  typescript: "ts",
  mts: "mts",
  cts: "cts",
  tsx: "tsx",
};

/** The example's extension for a fence's attributes, or undefined when Deno skips it. */
function fenceExtension(attributes: string): string | undefined {
  const words = attributes.split(" ");
  if (words.includes("ignore")) return undefined;
  return EXTENSIONS[words[0]];
}

/** Deno's removal of the comment's `*`, a leading `# ` and blockquote marks. */
function blockCode(body: string, lineRegex: RegExp, blockquote: boolean): string | undefined {
  let out = "";
  for (const line of body.replace(/\r?\n$/, "").split(/\r?\n/)) {
    const m = lineRegex.exec(line);
    if (!m) continue;
    let text = m[1] ?? m[3] ?? "";
    if (blockquote) {
      for (;;) {
        const stripped = text.replace(/^ {0,3}>[ \t]?/, "");
        if (stripped.length === text.length) break;
        text = stripped;
      }
    }
    out += text + "\n";
  }
  return out;
}

/**
 * The examples Deno's `--doc` finds in `source`, the text of `file`: the
 * fenced blocks of a markdown file, or of each `/** … *\/` comment of a code
 * file, whose language is JavaScript or TypeScript and which are not marked
 * `ignore`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exampleName, extractExamples } from "./doc_examples.ts";
 *
 * const fence = "`".repeat(3);
 * const source = `/**\n * ${fence}ts\n * add(1, 2);\n * ${fence}\n *\/\nexport function add() {}\n`;
 * const [example] = extractExamples("a/b.ts", source);
 * assert.equal(exampleName(example), "a/b.ts#2-5.ts");
 * assert.equal(example.code, "add(1, 2);\n\n"); // the last line, " * ", is kept empty
 * ```
 */
export function extractExamples(file: string, source: string): Example[] {
  return /\.(md|markdown)$/i.test(file)
    ? markdownExamples(file, source)
    : commentExamples(file, source);
}

function markdownExamples(file: string, source: string): Example[] {
  const lineRegex = /(((#!+).*)|(?:# ?)?(.*))/;
  const lines = source.split("\n").map((l) => l.replace(/\r$/, ""));
  if (lines.at(-1) === "") lines.pop();
  const fence = (line: string) => {
    let rest = line.replace(/^[ \t]+/, "");
    let quoted = false;
    while (rest.startsWith(">")) {
      quoted = true;
      rest = rest.slice(1).replace(/^[ \t]/, "");
    }
    const ticks = /^`*/.exec(rest)![0].length;
    return { ticks, rest, quoted };
  };
  const out: Example[] = [];
  let i = 0;
  let inComment = false;
  while (i < lines.length) {
    if (inComment) {
      if (lines[i].includes("-->")) inComment = false;
      i++;
      continue;
    }
    const trimmed = lines[i].replace(/^[ \t]+/, "");
    if (trimmed.startsWith("<!--")) {
      if (!trimmed.includes("-->")) inComment = true;
      i++;
      continue;
    }
    const open = fence(lines[i]);
    if (open.ticks < 3) {
      i++;
      continue;
    }
    let close = i + 1;
    for (; close < lines.length; close++) {
      const c = fence(lines[close]);
      if (c.ticks >= open.ticks && /^[ \t]*$/.test(c.rest.slice(c.ticks))) break;
    }
    if (close === lines.length) {
      i++;
      continue;
    }
    const ext = fenceExtension(open.rest.slice(open.ticks));
    if (ext) {
      const body = lines.slice(i + 1, close).map((l) => l + "\n").join("");
      // Deno's markdown line pattern: group 2 is a `#!` line, group 4 the code.
      let code = "";
      for (const line of body.replace(/\n$/, "").split("\n")) {
        if (body === "") break;
        const m = lineRegex.exec(line)!;
        let text = m[2] ?? m[4] ?? "";
        if (open.quoted) {
          for (;;) {
            const stripped = text.replace(/^ {0,3}>[ \t]?/, "");
            if (stripped.length === text.length) break;
            text = stripped;
          }
        }
        code += text + "\n";
      }
      out.push({ file, start: i + 1, end: i + (close - i + 1) + 1, ext, code });
    }
    i = close + 1;
  }
  return out;
}

/** The `/** … *\/` comments of a code file: text after `/*`, and start line (0-based). */
function docComments(file: string, source: string): { text: string; line: number }[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, scriptKind(file));
  const seen = new Set<number>();
  const found: { text: string; line: number }[] = [];
  const take = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos) || r.kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
      seen.add(r.pos);
      const text = source.slice(r.pos + 2, r.end - 2);
      if (!text.startsWith("*")) continue;
      found.push({ text, line: sf.getLineAndCharacterOfPosition(r.pos).line });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(source, node.pos));
    take(ts.getTrailingCommentRanges(source, node.end));
    // Tokens (children that are not nodes) carry comments too.
    if (node.getChildCount(sf) === 0) return;
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  take(ts.getLeadingCommentRanges(source, sf.endOfFileToken.pos));
  return found.sort((a, b) => a.line - b.line);
}

function commentExamples(file: string, source: string): Example[] {
  const lineRegex = /(?:\* ?)((#!+).*)|(?:\* ?)(?:# ?)?(.*)/;
  const out: Example[] = [];
  for (const comment of docComments(file, source)) {
    const blocks = /```([^\r\n]*)\r?\n([\s\S]*?)```/g;
    for (let m; (m = blocks.exec(comment.text));) {
      const ext = fenceExtension(m[1]);
      if (!ext) continue;
      const offset = comment.text.slice(0, m.index).split("\n").length - 1;
      const count = m[0].split("\n").length;
      const lineStart = comment.text.lastIndexOf("\n", m.index) + 1;
      const quoted = /^[ \t*]*>/.test(comment.text.slice(lineStart, m.index));
      const code = blockCode(m[2], lineRegex, quoted)!;
      const start = comment.line + offset + 1;
      out.push({ file, start, end: start + count, ext, code });
    }
  }
  return out;
}

function scriptKind(path: string): ts.ScriptKind {
  if (/\.tsx$/.test(path)) return ts.ScriptKind.TSX;
  if (/\.jsx$/.test(path)) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(path)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** The names a module exports, as Deno's doc tests import them: value and type-only. */
export function exportedNames(file: string, source: string): Map<string, boolean> {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, scriptKind(file));
  const names = new Map<string, boolean>(); // name → type-only
  let defaultName: string | undefined;
  const value = (name: string) => names.set(name, false);
  const typeOnly = (name: string) => {
    if (names.get(name) !== false) names.set(name, true);
  };
  const hasModifier = (node: ts.Node, kind: ts.SyntaxKind) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
  const bindingNames = (name: ts.BindingName, into: string[]) => {
    if (ts.isIdentifier(name)) into.push(name.text);
    else {
      for (const el of name.elements) {
        if (ts.isBindingElement(el)) bindingNames(el.name, into);
      }
    }
    return into;
  };
  const visitStatements = (statements: readonly ts.Statement[]) => {
    for (const st of statements) {
      const exported = hasModifier(st, ts.SyntaxKind.ExportKeyword);
      const isDefault = hasModifier(st, ts.SyntaxKind.DefaultKeyword);
      if (ts.isModuleDeclaration(st)) {
        if (hasModifier(st, ts.SyntaxKind.DeclareKeyword)) continue;
        if (exported) value(st.name.text);
        if (st.body && ts.isModuleBlock(st.body)) visitStatements(st.body.statements);
        continue;
      }
      if (exported && isDefault) {
        if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) {
          defaultName = st.name.text;
        } else if (ts.isInterfaceDeclaration(st)) defaultName = st.name.text;
        continue;
      }
      if (exported) {
        if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) {
          if (st.name) value(st.name.text);
        } else if (ts.isVariableStatement(st)) {
          for (const d of st.declarationList.declarations) {
            for (const n of bindingNames(d.name, [])) value(n);
          }
        } else if (ts.isTypeAliasDeclaration(st) || ts.isInterfaceDeclaration(st)) {
          typeOnly(st.name.text);
        }
        continue;
      }
      if (ts.isExportAssignment(st) && !st.isExportEquals && ts.isIdentifier(st.expression)) {
        defaultName = st.expression.text;
      } else if (
        ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)
      ) {
        for (const el of st.exportClause.elements) {
          const name = el.name.text;
          if (st.moduleSpecifier && name === "default") continue;
          if (st.isTypeOnly || el.isTypeOnly) typeOnly(name);
          else value(name);
        }
      }
    }
  };
  visitStatements(sf.statements);
  if (defaultName !== undefined && !names.has(defaultName)) names.set("default", false);
  const result = new Map<string, boolean>();
  for (const [name, isType] of names) {
    if (name !== "default" && /^[A-Za-z_$][\w$]*$/.test(name)) result.set(name, isType);
  }
  if (defaultName !== undefined && !names.has(defaultName)) {
    result.set(`default as ${defaultName}`, false);
  }
  return result;
}

/** The function of an example module that runs the example. */
const RUN = "runExample$";

/** Why an example cannot leave Deno's own `--doc`, or undefined when it can. */
export function unmovable(example: Example): string | undefined {
  if (/^#!/.test(example.code)) return "starts with #!";
  if (/\bimport\.meta\b(?!\.url\b)/.test(example.code)) {
    return "reads import.meta, not only its url";
  }
  return undefined;
}

/**
 * The module for one example, written in `.doc_examples/` beside its source
 * file: `import`s and `export … from`s first (relative specifiers one folder
 * up), then the source file's exported names that the example neither imports
 * nor declares, then the code in the default export (an `async` function),
 * `export` dropped from declarations — or, when the code calls `Deno.test`
 * itself, the code as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exampleModule } from "./doc_examples.ts";
 *
 * const exports = new Map([["add", false], ["Options", true], ["x", false]]);
 * const text = exampleModule(
 *   { file: "a/b.ts", start: 2, end: 6, ext: "ts", code: 'import { y } from "./y.ts";\nconst x = add(y);\n' },
 *   exports,
 * );
 * assert.equal(
 *   text,
 *   '// a/b.ts#2-6.ts, generated by scripts/doc_examples.ts\n' +
 *     'import { y } from "../y.ts";\n' +
 *     'import { type Options, add } from "../b.ts";\n' +
 *     "export async function runExample$() {\n" +
 *     "const x = add(y);\n" +
 *     "}\n",
 * );
 * ```
 */
export function exampleModule(example: Example, exports: Map<string, boolean>): string {
  const kind = scriptKind(`x.${example.ext}`);
  const code = example.code;
  const sf = ts.createSourceFile(`x.${example.ext}`, code, ts.ScriptTarget.Latest, false, kind);
  const up = (spec: string) =>
    spec.startsWith("./") ? `../${spec.slice(2)}` : spec.startsWith("../") ? `../${spec}` : spec;
  const declared = new Set<string>();
  const top: string[] = [];
  const body: string[] = [];
  const hasModifier = (node: ts.Node, k: ts.SyntaxKind) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === k);
  const bindingNames = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) declared.add(name.text);
    else {
      for (const el of name.elements) if (ts.isBindingElement(el)) bindingNames(el.name);
    }
  };
  // Names declared at the top level (var anywhere outside functions counts too).
  const collectVars = (node: ts.Node) => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isVariableDeclarationList(node) && !(node.flags & ts.NodeFlags.BlockScoped)) {
      for (const d of node.declarations) bindingNames(d.name);
    }
    ts.forEachChild(node, collectVars);
  };
  const base = example.file.slice(example.file.lastIndexOf("/") + 1);
  // A statement's text, with `import("./…")` specifiers one folder up and
  // `import.meta.url` the URL Deno gives the example.
  const text = (node: ts.Node, start = node.getStart(sf)) => {
    const edits: { from: number; to: number; code: string }[] = [];
    const find = (n: ts.Node) => {
      if (
        ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword &&
        n.arguments[0] && ts.isStringLiteralLike(n.arguments[0])
      ) {
        const arg = n.arguments[0];
        edits.push({ from: arg.getStart(sf), to: arg.end, code: JSON.stringify(up(arg.text)) });
      } else if (
        ts.isPropertyAccessExpression(n) && ts.isMetaProperty(n.expression) &&
        n.expression.keywordToken === ts.SyntaxKind.ImportKeyword && n.name.text === "url"
      ) {
        // Deno's URL for the example: its source file's, with the lines as a fragment.
        const url = `../${base}#${example.start}-${example.end}.${example.ext}`;
        edits.push({
          from: n.getStart(sf),
          to: n.end,
          code: `new URL(${JSON.stringify(url)}, import.meta.url).href`,
        });
        return;
      }
      ts.forEachChild(n, find);
    };
    find(node);
    let out = "";
    let at = start;
    for (const e of edits) {
      out += code.slice(at, e.from) + e.code;
      at = e.to;
    }
    return out + code.slice(at, node.end);
  };
  const withSpecifier = (node: ts.ImportDeclaration | ts.ExportDeclaration) => {
    const spec = node.moduleSpecifier as ts.StringLiteral | undefined;
    if (!spec) return text(node);
    const start = node.getStart(sf);
    return code.slice(start, spec.getStart(sf)) + JSON.stringify(up(spec.text)) +
      code.slice(spec.end, node.end);
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      if (clause?.name) declared.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declared.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) declared.add(el.name.text);
      }
      top.push(withSpecifier(st));
      continue;
    }
    if (ts.isImportEqualsDeclaration(st)) {
      declared.add(st.name.text);
      top.push(text(st));
      continue;
    }
    if (ts.isExportDeclaration(st)) {
      top.push(withSpecifier(st));
      continue;
    }
    if (ts.isExportAssignment(st)) {
      body.push(st.isExportEquals ? text(st) : `(${text(st.expression)});`);
      continue;
    }
    if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) {
      const isDefault = hasModifier(st, ts.SyntaxKind.DefaultKeyword);
      if (st.name && !isDefault) declared.add(st.name.text);
    } else if (
      ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) ||
      ts.isEnumDeclaration(st) || ts.isModuleDeclaration(st)
    ) {
      if (ts.isIdentifier(st.name)) declared.add(st.name.text);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) bindingNames(d.name);
    }
    collectVars(st);
    const modifiers = ts.canHaveModifiers(st) ? ts.getModifiers(st) ?? [] : [];
    const exportMod = modifiers.find((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exportMod) {
      const defaultMod = modifiers.find((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      const rest = text(st, (defaultMod ?? exportMod).end).replace(/^\s+/, "");
      body.push(defaultMod ? `(${rest.replace(/;\s*$/, "")});` : rest);
    } else {
      body.push(text(st));
    }
  }
  const wanted: string[] = [];
  for (const [name, isType] of [...exports].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    const local = name.startsWith("default as ") ? name.slice(11) : name;
    if (declared.has(local)) continue;
    wanted.push(isType ? `type ${name}` : name);
  }
  const lines = [`// ${exampleName(example)}, generated by scripts/doc_examples.ts`, ...top];
  if (wanted.length) lines.push(`import { ${wanted.join(", ")} } from "../${base}";`);
  if (/^\s*Deno\.test\(/m.test(code)) {
    lines.push(...body);
  } else {
    lines.push(`export async function ${RUN}() {`, ...body, "}");
  }
  return lines.join("\n") + "\n";
}

/** Folders `deno test --doc .` does not look into (besides dot-folders). */
const SKIPPED = new Set(["node_modules", "npm"]);
/** Paths from the root `deno.json` excludes. */
const EXCLUDED = ["bench/results/"];
const SOURCE = /\.(ts|tsx|js|jsx|mjs|mts|cjs|cts|md|markdown)$/;

/** The files under `root` whose examples `deno test --doc .` runs, relative, sorted. */
export async function sourceFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string) => {
    for await (const entry of Deno.readDir(rel ? `${root}/${rel}` : root)) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) {
        if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
        if (EXCLUDED.some((e) => `${path}/`.startsWith(e))) continue;
        await walk(path);
      } else if (entry.isFile && SOURCE.test(entry.name)) {
        found.push(path);
      }
    }
  };
  await walk("");
  return found.sort();
}

/** The hidden folder beside source files that holds the generated modules. */
export const OUT = ".doc_examples";

/** What {@linkcode writeExamples} wrote. */
export interface Written {
  /** The runners, one per folder with examples (relative to the root). */
  runners: string[];
  /** Source files whose examples stay with Deno's `--doc` (see {@linkcode unmovable}). */
  native: string[];
  /** Examples moved into runners. */
  examples: number;
}

/** Removes every `.doc_examples/` folder under `root`. */
export async function cleanExamples(root: string): Promise<void> {
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isDirectory) continue;
      if (entry.name === OUT) await Deno.remove(`${dir}/${entry.name}`, { recursive: true });
      else if (!entry.name.startsWith(".") && !SKIPPED.has(entry.name)) {
        await walk(`${dir}/${entry.name}`);
      }
    }
  };
  await walk(root);
}

/** Options of {@linkcode writeExamples}. */
export interface WriteOptions {
  /** Source files whose examples get a runner of their own (slow ones, to run in parallel). */
  alone?: readonly string[];
  /** At most this many examples in one runner (a folder with more gets several). */
  perRunner?: number;
}

/**
 * Writes the example modules and the runners, after removing earlier ones: one
 * runner per folder (`<folder>/.doc_examples/examples_<n>_test.ts`, split into
 * parts of at most `perRunner` examples), and one per file of `alone`
 * (`<folder>/.doc_examples/<file>_test.ts`).
 */
export async function writeExamples(root: string, options: WriteOptions = {}): Promise<Written> {
  const { alone = [], perRunner = 80 } = options;
  await cleanExamples(root);
  type Entry = { module: string; name: string; wrapped: boolean };
  const groups = new Map<string, Entry[]>(); // runner path → its examples
  const native: string[] = [];
  let examples = 0;
  for (const file of await sourceFiles(root)) {
    const source = await Deno.readTextFile(`${root}/${file}`);
    if (!source.includes("```")) continue;
    const found = extractExamples(file, source);
    if (!found.length) continue;
    if (found.some(unmovable)) {
      native.push(file);
      continue;
    }
    const exports = /\.(md|markdown)$/i.test(file) ? new Map() : exportedNames(file, source);
    const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
    const base = file.slice(dir.length);
    await Deno.mkdir(`${root}/${dir}${OUT}`, { recursive: true });
    const group = alone.includes(file) ? `${dir}${OUT}/${base}_test.ts` : `${dir}${OUT}/examples`;
    const list = groups.get(group) ?? [];
    groups.set(group, list);
    for (const example of found) {
      const module = `${base}_${example.start}-${example.end}.${example.ext}`;
      const text = exampleModule(example, exports);
      await Deno.writeTextFile(`${root}/${dir}${OUT}/${module}`, text);
      const wrapped = text.includes(`export async function ${RUN}() {\n`);
      list.push({ module, name: exampleName(example), wrapped });
      examples++;
    }
  }
  const runners: string[] = [];
  for (const [group, list] of groups) {
    const parts = group.endsWith("_test.ts") ? [group] : Array.from(
      { length: Math.ceil(list.length / perRunner) },
      (_, i) => `${group}_${i + 1}_test.ts`,
    );
    parts.forEach((runner, part) => {
      const chunk = list.slice(part * perRunner, (part + 1) * perRunner);
      const lines = ["// Generated by scripts/doc_examples.ts: documentation examples."];
      chunk.forEach((e, i) => {
        lines.push(
          e.wrapped
            ? `import { ${RUN} as e${i} } from "./${e.module}";`
            : `import "./${e.module}";`,
        );
      });
      chunk.forEach((e, i) => {
        if (e.wrapped) lines.push(`Deno.test(${JSON.stringify(e.name)}, e${i});`);
      });
      Deno.writeTextFileSync(`${root}/${runner}`, lines.join("\n") + "\n");
      runners.push(runner);
    });
  }
  return { runners: runners.sort(), native, examples };
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => !a.startsWith("--"));
  const root = args[0] ?? new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  if (Deno.args.includes("--clean")) {
    await cleanExamples(root);
  } else if (Deno.args.includes("--list")) {
    for (const file of await sourceFiles(root)) {
      const source = await Deno.readTextFile(`${root}/${file}`);
      for (const e of extractExamples(file, source)) console.log(exampleName(e));
    }
  } else {
    const written = await writeExamples(root);
    console.log(JSON.stringify(written, null, 1));
  }
}
