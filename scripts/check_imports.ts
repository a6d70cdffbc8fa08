/**
 * The import-graph check of `deno task ok`: which folder may import which
 * (the table {@link RULES} below), no import cycles, and no import that points
 * at a file that does not exist.
 *
 * It reads every `.ts` file under the root except tests (`*_test.ts`), the
 * tooling folders (`tests/`, `bench/`, `scripts/`, `testing/`, `npm/`), any
 * `node_modules/` or `testdata/` folder and hidden folders (`.memo/`, `.git/`).
 * It walks the directory tree rather than asking git, so files not yet
 * committed are checked too. Each file is parsed with the TypeScript compiler
 * API, so imports written in comments, JSDoc examples and strings are not
 * counted. Counted alike: `import … from`, `import "…"`, `import type`,
 * `export … from` (also `export type` and `export *`), `import("…")` with a
 * literal specifier, and `import("…")` in a type position (type-only).
 *
 * Specifiers: relative and absolute paths resolve to files; `@memo/memory` and
 * `@memo/connectors` resolve to `memory/mod.ts` and `connectors/mod.ts` (a
 * subpath such as `@memo/memory/x.ts` to `memory/x.ts`), and `@memo/mcp-server`
 * and `@memo/mcp-server/http` to `mod.ts` and `http.ts`. Every other specifier
 * (`npm:`, `node:`, `jsr:`, `https:`, bare names such as `zod`) is external and
 * always allowed.
 *
 * Groups: a file belongs to its top-level folder (`memory/`, `server/`, …); a
 * file at the root is one of the {@link ENTRY_POINTS} (`mod.ts`, `http.ts`,
 * `cli.ts`) or else one of the root shared files (`env.ts`, `version.ts`). A
 * group may always import itself.
 *
 * It fails on:
 * - a cycle among the checked files (type-only imports count too);
 * - an import that {@link RULES} forbids, or one into tests or tooling;
 * - a top-level folder with checked files but no rule (add its rule to
 *   {@link RULES} in the commit that adds the folder);
 * - an import that resolves to no existing file;
 * - a file outside a folder named `platform/` that touches the host: a
 *   reference to `Deno` or to the global `process` (also as `globalThis.Deno`
 *   or `globalThis.process`), or an import of `node:process`;
 * - a `_` file imported from another folder (a subfolder or a parent counts
 *   as another folder): `_` means private to its folder;
 * - a folder's `mod.ts` that re-exports a `_` file, or a file without `_`
 *   that its folder's `mod.ts` does not re-export (at least one name). Not
 *   counted: `mod.ts` itself, the {@link FOLDER_ENTRY_POINTS}, and the root
 *   files (the entry points and the root shared files, which {@link RULES}
 *   names; a root `_` file is still private to the root);
 * - a folder holding checked files but no `mod.ts` (the root, whose
 *   `mod.ts` is the package entry, and {@link BUNDLED_FOLDERS} aside).
 *
 * Usage: `deno run -A scripts/check_imports.ts [ROOT]` (ROOT defaults to the
 * repository). It prints each offending import as `file → file` on stderr and
 * exits 1, or prints a one-line summary and exits 0.
 *
 * @example Check a tiny tree that holds a cycle
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdir, rm, writeFile } from "node:fs/promises";
 * import { join } from "node:path";
 * import { checkImports, formatProblem } from "./check_imports.ts";
 *
 * const root = await Deno.makeTempDir();
 * try {
 *   await mkdir(join(root, "memory"));
 *   await writeFile(join(root, "memory", "a.ts"), 'import { b } from "./b.ts";\nexport const a = 1 + b;\n');
 *   await writeFile(join(root, "memory", "b.ts"), 'import type { A } from "./a.ts";\nexport const b = 2;\n');
 *   await writeFile(join(root, "memory", "mod.ts"), 'export * from "./a.ts";\nexport * from "./b.ts";\n');
 *   const { problems, files, imports } = await checkImports(root);
 *   assert.equal(files, 3);
 *   assert.equal(imports, 4);
 *   assert.deepEqual(problems.map((problem) => problem.kind), ["cycle"]);
 *   assert.match(formatProblem(problems[0]), /memory\/a\.ts → memory\/b\.ts → memory\/a\.ts/);
 * } finally {
 *   await rm(root, { recursive: true });
 * }
 * ```
 *
 * @module
 */

// deno-lint-ignore no-import-prefix
import ts from "npm:typescript@6.0.3";
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The root file group of the entry points. */
export const ENTRY_POINTS = "entry points";
/** The root file group of every other `.ts` file at the root. */
export const ROOT_SHARED = "root shared files";

/** What one group may import besides itself and externals. */
export interface Rule {
  /** Groups it may import anything from, or `"anything"`. */
  may: readonly string[] | "anything";
  /** Groups it may import only types from (`import type`, `export type`). */
  types?: readonly string[];
  /**
   * Other folders only through their `mod.ts` (a sub-folder's counts), and no
   * root file whose name starts with `_`.
   */
  throughMod?: boolean;
  /**
   * Files of other groups it may import values from: pure code that reaches
   * no data (a package's subpath export such as `@memo/memory/format`).
   */
  files?: readonly string[];
  /** Why, in one line. */
  reason: string;
}

/**
 * Which group may import which. A group missing here has no rule, and its
 * folder fails the check until its rule is added. Nothing lists `cli/` but the
 * entry points: only they import the CLI.
 */
export const RULES: Readonly<Record<string, Rule>> = {
  "memory/": { may: [], reason: "the memory package knows no connector and no protocol" },
  "connectors/": { may: ["memory/"], reason: "the connectors build on memory and know no MCP" },
  "runtimes/": {
    may: ["memory/", "connectors/", "platform/", ROOT_SHARED],
    reason: "runtimes sit below the protocol server and reach the cloud only over HTTP",
  },
  "web/": {
    may: [],
    types: ["memory/"],
    reason: "the web page is a bundle and its HTML; of memo it knows only the note shapes " +
      "(types, erased from the bundle)",
  },
  "server/": {
    may: ["web/", "platform/", ROOT_SHARED],
    types: ["runtimes/", "memory/", "connectors/"],
    files: ["memory/notes/format.ts"],
    reason: "the server reaches data only through a MemoMcpRuntime it is given",
  },
  "cloud/": {
    may: ["memory/", "platform/", ROOT_SHARED],
    reason: "the reference Cloud API server stores notes and knows no MCP and no runtime",
  },
  "cli/": {
    may: ["memory/", "connectors/", "runtimes/", "server/", "cloud/", ROOT_SHARED],
    throughMod: true,
    reason: "the CLI drives everything below it through their mod.ts and is handed the " +
      "platform by cli.ts; only the entry points import it",
  },
  "platform/": {
    may: [ROOT_SHARED],
    reason: "the Deno/Node adapter and the HTTP serving pieces know no part of memo",
  },
  [ROOT_SHARED]: {
    may: [],
    types: ["memory/"],
    reason: "the MEMO_* reader and the version know no part of memo but the memory package's types",
  },
  [ENTRY_POINTS]: { may: "anything", reason: "the entry points assemble the parts" },
};

/** The root files that are entry points. */
export const ENTRY_POINT_FILES: readonly string[] = ["mod.ts", "http.ts", "cli.ts"];

/** Entry points inside folders (run by path), which no `mod.ts` re-exports. */
export const FOLDER_ENTRY_POINTS: readonly string[] = ["cloud/main.ts"];

/**
 * Browser source bundled from its entry (`web/src/main.tsx`): no `mod.ts`,
 * and its files are private to the bundle.
 */
export const BUNDLED_FOLDERS: readonly string[] = ["web/src"];

/** The only folder name whose files may touch the host (`Deno`, `process`). */
const PLATFORM_FOLDER = "platform";

/** Top-level folders that are not checked, and that checked files must not import. */
const TOOLING_FOLDERS = new Set(["tests", "bench", "scripts", "testing", "npm"]);
/** Folders skipped at any depth (besides hidden ones). */
const SKIPPED_ANYWHERE = new Set(["node_modules", "testdata"]);

/** Workspace specifiers: `@memo/<name>` → file, and the folder its subpaths live in. */
const WORKSPACE: Readonly<Record<string, { main: string; subpaths?: string }>> = {
  "@memo/memory": { main: "memory/mod.ts", subpaths: "memory" },
  "@memo/memory/format": { main: "memory/notes/format.ts" },
  "@memo/connectors": { main: "connectors/mod.ts", subpaths: "connectors" },
  "@memo/mcp-server": { main: "mod.ts" },
  "@memo/mcp-server/http": { main: "http.ts" },
};

/** How an import is written. */
export type ImportKind = "import" | "export" | "import()";

/** One import of one checked file. */
export interface Arrow {
  /** The importing file, relative to the root, with `/`. */
  from: string;
  /** The imported file relative to the root, or the specifier when it resolves to none. */
  to: string;
  /** The specifier as written. */
  specifier: string;
  /** 1-based line of the import. */
  line: number;
  kind: ImportKind;
  /** `import type`, `export type`, only `type`-qualified names, or `import("…")` in a type. */
  typeOnly: boolean;
}

/** One reason the check fails. */
export interface Problem {
  kind:
    | "cycle"
    | "forbidden"
    | "unresolved"
    | "no rule"
    | "host"
    | "private"
    | "unexported"
    | "no mod";
  /**
   * The arrows at fault: the whole chain of a cycle, one arrow for "forbidden",
   * "unresolved", "private" and a `mod.ts` that re-exports a `_` file, none
   * otherwise.
   */
  arrows: Arrow[];
  /** The folder at fault (`web/`, `cli/init`), for "no rule" and "no mod". */
  folder?: string;
  /** The file at fault, for "host" and "unexported". */
  file?: string;
  /** 1-based line, for "host". */
  line?: number;
  /** Why it is a problem, in one line. */
  reason: string;
}

/** What {@link checkImports} found. */
export interface CheckResult {
  problems: Problem[];
  /** Files checked. */
  files: number;
  /** Imports read, external ones included. */
  imports: number;
  /** Of those, imports of external modules. */
  external: number;
}

/** The `.ts` files to check under `root`, relative with `/`, sorted. */
async function listFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string, rel: string) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const name = entry.name;
      const path = rel ? `${rel}/${name}` : name;
      if (entry.isDirectory()) {
        if (name.startsWith(".") || SKIPPED_ANYWHERE.has(name)) continue;
        if (!rel && TOOLING_FOLDERS.has(name)) continue;
        await walk(join(dir, name), path);
      } else if (entry.isFile() && isChecked(name)) {
        found.push(path);
      }
    }
  }
  await walk(root, "");
  return found.sort();
}

/** `.ts` files but tests; `.tsx` is the web page's browser source (`web/src/`), bundled apart. */
function isChecked(name: string): boolean {
  return name.endsWith(".ts") && !/_test\.ts$/.test(name);
}

/** The group of a file relative to the root. */
function groupOf(file: string): string {
  const slash = file.indexOf("/");
  if (slash >= 0) return file.slice(0, slash + 1);
  return ENTRY_POINT_FILES.includes(file) ? ENTRY_POINTS : ROOT_SHARED;
}

/** True for tests and tooling, which checked files must not import. */
function isTooling(file: string): boolean {
  const top = file.split("/")[0];
  return TOOLING_FOLDERS.has(top) || /_test\.tsx?$/.test(file) ||
    file.split("/").some((part) => part.startsWith(".") || SKIPPED_ANYWHERE.has(part));
}

/** A place where a file touches the host. */
interface HostUse {
  line: number;
  /** `Deno`, `process` or `globalThis.Deno` …. */
  what: string;
}

/** What one file's source holds: its imports and where it touches the host. */
function readSource(
  file: string,
  source: string,
): { imports: Omit<Arrow, "to">[]; host: HostUse[] } {
  const sourceFile = ts.createSourceFile(
    file,
    source,
    { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    true, // parents: telling a reference from a property name needs them
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: Omit<Arrow, "to">[] = [];
  const host: HostUse[] = [];
  const declared = declaredNames(sourceFile);
  const lineOf = (node: ts.Node) =>
    sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
  const add = (node: ts.Node, literal: ts.Node, kind: ImportKind, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(literal)) return;
    const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
    found.push({ from: file, specifier: literal.text, line: line + 1, kind, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node, node.moduleSpecifier, "import", isTypeOnlyImport(node.importClause));
    } else if (ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier) {
        add(node, node.moduleSpecifier, "export", isTypeOnlyExport(node));
      }
    } else if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference)) {
        add(node, node.moduleReference.expression, "import", node.isTypeOnly);
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      if (node.arguments.length > 0) add(node, node.arguments[0], "import()", false);
    } else if (ts.isImportTypeNode(node)) {
      if (ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal, "import()", true);
    } else if (ts.isIdentifier(node) && HOST_GLOBALS.has(node.text)) {
      if (!declared.has(node.text) && isGlobalReference(node)) {
        host.push({ line: lineOf(node), what: node.text });
      }
    } else if (
      ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) &&
      node.expression.text === "globalThis" && HOST_GLOBALS.has(node.name.text)
    ) {
      host.push({ line: lineOf(node), what: `globalThis.${node.name.text}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { imports: found, host };
}

/** The globals that only `platform/` may touch. */
const HOST_GLOBALS = new Set(["Deno", "process"]);

/** The host globals that `file` declares itself (a variable, parameter or import named so). */
function declaredNames(sourceFile: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    const name = (node as { name?: ts.Node }).name;
    if (
      name && ts.isIdentifier(name) && HOST_GLOBALS.has(name.text) &&
      (ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) || ts.isImportClause(node) || ts.isImportSpecifier(node) ||
        ts.isNamespaceImport(node) || ts.isBindingElement(node))
    ) names.add(name.text);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return names;
}

/** Whether an identifier is a reference to a global (not a property or member name). */
function isGlobalReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isQualifiedName(parent) && parent.right === node) return false;
  const named = ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) ||
    ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent) ||
    ts.isMethodSignature(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent) ||
    ts.isEnumMember(parent);
  if (named && parent.name === node) return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  return true;
}

function isTypeOnlyImport(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false; // import "./x.ts": run for its effects
  if (clause.phaseModifier === ts.SyntaxKind.TypeKeyword) return true;
  if (clause.name || !clause.namedBindings) return false;
  if (!ts.isNamedImports(clause.namedBindings)) return false; // import * as x
  const names = clause.namedBindings.elements;
  return names.length > 0 && names.every((name) => name.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || !ts.isNamedExports(clause)) return false; // export *, export * as x
  return clause.elements.length > 0 && clause.elements.every((name) => name.isTypeOnly);
}

type Resolved =
  | { external: true }
  | { external: false; path?: string; why?: string };

/** Where a specifier points: a path relative to the root, or external. */
function resolveSpecifier(root: string, from: string, specifier: string): Resolved {
  let absolute: string;
  if (specifier.startsWith("./") || specifier.startsWith("../") || isAbsolute(specifier)) {
    absolute = resolve(root, dirname(from), specifier);
  } else if (specifier.startsWith("file:")) {
    absolute = fileURLToPath(specifier);
  } else if (specifier === "@memo" || specifier.startsWith("@memo/")) {
    const exact = WORKSPACE[specifier];
    if (exact) return { external: false, path: exact.main };
    const name = specifier.split("/").slice(0, 2).join("/");
    const folder = WORKSPACE[name]?.subpaths;
    if (!folder) return { external: false, why: "no such workspace package or export" };
    return { external: false, path: `${folder}/${specifier.slice(name.length + 1)}` };
  } else {
    return { external: true };
  }
  const rel = relative(root, absolute);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    return { external: false, why: "outside the repository" };
  }
  return { external: false, path: rel.split(sep).join("/") };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function describeGroups(groups: readonly string[]): string {
  return groups.length === 0 ? "nothing outside itself" : groups.join(", ");
}

/**
 * Whether `file` is a folder's `mod.ts`, a package's export, or a root file
 * whose name does not start with `_`.
 */
function viaModOrPublicRoot(file: string): boolean {
  if (Object.values(WORKSPACE).some((entry) => entry.main === file)) return true;
  const slash = file.lastIndexOf("/");
  return slash < 0 ? !file.startsWith("_") : file.slice(slash + 1) === "mod.ts";
}

/** Why the rule of `from`'s group forbids `arrow`, or undefined when it allows it. */
function forbiddenBecause(arrow: Arrow): string | undefined {
  const fromGroup = groupOf(arrow.from);
  const toGroup = groupOf(arrow.to);
  if (isTooling(arrow.to)) {
    return "checked code never imports tests, benchmarks, scripts or test data";
  }
  if (fromGroup === toGroup) return undefined;
  const rule = RULES[fromGroup];
  if (rule?.throughMod && !viaModOrPublicRoot(arrow.to)) {
    return `${fromGroup} imports other folders only through their mod.ts, and no _ file: ${rule.reason}`;
  }
  if (!rule || rule.may === "anything" || rule.may.includes(toGroup)) return undefined;
  if (rule.files?.includes(arrow.to)) return undefined;
  if (rule.types?.includes(toGroup)) {
    if (arrow.typeOnly) return undefined;
    return `${fromGroup} may import only types from ${toGroup} (use \`import type\`): ${rule.reason}`;
  }
  const types = rule.types?.length ? `, and types from ${rule.types.join(", ")}` : "";
  return `${fromGroup} may import ${describeGroups(rule.may)}${types}: ${rule.reason}`;
}

/** Strongly connected components of the graph (Tarjan), each with its files. */
function components(graph: Map<string, Map<string, Arrow>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found;
}

/** The shortest cycle through `start` inside `members`, as its files (start first). */
function shortestCycle(
  graph: Map<string, Map<string, Arrow>>,
  members: Set<string>,
  start: string,
): string[] | undefined {
  const previous = new Map<string, string>();
  let frontier = [start];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const target of [...(graph.get(node)?.keys() ?? [])].sort()) {
        if (!members.has(target)) continue;
        if (target === start) {
          const chain = [node];
          while (chain[0] !== start) chain.unshift(previous.get(chain[0])!);
          return chain;
        }
        if (previous.has(target)) continue;
        previous.set(target, node);
        next.push(target);
      }
    }
    frontier = next;
  }
  return undefined;
}

/** Cycles covering every file of every cyclic component, each as its arrows. */
function findCycles(graph: Map<string, Map<string, Arrow>>): Arrow[][] {
  const cycles: Arrow[][] = [];
  for (const component of components(graph)) {
    const single = component.length === 1;
    if (single && !graph.get(component[0])?.has(component[0])) continue;
    const members = new Set(component);
    const covered = new Set<string>();
    for (const start of component) {
      if (covered.has(start)) continue;
      const chain = shortestCycle(graph, members, start);
      if (!chain) continue;
      chain.forEach((file) => covered.add(file));
      cycles.push(chain.map((file, i) => graph.get(file)!.get(chain[(i + 1) % chain.length])!));
    }
  }
  return cycles;
}

/** The folder of a file relative to the root (`""` for a root file). */
function folderOf(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash < 0 ? "" : file.slice(0, slash);
}

function baseName(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1);
}

function isModFile(file: string): boolean {
  return baseName(file) === "mod.ts";
}

function isBundled(folder: string): boolean {
  return BUNDLED_FOLDERS.some((bundled) => folder === bundled || folder.startsWith(`${bundled}/`));
}

/** Why `arrow` reaches a `_` file it may not, or undefined when it may. */
function privateBecause(arrow: Arrow): string | undefined {
  if (!baseName(arrow.to).startsWith("_") || isTooling(arrow.to)) return undefined;
  const home = folderOf(arrow.to);
  if (folderOf(arrow.from) === home) {
    if (isModFile(arrow.from) && arrow.kind === "export") {
      return "a mod.ts re-exports a _ file: _ means not exported by its folder's mod.ts " +
        "(drop the _ or the re-export)";
    }
    return undefined;
  }
  return `a _ file is private to its folder (${home || "the root"}/): import it only from there, ` +
    "or drop its _ and re-export it from that folder's mod.ts";
}

/** The folder problems: files without `_` that no `mod.ts` re-exports, folders with no `mod.ts`. */
function checkFolders(files: readonly string[], reexported: ReadonlySet<string>): Problem[] {
  const problems: Problem[] = [];
  const folders = new Map<string, string[]>();
  for (const file of files) {
    const folder = folderOf(file);
    if (!folder || isBundled(folder)) continue; // the root: entry points and shared files
    folders.set(folder, [...folders.get(folder) ?? [], file]);
  }
  for (const [folder, inside] of folders) {
    if (!inside.some(isModFile)) {
      problems.push({
        kind: "no mod",
        arrows: [],
        folder: `${folder}/`,
        reason: `${inside.length} checked file${inside.length === 1 ? "" : "s"} and no mod.ts: ` +
          "every library folder has one, re-exporting its files without _",
      });
      continue;
    }
    for (const file of inside) {
      const name = baseName(file);
      if (name.startsWith("_") || name === "mod.ts" || FOLDER_ENTRY_POINTS.includes(file)) continue;
      if (reexported.has(file)) continue;
      problems.push({
        kind: "unexported",
        arrows: [],
        file,
        reason: `${folder}/mod.ts does not re-export it: re-export its public names, ` +
          "or give it a _ if only its folder uses it",
      });
    }
  }
  return problems;
}

/**
 * Checks the import graph of the tree at `root`: the rules of {@link RULES},
 * no cycles, no imports of missing files, no top-level folder without a rule.
 */
export async function checkImports(root: string): Promise<CheckResult> {
  root = resolve(root);
  const files = await listFiles(root);
  const checked = new Set(files);
  const problems: Problem[] = [];
  const graph = new Map<string, Map<string, Arrow>>();
  /** Files some folder's `mod.ts` re-exports (`export … from`). */
  const reexported = new Set<string>();
  let imports = 0;
  let external = 0;

  const parsed = await Promise.all(files.map(async (file) => {
    const source = await readFile(join(root, file), "utf8");
    return readSource(file, source);
  }));
  const existing = new Map<string, Promise<boolean>>();
  const exists = (path: string) => {
    let known = existing.get(path);
    if (!known) {
      existing.set(
        path,
        known = checked.has(path) ? Promise.resolve(true) : isFile(join(root, path)),
      );
    }
    return known;
  };

  for (const [i, file] of files.entries()) {
    const edges = new Map<string, Arrow>();
    graph.set(file, edges);
    const onPlatform = folderOf(file).split("/").includes(PLATFORM_FOLDER);
    if (!onPlatform) {
      for (const use of parsed[i].host) {
        problems.push({
          kind: "host",
          arrows: [],
          file,
          line: use.line,
          reason: `touches ${use.what}: only files under a platform/ folder touch Deno or process`,
        });
      }
    }
    for (const written of parsed[i].imports) {
      imports++;
      const target = resolveSpecifier(root, file, written.specifier);
      if (target.external) {
        external++;
        if (
          !onPlatform && (written.specifier === "node:process" || written.specifier === "process")
        ) {
          problems.push({
            kind: "host",
            arrows: [],
            file,
            line: written.line,
            reason:
              `imports ${written.specifier}: only files under a platform/ folder touch process`,
          });
        }
        continue;
      }
      if (!target.path || !(await exists(target.path))) {
        const arrow = { ...written, to: target.path ?? written.specifier };
        const why = target.why ?? "no such file";
        problems.push({ kind: "unresolved", arrows: [arrow], reason: why });
        continue;
      }
      const arrow: Arrow = { ...written, to: target.path };
      if (checked.has(arrow.to) && !edges.has(arrow.to)) edges.set(arrow.to, arrow);
      const because = forbiddenBecause(arrow);
      if (because) problems.push({ kind: "forbidden", arrows: [arrow], reason: because });
      const privately = privateBecause(arrow);
      if (privately) problems.push({ kind: "private", arrows: [arrow], reason: privately });
      if (isModFile(file) && arrow.kind === "export") reexported.add(arrow.to);
    }
  }
  problems.push(...checkFolders(files, reexported));

  const unruled = new Map<string, number>();
  for (const file of files) {
    const group = groupOf(file);
    if (!RULES[group]) unruled.set(group, (unruled.get(group) ?? 0) + 1);
  }
  for (const [folder, count] of [...unruled].sort()) {
    problems.push({
      kind: "no rule",
      arrows: [],
      folder,
      reason: `${count} checked file${count === 1 ? "" : "s"}, but no rule says what ${folder} ` +
        `may import: add one to RULES in scripts/check_imports.ts`,
    });
  }

  for (const cycle of findCycles(graph)) {
    problems.push({ kind: "cycle", arrows: cycle, reason: "import cycle" });
  }

  const order: Problem["kind"][] = [
    "cycle",
    "forbidden",
    "unresolved",
    "no rule",
    "host",
    "private",
    "unexported",
    "no mod",
  ];
  const place = (p: Problem) => p.arrows[0]?.from ?? p.file ?? p.folder ?? "";
  problems.sort((a, b) =>
    order.indexOf(a.kind) - order.indexOf(b.kind) ||
    place(a).localeCompare(place(b)) ||
    (a.arrows[0]?.line ?? a.line ?? 0) - (b.arrows[0]?.line ?? b.line ?? 0)
  );
  return { problems, files: files.length, imports, external };
}

function describeArrow(arrow: Arrow): string {
  const kind = !arrow.typeOnly
    ? arrow.kind
    : arrow.kind === "import()"
    ? "import() in a type"
    : `${arrow.kind} type`;
  return `${arrow.from} → ${arrow.to}  (line ${arrow.line}, ${kind} "${arrow.specifier}")`;
}

/** One problem as text: `file → file` arrows with the reason, one or more lines. */
export function formatProblem(problem: Problem): string {
  switch (problem.kind) {
    case "cycle": {
      const chain = [...problem.arrows.map((arrow) => arrow.from), problem.arrows[0].from];
      const lines = problem.arrows.map((arrow) => `    ${describeArrow(arrow)}`);
      return [`  ${chain.join(" → ")}`, ...lines].join("\n");
    }
    case "forbidden":
    case "unresolved":
      return `  ${describeArrow(problem.arrows[0])}\n    ${problem.reason}`;
    case "no rule":
    case "no mod":
      return `  ${problem.folder}  ${problem.reason}`;
    case "host":
      return `  ${problem.file}:${problem.line}  ${problem.reason}`;
    case "private":
      return `  ${describeArrow(problem.arrows[0])}\n    ${problem.reason}`;
    case "unexported":
      return `  ${problem.file}  ${problem.reason}`;
  }
}

/** The whole report: a one-line summary when clean, else the problems under headings. */
export function formatReport(result: CheckResult): string {
  const counts = `${result.files} files, ${result.imports} imports ` +
    `(${result.imports - result.external} between files, ${result.external} external)`;
  if (result.problems.length === 0) return `check_imports: ok, ${counts}`;
  const headings: Record<Problem["kind"], string> = {
    "cycle": "import cycles",
    "forbidden": "imports the rules forbid",
    "unresolved": "imports of missing files",
    "no rule": "top-level folders with no rule",
    "host": "files outside platform/ that touch Deno or process",
    "private": "_ files reached from outside their folder, or re-exported by its mod.ts",
    "unexported": "files without _ that their folder's mod.ts does not re-export",
    "no mod": "folders without a mod.ts",
  };
  const sections: string[] = [];
  for (const kind of Object.keys(headings) as Problem["kind"][]) {
    const some = result.problems.filter((problem) => problem.kind === kind);
    if (some.length === 0) continue;
    sections.push(`${headings[kind]} (${some.length}):\n${some.map(formatProblem).join("\n")}`);
  }
  const total = result.problems.length;
  return [
    `check_imports: ${total} problem${total === 1 ? "" : "s"} in ${counts}`,
    ...sections,
  ].join("\n\n");
}

if (import.meta.main) {
  const root = Deno.args[0] ?? fileURLToPath(new URL("..", import.meta.url));
  const started = performance.now();
  const result = await checkImports(root);
  const took = ((performance.now() - started) / 1000).toFixed(2);
  if (result.problems.length === 0) {
    console.log(`${formatReport(result)}, ${took} s`);
  } else {
    console.error(formatReport(result));
    Deno.exit(1);
  }
}
