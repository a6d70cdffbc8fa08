/**
 * Resources: `memo://stats`, the template `memo://notes/{id}`, the paged
 * `resources/list` (stats first, then the notes) and `resources/read`.
 *
 * @module
 */

import type { MemoMcpRuntime, Note } from "../runtimes/types.ts";
import { McpNotFoundError, McpValidationError } from "./errors.ts";

/** URI of the stats resource. */
export const STATS_URI = "memo://stats";
/** URI template of a note. */
export const NOTE_TEMPLATE = "memo://notes/{id}";
const NOTE_PREFIX = "memo://notes/";
const CURSOR_PREFIX = "n.";

/** The `resources/templates/list` entries. */
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

/** The URI of a note. */
export function noteUri(id: string): string {
  return NOTE_PREFIX + encodeURIComponent(id);
}

/** The note id in a `memo://notes/{id}` URI, or undefined for any other URI. */
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

/** A `resources/list` entry for a note. */
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

/** A note as the markdown a resource read returns. */
export function renderNote(note: Note): string {
  const meta = [`id: ${note.id}`];
  if (note.labels.length) meta.push(`labels: ${note.labels.join(", ")}`);
  if (note.source) meta.push(`source: ${note.source}`);
  meta.push(`updated: ${note.updated}`);
  const body = note.body.endsWith("\n") ? note.body : note.body + "\n";
  return `# ${note.title}\n\n${meta.join(" · ")}\n\n${body}`;
}

/**
 * One page of `resources/list`: the first page holds `memo://stats` and then
 * notes; every page holds `pageSize` entries at most.
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

/** `resources/read`: the stats as JSON, or one note as markdown. */
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
  return { contents: [{ uri, mimeType: "text/markdown", text: renderNote(note) }] };
}
