/**
 * Resources: `memo://stats`, the template `memo://notes/{id}`, the paged
 * `resources/list` (stats first, then the notes) and `resources/read`.
 *
 * @module
 */

import type { MemoMcpRuntime, Note } from "../../runtimes/types.ts";
import { McpNotFoundError, McpValidationError } from "../errors.ts";

/**
 * URI of the stats resource.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { readResource, STATS_URI } from "./resources.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { contents } = await readResource(runtime, STATS_URI, new AbortController().signal);
 * assert.equal(contents[0].mimeType, "application/json");
 * assert.equal(JSON.parse(contents[0].text as string).notes, 0);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const STATS_URI = "memo://stats";
/**
 * URI template of a note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTE_TEMPLATE, noteUri } from "./resources.ts";
 *
 * assert.equal(NOTE_TEMPLATE.replace("{id}", "x1"), noteUri("x1"));
 * ```
 */
export const NOTE_TEMPLATE = "memo://notes/{id}";
const NOTE_PREFIX = "memo://notes/";
const CURSOR_PREFIX = "n.";

/**
 * The `resources/templates/list` entries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTE_TEMPLATE, TEMPLATES } from "./resources.ts";
 *
 * assert.deepEqual(TEMPLATES.map((t) => t.uriTemplate), [NOTE_TEMPLATE]);
 * ```
 */
export const TEMPLATES: readonly Record<string, unknown>[] = [{
  uriTemplate: NOTE_TEMPLATE,
  name: "note",
  title: "Note",
  description: "One note of the project's memory, as markdown. Complete {id} to find ids.",
  mimeType: "text/markdown",
}];

const STATS_ENTRY = {
  uri: STATS_URI,
  name: "stats",
  title: "Memory stats",
  description: "Counts of notes, labels and sources, as JSON.",
  mimeType: "application/json",
};

/**
 * The URI of a note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteUri } from "./resources.ts";
 *
 * assert.equal(noteUri("01jq3v7k9x"), "memo://notes/01jq3v7k9x");
 * assert.equal(noteUri("a/b"), "memo://notes/a%2Fb");
 * ```
 */
export function noteUri(id: string): string {
  return NOTE_PREFIX + encodeURIComponent(id);
}

/**
 * The note id in a `memo://notes/{id}` URI, or undefined for any other URI.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteIdOf } from "./resources.ts";
 *
 * assert.equal(noteIdOf("memo://notes/a%2Fb"), "a/b");
 * assert.equal(noteIdOf("memo://stats"), undefined);
 * assert.equal(noteIdOf("memo://notes/x1/extra"), undefined);
 * ```
 */
export function noteIdOf(uri: string): string | undefined {
  if (!uri.startsWith(NOTE_PREFIX)) return undefined;
  const raw = uri.slice(NOTE_PREFIX.length);
  if (!raw || raw.includes("/") || raw.includes("?") || raw.includes("#")) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * A `resources/list` entry for a note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteEntry } from "./resources.ts";
 *
 * const note = {
 *   id: "01jq3v7k9x0000000000",
 *   title: "Deploys",
 *   body: "Run make deploy.",
 *   labels: ["infra"],
 *   hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-02T00:00:00.000Z",
 * };
 * assert.deepEqual(noteEntry(note), {
 *   uri: "memo://notes/01jq3v7k9x0000000000",
 *   name: "Deploys",
 *   title: "Deploys",
 *   mimeType: "text/markdown",
 *   description: "labels: infra; updated: 2025-01-02T00:00:00.000Z",
 * });
 * ```
 */
export function noteEntry(note: Note): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    uri: noteUri(note.id),
    name: note.title || note.id,
    title: note.title || note.id,
    mimeType: "text/markdown",
  };
  const facts = [];
  if (note.labels.length) facts.push(`labels: ${note.labels.join(", ")}`);
  if (note.source) facts.push(`source: ${note.source}`);
  facts.push(`updated: ${note.updated}`);
  entry.description = facts.join("; ");
  return entry;
}

/**
 * One page of `resources/list`: the first page holds `memo://stats` and then
 * notes; every page holds `pageSize` entries at most.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { listResources } from "./resources.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "First note" });
 * await runtime.remember({ text: "Second note" });
 * const signal = new AbortController().signal;
 * const first = await listResources(runtime, undefined, 2, signal);
 * assert.deepEqual(first.resources.map((r) => r.name), ["stats", "First note"]);
 * const second = await listResources(runtime, first.nextCursor, 2, signal);
 * assert.deepEqual(second.resources.map((r) => r.name), ["Second note"]);
 * assert.equal(second.nextCursor, undefined);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function listResources(
  runtime: MemoMcpRuntime,
  cursor: string | undefined,
  pageSize: number,
  signal: AbortSignal,
): Promise<{ resources: Record<string, unknown>[]; nextCursor?: string }> {
  const resources: Record<string, unknown>[] = [];
  let inner: string | undefined;
  if (cursor === undefined) {
    resources.push(STATS_ENTRY);
  } else {
    if (!cursor.startsWith(CURSOR_PREFIX)) {
      throw new McpValidationError("Cannot list resources: invalid cursor");
    }
    inner = cursor.slice(CURSOR_PREFIX.length) || undefined;
  }
  const room = pageSize - resources.length;
  if (room === 0) return { resources, nextCursor: CURSOR_PREFIX };
  let page;
  try {
    page = await runtime.list({ cursor: inner, limit: room, signal });
  } catch (e) {
    if (e instanceof McpValidationError) {
      throw new McpValidationError("Cannot list resources: invalid cursor");
    }
    throw e;
  }
  for (const note of page.notes) resources.push(noteEntry(note));
  const result: { resources: Record<string, unknown>[]; nextCursor?: string } = { resources };
  if (page.nextCursor !== undefined) result.nextCursor = CURSOR_PREFIX + page.nextCursor;
  return result;
}

/**
 * `resources/read`: the stats as JSON, or one note as markdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, McpNotFoundError } from "@memo/mcp-server";
 * import { noteUri, readResource } from "./resources.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * const signal = new AbortController().signal;
 * const { contents } = await readResource(runtime, noteUri(note.id), signal);
 * assert.equal(contents[0].mimeType, "text/markdown");
 * assert.ok((contents[0].text as string).startsWith("# Deploys run with make deploy\n"));
 * await assert.rejects(readResource(runtime, "memo://nothing", signal), McpNotFoundError);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function readResource(
  runtime: MemoMcpRuntime,
  uri: string,
  signal: AbortSignal,
): Promise<{ contents: Record<string, unknown>[] }> {
  if (uri === STATS_URI) {
    const stats = await runtime.stats({ signal });
    return {
      contents: [{ uri, mimeType: "application/json", text: JSON.stringify(stats, null, 2) }],
    };
  }
  const id = noteIdOf(uri);
  const notFound = () =>
    new McpNotFoundError(`Cannot read resource ${uri.slice(0, 300)}: not found`, {
      details: { kind: "resource", uri: uri.slice(0, 300) },
    });
  if (id === undefined) throw notFound();
  let note: Note;
  try {
    note = await runtime.get(id, { signal });
  } catch (e) {
    if (e instanceof McpNotFoundError || e instanceof McpValidationError) throw notFound();
    throw e;
  }
  // Loaded at the first read, so that a start loads nothing of the memory package.
  const { formatNote } = await import("@memo/memory/format");
  return {
    contents: [{ uri, mimeType: "text/markdown", text: formatNote(note, { link: noteUri }) }],
  };
}
