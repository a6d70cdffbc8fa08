/**
 * The `memory_stats` tool: the counts and state of the memory as a whole
 * (notes per label and source, runtime, recall engine, embedding coverage,
 * damaged sections, the secrets guard, replication (the project's and the user scope's), and the notes per scope with where a note
 * goes by default, when the runtime serves scopes).
 *
 * @module
 */

import { z } from "zod";
import { output } from "./schemas.ts";
import { defineTool, READ, type Tool } from "./_tool_kit.ts";

/** The state of one replication (the project's or the user scope's). */
const replicaSchema = z.looseObject({
  outbox: z.number().int().describe("Local changes not yet in the cloud."),
  lastPush: z.string().nullable().describe("Time of the last successful push, or null."),
  lastPull: z.string().nullable().describe("Time of the last successful pull, or null."),
  lagMs: z.number().nullable().describe(
    "Milliseconds since the last successful pull; null before the first.",
  ),
  conflicts: z.number().int().describe("Conflicts resolved on this machine."),
  error: z.string().optional().describe(
    "The last replication failure; absent after a success.",
  ),
});

/**
 * `memory_stats`: a read-only tool over `MemoMcpRuntime.stats`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryStats } from "./_stats_tool.ts";
 *
 * assert.equal(memoryStats.name, "memory_stats");
 * assert.equal(memoryStats.write, false);
 * ```
 */
export const memoryStats: Tool = defineTool({
  name: "memory_stats",
  title: "Memory stats",
  description:
    "Count the notes in memory, per label, per source and (when more than the project is served) per scope, with the time of the last change, the runtime (local, hybrid or cloud), the recall engine in use (and what auto resolves to), the embedding coverage (model, state, notes embedded of all), any damaged sections of notes.md, the secrets guard (its policy, and how many secrets stored notes hold), the clients' hooks (on or off, last run), and (hybrid runtime) the replication state.",
  write: false,
  annotations: READ,
  input: () => z.strictObject({}),
  output: output({
    notes: z.number().int(),
    scopes: z.looseObject({
      user: z.number().int().optional(),
      project: z.number().int().optional(),
      local: z.number().int().optional(),
    }).optional().describe(
      "Notes per scope served (user: the person's, project: the team's, local: this checkout's); absent when the runtime serves the project alone without saying so.",
    ),
    defaultScope: z.enum(["user", "project", "local"]).optional().describe(
      "Where remember writes a note that names no scope; present with scopes.",
    ),
    labels: z.record(z.string(), z.number().int()).describe("Notes per label."),
    sources: z.record(z.string(), z.number().int()).describe("Notes per source kind."),
    lastUpdated: z.string().optional(),
    runtime: z.enum(["local", "hybrid", "cloud"]).describe(
      "Where the notes live: local (this machine), hybrid (local, replicated to the cloud), cloud.",
    ),
    engine: z.looseObject({
      default: z.string(),
      auto: z.string(),
      reason: z.string().optional().describe("Why auto is lexical now, when it is."),
    }).describe("The default recall engine, and what auto resolves to now."),
    embeddings: z.looseObject({
      model: z.string().describe("The embedding model."),
      ready: z.boolean().describe("Whether the model is loaded."),
      embedded: z.number().int().describe("Notes embedded for this model."),
      total: z.number().int().describe("Notes in all."),
      state: z.enum(["off", "idle", "loading", "ready", "failed"]).describe(
        "off: local embeddings are off (or the cloud runtime); idle: not loaded yet; loading; ready; failed (see error).",
      ),
      error: z.string().optional().describe("Why the model failed to load."),
      reason: z.string().optional().describe(
        "Why the model is not loaded (state idle or off), such as: auto uses lexical with use-lite; the model loads at the first vector or hybrid recall.",
      ),
    }).optional().describe("Embedding coverage of the vector, hybrid and auto engines."),
    issues: z.array(
      z.looseObject({
        kind: z.string(),
        message: z.string(),
        line: z.number().int().optional(),
      }),
    ).optional().describe(
      "Problems found in notes.md: damaged sections kept as written, duplicate ids, a torn tail cut, a stale lock recovered.",
    ),
    replica: replicaSchema.optional().describe("Replication state (hybrid runtime only)."),
    userReplica: replicaSchema.optional().describe(
      "The user scope's replication state, when $MEMO_HOME/config.json gives the user store a hybrid runtime of its own (a cloud project separate from the team's); replica stays the project's.",
    ),
    hooks: z.record(
      z.string(),
      z.looseObject({
        on: z.boolean().describe("Whether memo init --hooks turned this client's hooks on."),
        file: z.string().optional().describe("The client's hook file."),
        lastRun: z.record(z.string(), z.string()).optional().describe(
          "The last run of each event (session-start, prompt).",
        ),
      }),
    ).optional().describe(
      "The clients' hooks (memo hook): whether they are on, and when each last ran.",
    ),
    secrets: z.looseObject({
      policy: z.enum(["redact", "refuse", "allow"]).describe(
        "What a write does with a detected secret: redact it, refuse the write, or allow (the guard is off).",
      ),
      findings: z.number().int().optional().describe(
        "Secrets the stored notes hold (hand edits, or notes written before the guard): memo scan lists them, memo scan --redact removes them.",
      ),
    }).optional().describe("The secrets guard."),
  }, ["notes", "labels", "sources", "runtime", "engine"]),
  async run(_a, ctx) {
    const stats = await ctx.runtime.stats({ signal: ctx.signal });
    const structured: Record<string, unknown> = { ...stats, runtime: ctx.runtime.kind };
    if (stats.scopes) {
      const profile = await ctx.runtime.recallProfile?.({ signal: ctx.signal });
      if (profile?.scopes) structured.defaultScope = profile.scopes.defaultScope;
    }
    return { structured };
  },
});
