// The README and docs/ against the sources: every `MEMO_*` variable is in the
// configuration reference, every error code in the error reference, every
// command in docs/cli.md, and every relative link points at a file that exists.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { COMMAND_INFO } from "../cli/command_info.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Folders that are not the product's sources. */
const SKIP_DIRS = new Set(["tests", "bench", ".scratch", "npm", "node_modules", ".git", ".memo"]);

function sourceFiles(dir = ROOT, keep: (path: string) => boolean = () => true): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) out.push(...sourceFiles(path, keep));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts") && keep(path)) {
      out.push(path);
    }
  }
  return out;
}

const read = (path: string) => readFileSync(path, "utf8");
const README = read(join(ROOT, "README.md"));
const CONFIGURATION = read(join(ROOT, "docs/configuration.md"));
const ERRORS = read(join(ROOT, "docs/errors.md"));
const CLI = read(join(ROOT, "docs/cli.md"));

/**
 * `MEMO_*` names in the sources that are not environment variables: exported
 * constants (found by their declaration below) and this one, which an example
 * reads to show an unset variable. Error codes named `MEMO_…` are checked
 * against the error reference instead.
 */
const NOT_VARIABLES = new Set(["MEMO_EXAMPLE_VARIABLE_THAT_IS_NOT_SET"]);

/** The `MEMO_*` environment variables the sources name. */
export function memoVariables(texts: readonly string[], errorCodes: ReadonlySet<string>): string[] {
  const declared = new Set<string>();
  const names = new Set<string>();
  for (const text of texts) {
    for (
      const m of text.matchAll(/\b(?:const|let|var|function|class|type|interface)\s+(MEMO_\w+)/g)
    ) {
      declared.add(m[1]);
    }
    // A name ending in `_` is a prefix (`MEMO_CLOUD_*`), not a variable.
    for (const m of text.matchAll(/\bMEMO_[A-Z0-9_]*[A-Z0-9]\b/g)) names.add(m[0]);
  }
  return [...names]
    .filter((n) => !declared.has(n) && !NOT_VARIABLES.has(n) && !errorCodes.has(n))
    .sort();
}

/**
 * The error codes the error classes define: in every non-test `*errors.ts`,
 * each `code … = "X"` and each string member of a `…Code` union type.
 */
export function errorCodes(texts: readonly string[]): string[] {
  const codes = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(/\bcode\s*:\s*[\w.]+\s*=\s*"([^"]+)"/g)) codes.add(m[1]);
    for (const m of text.matchAll(/\btype\s+\w*Code\s*=([^;]+);/g)) {
      for (const s of m[1].matchAll(/"([^"]+)"/g)) codes.add(s[1]);
    }
  }
  return [...codes].sort();
}

/** Relative link targets (without their `#fragment`) of a markdown text. */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const out: string[] = [];
  for (const m of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
    out.push(decodeURIComponent(target.split("#")[0]));
  }
  return out;
}

const ERROR_FILES = sourceFiles(ROOT, (p) => /errors\.ts$/.test(p));
const CODES = errorCodes(ERROR_FILES.map(read));

Deno.test("the error files are found, and their codes include each family", () => {
  const files = ERROR_FILES.map((p) => relative(ROOT, p)).sort();
  for (
    const expected of [
      "cloud/errors.ts",
      "connectors/errors.ts",
      "memory/errors.ts",
      "runtimes/cloud/errors.ts",
      "runtimes/errors.ts",
      "server/errors.ts",
    ]
  ) assert.ok(files.includes(expected), `${expected} not found among ${files.join(", ")}`);
  for (
    const code of [
      "MCP_TIMEOUT",
      "MEMO_MCP_ERROR",
      "MEMORY_ERROR",
      "STORE_LOCK_TIMEOUT",
      "REPO_HOST_RATE_LIMITED",
      "CONFIG",
      "UNAVAILABLE",
      "payload_too_large",
      "timeout",
    ]
  ) assert.ok(CODES.includes(code), `${code} not extracted`);
});

Deno.test("every MEMO_* variable in the sources is in docs/configuration.md", () => {
  const variables = memoVariables(sourceFiles().map(read), new Set(CODES));
  assert.ok(variables.length >= 30, `only ${variables.length} variables found`);
  for (const name of ["MEMO_RUNTIME", "MEMO_LOG_LEVEL", "MEMO_MCP_MAX_LISTEN_STREAMS"]) {
    assert.ok(variables.includes(name), `${name} not found in the sources`);
  }
  // Constants are not variables.
  assert.ok(!variables.includes("MEMO_MCP_LIMITS"));
  const missing = variables.filter((name) => !CONFIGURATION.includes(`\`${name}\``));
  assert.deepEqual(missing, [], `missing from docs/configuration.md: ${missing.join(", ")}`);
});

Deno.test("the README names the most used variables and links the configuration reference", () => {
  assert.match(README, /\]\(docs\/configuration\.md\)/);
  assert.match(README, /^## Configuration$/m);
  for (
    const key of ["runtime", "cloud.baseUrl", "recall.engine", "recall.includeCloud", "connectors"]
  ) {
    assert.ok(README.includes(`\`${key}\``), `README's Configuration lacks ${key}`);
    assert.ok(CONFIGURATION.includes(`\`${key}\``), `docs/configuration.md lacks ${key}`);
  }
});

Deno.test("every error code the error classes define is in docs/errors.md", () => {
  const missing = CODES.filter((code) => !ERRORS.includes(`\`${code}\``));
  assert.deepEqual(missing, [], `missing from docs/errors.md: ${missing.join(", ")}`);
  for (const jsonRpc of [-32700, -32600, -32601, -32602, -32603, -32002, -32010, -32011, -32012]) {
    assert.ok(ERRORS.includes(String(jsonRpc)), `JSON-RPC ${jsonRpc} missing`);
  }
  for (const stateless of [-32020, -32021, -32022, -31403, -31413, -31503, -31504]) {
    assert.ok(ERRORS.includes(String(stateless)), `JSON-RPC ${stateless} missing`);
  }
  assert.match(README, /\]\(docs\/errors\.md\)/);
});

Deno.test("every command of COMMAND_INFO is in docs/cli.md's command list", () => {
  assert.ok(CLI.startsWith("# The `memo` command\n"), "docs/cli.md has another title");
  const block = CLI.slice(0, CLI.indexOf("```", CLI.indexOf("```") + 3));
  for (const name of Object.keys(COMMAND_INFO)) {
    assert.match(block, new RegExp(`^memo ${name}\\b`, "m"), `memo ${name} not in docs/cli.md`);
  }
  assert.match(block, /^memo forget ID \| memo forget --source PREFIX \[--yes\]$/m);
});

Deno.test("the README keeps its two commands", () => {
  assert.match(README, /^## Two commands$/m);
  assert.ok(README.includes("npx -y deno@2.9.6 task start"));
  assert.ok(README.includes("npx -y deno@2.9.6 task test"));
});

Deno.test("every relative link in README.md and docs/*.md points at a file that exists", () => {
  const pages = [
    join(ROOT, "README.md"),
    ...readdirSync(join(ROOT, "docs")).filter((n) => n.endsWith(".md")).map((n) =>
      join(ROOT, "docs", n)
    ),
  ];
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    for (const target of relativeLinks(read(page))) {
      if (target === "") continue;
      checked++;
      const path = join(dirname(page), target);
      if (!existsSync(path) || !(statSync(path).isFile() || statSync(path).isDirectory())) {
        broken.push(`${relative(ROOT, page)} → ${target}`);
      }
    }
  }
  assert.ok(checked >= 20, `only ${checked} links checked`);
  assert.deepEqual(broken, [], `broken links:\n${broken.join("\n")}`);
});

Deno.test("relativeLinks() skips code, absolute URLs and fragments", () => {
  assert.deepEqual(
    relativeLinks(
      "[a](docs/x.md#y) [b](https://e.org) [c](#top) `[d](no.md)`\n```\n[e](no.md)\n```\n[f](../g.md)",
    ),
    ["docs/x.md", "../g.md"],
  );
});
