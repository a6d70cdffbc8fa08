/**
 * The subcommands that mirror the memory tools: remember, recall, get, list,
 * update, forget (from `_forget.ts`) and stats (and `embed`, from `embed.ts`;
 * `correct` and `supersede` from `history_commands.ts`).
 *
 * @module
 */

import {
  isMemoRuntimeError,
  recallDetailedOf,
  type RecallEngine,
  type RecallResult,
  RUNTIME_RECALL_ENGINES,
  type SecretRedaction,
} from "../../runtimes/mod.ts";
import {
  boolFlag,
  choiceFlag,
  intFlag,
  labelsFlag,
  listFlag,
  parseArgs,
  type ParsedArgs,
  positionals,
  stringFlag,
  UsageError,
} from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand } from "../context.ts";
import { formatHits, formatNoteLine, formatReplicaStatus, jsonDocument } from "../output.ts";
import { withProjectRuntime } from "../runtime.ts";
import { formatRedacted } from "../secrets.ts";
import { shellWord } from "../git/wiring.ts";
import { embed, embedMissing, embedProgress, formatEmbeddings } from "./embed.ts";
import { readText } from "./_read_text.ts";
import { forget } from "./_forget.ts";
import {
  formatSimilar,
  HISTORY_FLAGS,
  historyArgs,
  historyFlags,
  validityFlags,
} from "./history_commands.ts";

const COMMON = { string: ["dir"], boolean: ["json"] } as const;

/** Hits of `memo recall` without `--limit`, as the recall tool. */
const RECALL_LIMIT = 10;
/** Notes of `memo list` without `--limit`, as the list_notes tool. */
const LIST_LIMIT = 25;

function engineFlag(p: ParsedArgs): RecallEngine | undefined {
  return choiceFlag(p, "engine", RUNTIME_RECALL_ENGINES as readonly RecallEngine[]);
}

const SCOPE_NAMES = ["user", "project", "local"] as const;

/** `--scope` of a write: one scope, or nothing (the configured default). */
function scopeFlag(p: ParsedArgs): { scope?: (typeof SCOPE_NAMES)[number] } {
  const scope = choiceFlag(p, "scope", SCOPE_NAMES);
  return scope === undefined ? {} : { scope };
}

/** `--scope` of a read, which may repeat: the scopes to read (every one when absent). */
function scopesFlag(p: ParsedArgs): { scope?: (typeof SCOPE_NAMES)[number][] } {
  const scopes = listFlag(p, "scope");
  for (const s of scopes) {
    if (!(SCOPE_NAMES as readonly string[]).includes(s)) {
      throw new UsageError(`flag --scope must be user, project or local, got ${s}`);
    }
  }
  return scopes.length ? { scope: scopes as (typeof SCOPE_NAMES)[number][] } : {};
}

/** `--order` of `memo list`: oldest (store order) or newest first. */
function orderFlag(p: ParsedArgs): "oldest" | "newest" | undefined {
  return choiceFlag(p, "order", ["oldest", "newest"] as const);
}

const remember: CliCommand = {
  ...COMMAND_INFO.remember,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: [
        ...COMMON.string,
        "title",
        "source",
        "file",
        "valid-from",
        "valid-until",
        "secrets",
        "scope",
      ],
      multiple: ["label", "supersedes"],
      boolean: COMMON.boolean,
    });
    const [arg] = p.positional.length <= 1 ? p.positional : positionals(p, ["text"]);
    const text = await readText(p, io, arg);
    if (text === undefined) throw new UsageError("missing text");
    if (text.trim() === "") throw new UsageError("text is empty");
    const supersedes = listFlag(p, "supersedes");
    const { validFrom, validUntil } = validityFlags(p, false);
    const result = await withProjectRuntime(p, io, (runtime) =>
      runtime.remember({
        text,
        title: stringFlag(p, "title"),
        labels: labelsFlag(p),
        source: stringFlag(p, "source"),
        ...scopeFlag(p),
        ...(supersedes.length ? { supersedes } : {}),
        ...(validFrom ? { validFrom } : {}),
        ...(validUntil ? { validUntil } : {}),
      }));
    if (boolFlag(p, "json")) {
      await io.stdout(jsonDocument({ ...result, similar: result.similar ?? [] }));
    } else {
      await io.stdout(
        `${result.status} ${result.note.id}  ${result.note.title}\n` +
          formatSimilar(result.similar ?? []) + formatRedacted(result.redacted),
      );
    }
    return 0;
  },
};

/**
 * The line `memo recall` prints under the hits: the engine that ran and,
 * when some notes are known, how many are embedded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatRecallEngine } from "./memory_commands.ts";
 *
 * assert.equal(
 *   formatRecallEngine({ hits: [], engine: "hybrid", coverage: { embedded: 120, total: 400 } }),
 *   "engine: hybrid, 120/400 notes embedded\n",
 * );
 * assert.equal(
 *   formatRecallEngine({ hits: [], engine: "lexical", coverage: { embedded: 0, total: 0 } }),
 *   "engine: lexical\n",
 * );
 * ```
 */
export function formatRecallEngine(result: RecallResult): string {
  const { embedded, total } = result.coverage;
  const coverage = total > 0 ? `, ${embedded}/${total} notes embedded` : "";
  return `engine: ${result.engine}${coverage}\n`;
}

const recall: CliCommand = {
  ...COMMAND_INFO.recall,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: [...COMMON.string, "limit", "engine", "source", ...HISTORY_FLAGS.string],
      multiple: ["label", "scope"],
      boolean: [...COMMON.boolean, "explain", ...HISTORY_FLAGS.boolean],
    });
    const history = historyFlags(p);
    const [query] = positionals(p, ["query"]);
    if (query.trim() === "") throw new UsageError("query is empty");
    const limit = intFlag(p, "limit", 1, 1000) ?? RECALL_LIMIT;
    const engine = engineFlag(p);
    // vector and hybrid rank only embedded notes: embed what is missing first.
    const embedFirst = engine === "vector" || engine === "hybrid";
    const progress = embedFirst ? embedProgress(io) : undefined;
    let result: RecallResult;
    try {
      result = await withProjectRuntime(p, io, async (runtime) => {
        if (embedFirst) {
          await embedMissing(runtime, progress?.onProgress).catch((e) => {
            // Embeddings off, or a model that cannot load: the recall says so in its own words.
            if (!isMemoRuntimeError(e, "CONFIG")) throw e;
          });
        }
        const options = {
          limit,
          engine,
          labels: labelsFlag(p),
          source: stringFlag(p, "source"),
          ...scopesFlag(p),
          explain: boolFlag(p, "explain"),
          ...history,
        };
        return await recallDetailedOf(runtime, query, options);
      }, { onModelProgress: progress?.onModelProgress });
    } finally {
      await progress?.end();
    }
    if (boolFlag(p, "json")) {
      const { hits, engine: ran, coverage } = result;
      await io.stdout(jsonDocument({ hits, engine: ran, coverage }));
    } else await io.stdout(formatHits(result.hits) + formatRecallEngine(result));
    return 0;
  },
};

const get: CliCommand = {
  ...COMMAND_INFO.get,
  async run(argv, io) {
    const p = parseArgs(argv, COMMON);
    const [id] = positionals(p, ["id"]);
    const note = await withProjectRuntime(p, io, (runtime) => runtime.get(id));
    const { formatNote } = await import("@memo/memory/format");
    await io.stdout(boolFlag(p, "json") ? jsonDocument(note) : formatNote(note));
    return 0;
  },
};

const list: CliCommand = {
  ...COMMAND_INFO.list,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: [...COMMON.string, "cursor", "limit", "source", "order", ...HISTORY_FLAGS.string],
      multiple: ["label", "scope"],
      boolean: [...COMMON.boolean, ...HISTORY_FLAGS.boolean],
    });
    positionals(p, []);
    const order = orderFlag(p);
    const history = historyFlags(p);
    const page = await withProjectRuntime(p, io, (runtime) =>
      runtime.list({
        cursor: stringFlag(p, "cursor"),
        limit: intFlag(p, "limit", 1, 1000) ?? LIST_LIMIT,
        labels: labelsFlag(p),
        source: stringFlag(p, "source"),
        ...scopesFlag(p),
        order,
        ...history,
      }));
    if (boolFlag(p, "json")) {
      await io.stdout(jsonDocument(page));
      return 0;
    }
    const lines = page.notes.map(formatNoteLine);
    if (!lines.length) lines.push("No notes.");
    if (page.nextCursor) {
      // The next page's command asks what this one asked (the cursor holds no filter).
      const limit = stringFlag(p, "limit");
      const source = stringFlag(p, "source");
      const flags = (order === "newest" ? " --order newest" : "") +
        (limit !== undefined ? ` --limit ${shellWord(limit)}` : "") +
        labelsFlag(p).map((l) => ` --label ${shellWord(l)}`).join("") +
        (source !== undefined ? ` --source ${shellWord(source)}` : "") +
        listFlag(p, "scope").map((s) => ` --scope ${s}`).join("") + historyArgs(history);
      lines.push(`more: memo list${flags} --cursor ${page.nextCursor}`);
    }
    await io.stdout(lines.join("\n") + "\n");
    return 0;
  },
};

const update: CliCommand = {
  ...COMMAND_INFO.update,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: [
        ...COMMON.string,
        "text",
        "title",
        "file",
        "valid-from",
        "valid-until",
        "secrets",
        "scope",
      ],
      multiple: ["label"],
      boolean: COMMON.boolean,
    });
    const [id] = positionals(p, ["id"]);
    const text = await readText(p, io, stringFlag(p, "text"));
    if (text !== undefined && text.trim() === "") throw new UsageError("text is empty");
    const labels = labelsFlag(p);
    const title = stringFlag(p, "title");
    const validity = validityFlags(p, true);
    const scope = scopeFlag(p);
    if (
      text === undefined && title === undefined && !labels.length &&
      !Object.keys(validity).length && !scope.scope
    ) {
      throw new UsageError(
        "nothing to change: give --text, --file, --title, --label, --valid-from, --valid-until " +
          "or --scope",
      );
    }
    let redacted: SecretRedaction[] = [];
    const note = await withProjectRuntime(
      p,
      io,
      (runtime) =>
        runtime.update(id, {
          text,
          title,
          labels: labels.length ? labels : undefined,
          ...validity,
          ...scope,
        }, {
          onRedacted: (r) => redacted = r,
        }),
    );
    if (boolFlag(p, "json")) {
      await io.stdout(jsonDocument(redacted.length ? { ...note, redacted } : note));
    } else await io.stdout(`updated ${note.id}  ${note.title}\n${formatRedacted(redacted)}`);
    return 0;
  },
};

const stats: CliCommand = {
  ...COMMAND_INFO.stats,
  async run(argv, io) {
    const p = parseArgs(argv, COMMON);
    positionals(p, []);
    const s = await withProjectRuntime(p, io, (runtime) => runtime.stats());
    if (boolFlag(p, "json")) {
      await io.stdout(jsonDocument(s));
      return 0;
    }
    const pairs = (r: Record<string, number>) =>
      Object.entries(r).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", ") ||
      "none";
    await io.stdout(
      [
        `notes: ${s.notes}`,
        `labels: ${pairs(s.labels)}`,
        `sources: ${pairs(s.sources)}`,
        `last updated: ${s.lastUpdated ?? "never"}`,
        `recall engine: ${s.engine.default} (auto uses ${s.engine.auto}${
          s.engine.reason ? `: ${s.engine.reason}` : ""
        })`,
        ...(s.embeddings ? [formatEmbeddings(s.embeddings)] : []),
        ...(s.secrets
          ? [
            `secrets: ${s.secrets.policy}${
              s.secrets.findings === undefined
                ? ""
                : `, ${s.secrets.findings} in stored notes${
                  s.secrets.findings ? " (memo scan --redact removes them)" : ""
                }`
            }`,
          ]
          : []),
        `issues: ${s.issues.length || "none"}`,
        ...s.issues.map((i) => `  ${i.line === undefined ? "" : `line ${i.line}: `}${i.message}`),
        ...(s.replica ? [formatReplicaStatus(s.replica)] : []),
        ...(s.userReplica ? [formatReplicaStatus(s.userReplica, "user replica")] : []),
      ].join("\n") + "\n",
    );
    return 0;
  },
};

/**
 * The memory subcommands, in help order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { memoryCommands } from "./memory_commands.ts";
 *
 * assert.deepEqual(memoryCommands.map((c) => c.name), [
 *   "remember",
 *   "recall",
 *   "get",
 *   "list",
 *   "update",
 *   "forget",
 *   "stats",
 *   "embed",
 * ]);
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * const [remember, , , list] = memoryCommands;
 * await remember.run(["Deploys run with make deploy", "--label", "infra"], io);
 * await list.run([], io);
 * assert.match(io.out[1], /^\S+ {2}Deploys run with make deploy \[infra\]\n/);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const memoryCommands: readonly CliCommand[] = [
  remember,
  recall,
  get,
  list,
  update,
  forget,
  stats,
  embed,
];
