/**
 * What `memo help` says about each subcommand: its name, one-line summary and
 * usage. Kept apart from the commands themselves so that the help and the
 * registry load nothing else; each command module spreads its entry.
 *
 * @module
 */

/**
 * The help entry of one subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COMMAND_INFO, type CommandInfo } from "./command_info.ts";
 *
 * const info: CommandInfo = COMMAND_INFO.get;
 * assert.deepEqual(info, { name: "get", summary: "Print one note", usage: "get ID" });
 * ```
 */
export interface CommandInfo {
  /** Name, as typed after `memo`. */
  readonly name: string;
  /** One-line summary for `memo help`. */
  readonly summary: string;
  /** Usage line(s), without the leading `memo `. */
  readonly usage: string;
}

/**
 * A subcommand name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COMMAND_INFO, type CommandName } from "./command_info.ts";
 *
 * const names = Object.keys(COMMAND_INFO) as CommandName[];
 * assert.equal(names.length, 24); // `help` is the CLI's own, not a command
 * assert.ok(names.includes("serve"));
 * ```
 */
export type CommandName =
  | "init"
  | "remember"
  | "recall"
  | "get"
  | "list"
  | "update"
  | "correct"
  | "supersede"
  | "forget"
  | "tidy"
  | "stats"
  | "import"
  | "export"
  | "embed"
  | "sync"
  | "replicate"
  | "merge-file"
  | "doctor"
  | "resolve"
  | "mcp"
  | "serve"
  | "cloud"
  | "scan"
  | "hook";

/**
 * The help entries, in the order `memo help` lists them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COMMAND_INFO } from "./command_info.ts";
 *
 * assert.equal(COMMAND_INFO.get.usage, "get ID");
 * assert.equal(Object.keys(COMMAND_INFO)[0], "init");
 * ```
 */
export const COMMAND_INFO: Readonly<Record<CommandName, CommandInfo>> = {
  init: {
    name: "init",
    summary:
      "Set up .memo/ here, and connect MCP clients (Claude Code, Cursor, VS Code, Claude Desktop)",
    usage: "init [--client claude-code|cursor|vscode|claude-desktop]... [--command CMD]\n" +
      "     [--hooks [--team] | --no-hooks] [--json]\n" +
      "     init --user   (creates MEMO_HOME, where the user scope lives)",
  },
  remember: {
    name: "remember",
    summary: "Store a note (text as argument, or --file F, - for stdin)",
    usage: 'remember "text" [--title T] [--label L]... [--source KEY] [--file F]\n' +
      "         [--supersedes ID]... [--valid-from DATE] [--valid-until DATE]\n" +
      "         [--scope user|project|local] [--secrets redact|refuse|allow] [--json]",
  },
  recall: {
    name: "recall",
    summary: "Find the notes that match a query",
    usage:
      'recall "query" [--limit N] [--engine auto|lexical|vector|hybrid] [--label L]... [--source S] [--explain]\n' +
      "       [--scope user|project|local]... [--as-of DATE] [--since DATE] [--until DATE] [--include-superseded]",
  },
  get: { name: "get", summary: "Print one note", usage: "get ID" },
  list: {
    name: "list",
    summary: "List notes, a page at a time",
    usage: "list [--order oldest|newest] [--cursor C] [--limit N] [--label L]... [--source S]\n" +
      "     [--scope user|project|local]... [--as-of DATE] [--since DATE] [--until DATE] [--include-superseded]",
  },
  update: {
    name: "update",
    summary: "Fix a note's wording: its text, title, labels or validity; or move it (--scope)",
    usage:
      "update ID [--text T | --file F] [--title T] [--label L]... [--scope user|project|local]\n" +
      "       [--valid-from DATE|none] [--valid-until DATE|none] [--secrets redact|refuse|allow]",
  },
  correct: {
    name: "correct",
    summary: "The fact changed: a new note supersedes the old one (kept as history)",
    usage: 'correct ID "new text" [--file F] [--title T] [--label L]... [--valid-from DATE]\n' +
      "        [--secrets redact|refuse|allow] [--json]",
  },
  supersede: {
    name: "supersede",
    summary: "Mark notes as superseded by another that says the same thing",
    usage: "supersede ID... --by ID [--json]",
  },
  forget: {
    name: "forget",
    summary: "Delete a note, or every note whose source starts with PREFIX",
    usage: "forget ID | forget --source PREFIX [--yes]",
  },
  tidy: {
    name: "tidy",
    summary:
      "Propose merging near-duplicates and list expired notes, as a diff of notes.md (writes nothing)",
    usage: "tidy [--json] | tidy --apply PLAN",
  },
  stats: {
    name: "stats",
    summary: "Count notes, labels and sources, with the embedding coverage",
    usage: "stats",
  },
  import: {
    name: "import",
    summary: "Bring memories in: server-memory JSONL, Claude Code memory, markdown, memo JSONL",
    usage:
      "import SOURCE [--from server-memory|claude|markdown|memo-jsonl] [--scope user|project|local] [--strict] [--secrets redact|refuse|allow] [--json]",
  },
  export: {
    name: "export",
    summary: "Write every note with its metadata (JSONL to stdout by default)",
    usage: "export [--format jsonl|md] [--out FILE]",
  },
  embed: {
    name: "embed",
    summary: "Embed the notes not embedded yet, now (for vector and hybrid recall)",
    usage: "embed [--json]",
  },
  sync: {
    name: "sync",
    summary: "Pull the configured connectors (GitHub Discussions, Notion pages) into notes",
    usage: "sync [--connector ID]... [--full] [--secrets redact|refuse|allow] [--json]",
  },
  replicate: {
    name: "replicate",
    summary: "Push local changes to the cloud and pull the others' now (hybrid runtime)",
    usage: "replicate [--json]",
  },
  "merge-file": {
    name: "merge-file",
    summary:
      "Merge three versions of notes.md note by note: the git merge driver (merge=memo, %O %A %B)",
    usage: "merge-file BASE OURS THEIRS",
  },
  doctor: {
    name: "doctor",
    summary:
      "Check the project: git wiring, an unresolved merge, damaged notes, dangling links, .gitignore",
    usage: "doctor [--json]",
  },
  resolve: {
    name: "resolve",
    summary: "End an unresolved git merge of notes.md: write the notes merged (then git add it)",
    usage: "resolve [--dir D] [--json]",
  },
  mcp: {
    name: "mcp",
    summary: "Serve memory over MCP on stdin/stdout (Claude, Cursor, VS Code …)",
    usage:
      "mcp [--dir D] [--read-only] [--secrets redact|refuse|allow] [--request-timeout-ms N] [--max-input-bytes N] [--max-output-bytes N] [--default-page-size N] [--max-page-size N] [--max-listen-streams N]",
  },
  serve: {
    name: "serve",
    summary:
      "Serve the MCP endpoint over HTTP (default http://127.0.0.1:8787/mcp) and the web page (on /)",
    usage:
      "serve [--host H] [--port P] [--dir D] [--read-only] [--allowed-origins A,B] [--no-auth]\n" +
      "      [--secrets redact|refuse|allow]\n" +
      "      [--ui-path PATH | --no-ui]\n" +
      "      [--oauth-issuer URL --oauth-resource URL] [--oauth-scopes READ,WRITE] [--oauth-jwks-uri URL]\n" +
      "      [--oauth-introspection-url URL --oauth-introspection-client-id ID] [--oauth-page-client-id ID]\n" +
      "      [--request-timeout-ms N] [--max-input-bytes N] [--max-output-bytes N]\n" +
      "      [--default-page-size N] [--max-page-size N] [--max-listen-streams N] [--json]",
  },
  scan: {
    name: "scan",
    summary: "Find secrets in the stored notes (notes.md, hand edits too); --redact replaces them",
    usage: "scan [--redact] [--json]",
  },
  hook: {
    name: "hook",
    summary:
      "Answer a client's hook: a brief at session start, the notes a prompt is about (memo init --hooks)",
    usage: "hook --client claude-code|cursor|vscode session-start|prompt [--dry-run]",
  },
  cloud: {
    name: "cloud",
    summary:
      "Run the reference Cloud API server (memo cloud serve; default http://127.0.0.1:8788/v1)",
    usage:
      "cloud serve [--host H] [--port P]\n      cloud purge-idempotency [--older-than-minutes N] [--json]",
  },
};
