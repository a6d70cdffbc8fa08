/**
 * The prompts: `recall_context` (the notes relevant to a topic), `capture_session` (store what was
 * learnt) and `review_memory` (find duplicate and stale notes).
 *
 * @module
 */

import type { MemoMcpRuntime, Note } from "../../runtimes/types.ts";
import { noteUri } from "./resources.ts";
import { scrubSecrets } from "../scrub.ts";

/**
 * A prompt name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PromptName, PROMPTS } from "./prompts.ts";
 *
 * const names = Object.keys(PROMPTS) as PromptName[];
 * assert.deepEqual(names, ["recall_context", "capture_session", "review_memory"]);
 * ```
 */
export type PromptName = "recall_context" | "capture_session" | "review_memory";

/**
 * What a prompt build gets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { type PromptContext, PROMPTS } from "./prompts.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const ctx: PromptContext = { runtime, signal: new AbortController().signal, maxPageSize: 100 };
 * const result = await PROMPTS.review_memory.build({}, ctx);
 * assert.equal(result.description, "Review of 0 notes");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface PromptContext {
  runtime: MemoMcpRuntime;
  /** Aborted on timeout or cancellation. */
  signal: AbortSignal;
  /** Largest page size (notes a prompt may embed). */
  maxPageSize: number;
}

/**
 * A `prompts/get` result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { type PromptResult, PROMPTS } from "./prompts.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const ctx = { runtime, signal: new AbortController().signal, maxPageSize: 100 };
 * const result: PromptResult = await PROMPTS.capture_session.build({ summary: "Moved CI" }, ctx);
 * assert.equal(result.messages.length, 1);
 * assert.equal(result.messages[0].role, "user");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface PromptResult {
  /** Description of this rendering. */
  description: string;
  messages: Record<string, unknown>[];
}

/**
 * Static facts about one prompt, and how to build it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PromptInfo, PROMPTS } from "./prompts.ts";
 *
 * const info: PromptInfo = PROMPTS.recall_context;
 * assert.equal(info.title, "Recall context");
 * assert.equal(typeof info.build, "function");
 * ```
 */
export interface PromptInfo {
  title: string;
  /** What the prompt is for. */
  description: string;
  /** Builds the messages from validated arguments. */
  build(args: Record<string, string | undefined>, ctx: PromptContext): Promise<PromptResult>;
}

const user = (text: string) => ({ role: "user", content: { type: "text", text } });

/**
 * Splits a comma-separated label list.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitLabels } from "./prompts.ts";
 *
 * assert.deepEqual(splitLabels(" infra, ,ci "), ["infra", "ci"]);
 * assert.deepEqual(splitLabels(undefined), []);
 * ```
 */
export function splitLabels(labels: string | undefined): string[] {
  return (labels ?? "").split(",").map((l) => l.trim()).filter((l) => l.length > 0);
}

function line(note: Note): string {
  const first = note.body.split("\n").find((l) => l.trim() !== "")?.trim().slice(0, 120) ?? "";
  const labels = note.labels.length ? ` [${note.labels.join(", ")}]` : "";
  return `- ${note.id} · ${note.title}${labels} · updated ${note.updated}\n  ${first}`;
}

/**
 * The prompts by name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { PROMPTS } from "./prompts.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * const ctx = { runtime, signal: new AbortController().signal, maxPageSize: 100 };
 * const { messages } = await PROMPTS.recall_context.build({ topic: "deploy" }, ctx);
 * assert.equal(messages.length, 2); // the instruction, then one note as a resource
 * assert.deepEqual(
 *   (messages[1].content as { resource: { uri: string } }).resource.uri,
 *   `memo://notes/${note.id}`,
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const PROMPTS: Readonly<Record<PromptName, PromptInfo>> = {
  recall_context: {
    title: "Recall context",
    description: "Bring the notes relevant to a topic into the conversation.",
    async build(args, ctx) {
      const topic = args.topic!;
      const hits = await ctx.runtime.recall(topic, {
        limit: Math.min(10, ctx.maxPageSize),
        signal: ctx.signal,
      });
      const messages: Record<string, unknown>[] = [];
      // What the prompt says back of the topic is masked like an error's text: no token echoed.
      const shown = scrubSecrets(topic);
      if (!hits.length) {
        messages.push(user(
          `memo holds no notes about "${shown}". Say so if it matters, and use the remember tool to store what we settle on.`,
        ));
      } else {
        const { formatNote } = await import("@memo/memory/format");
        messages.push(user(
          `Here ${
            hits.length === 1 ? "is the note" : `are the ${hits.length} notes`
          } from memo relevant to "${shown}", best first. Use them as context; cite a note's id when you rely on it, and fix wrong notes with update_note.`,
        ));
        for (const hit of hits) {
          messages.push({
            role: "user",
            content: {
              type: "resource",
              resource: {
                uri: noteUri(hit.note.id),
                mimeType: "text/markdown",
                text: formatNote(hit.note, { link: noteUri }),
              },
            },
          });
        }
      }
      return { description: `Notes from memo about "${shown.slice(0, 200)}"`, messages };
    },
  },
  capture_session: {
    title: "Capture session",
    description: "Guide the agent to store what it learnt in this session as notes.",
    build(args) {
      const summary = args.summary === undefined ? undefined : scrubSecrets(args.summary.trim());
      const text = [
        "Before we finish, store what is worth remembering from this session in memo.",
        "",
        "1. List the durable facts: decisions and their reasons, conventions, commands that work, pitfalls found, and open questions.",
        "2. For each one, call recall first; if a note already covers it, call update_note instead of storing a duplicate.",
        "3. Otherwise call remember with one self-contained note per fact: a clear first line (it becomes the title), enough context to be useful months from now, and labels such as the area or component.",
        "4. Leave out secrets, tokens, passwords and personal data.",
        "5. Finish with a short list of the notes you stored or changed.",
      ];
      if (summary) text.push("", "What happened in this session:", summary);
      return Promise.resolve({
        description: "Store what was learnt in this session",
        messages: [user(text.join("\n"))],
      });
    },
  },
  review_memory: {
    title: "Review memory",
    description: "Find duplicate, contradictory and stale notes, and propose fixes.",
    async build(args, ctx) {
      const labels = splitLabels(args.labels);
      const page = await ctx.runtime.list({
        limit: ctx.maxPageSize,
        labels: labels.length ? labels : undefined,
        signal: ctx.signal,
      });
      const scope = labels.length ? ` labelled ${scrubSecrets(labels.join(", "))}` : "";
      const shown = page.notes.length < page.total
        ? ` (the first ${page.notes.length} of ${page.total}; use list_notes for more)`
        : "";
      const text = page.notes.length
        ? [
          `Review the notes in memo${scope}${shown}:`,
          "",
          ...page.notes.map(line),
          "",
          "Find notes that duplicate each other, contradict each other, or look stale (old dates, superseded decisions). The tidy tool proposes near-duplicates to merge, lists pairs alike but for a fact they differ in (review: most likely a contradiction), and lists notes whose validUntil has passed. Read a note in full with get_note when its first line is not enough. Then propose, for each problem, one action: merge duplicates (supersede: keep one, the others become history), record a changed fact (correct: the new fact supersedes the old one), fix wording (update_note) or delete (forget). Ask before deleting anything.",
        ]
        : [`memo holds no notes${scope}. There is nothing to review.`];
      return {
        description: `Review of ${page.notes.length} note${
          page.notes.length === 1 ? "" : "s"
        }${scope}`,
        messages: [user(text.join("\n"))],
      };
    },
  },
};
