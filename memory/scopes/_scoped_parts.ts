/**
 * Internal: what `ScopedMemoryStore` does to the notes and tokens of its scopes' stores: the
 * `scope` tag of notes, the token of a change feed over several stores, and the snapshot of them
 * all.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Note, NoteDraft } from "../notes/note.ts";
import type { MemoryStore } from "../store/store.ts";
import type { Scope } from "./scopes.ts";

/**
 * `note` as `scope` holds it: a project note carries no `scope`, another scope's note does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tag } from "./_scoped_parts.ts";
 * const note = { id: "n1", title: "t", body: "b", labels: [], hash: "h", created: "", updated: "" };
 * assert.equal(tag(note, "user")?.scope, "user");
 * assert.equal(tag({ ...note, scope: "user" }, "project")?.scope, undefined);
 * ```
 */
export function tag(note: Note | undefined, scope: Scope): Note | undefined {
  if (!note) return note;
  if (scope === "project") {
    if (note.scope === undefined) return note;
    const { scope: _s, ...rest } = note;
    return rest;
  }
  return note.scope === scope ? note : { ...note, scope };
}

/**
 * {@linkcode tag} of every note (the project's notes as they are).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tagAll } from "./_scoped_parts.ts";
 * const notes = [{ id: "n1", title: "t", body: "b", labels: [], hash: "h", created: "", updated: "" }];
 * assert.equal(tagAll(notes, "project"), notes);
 * assert.equal(tagAll(notes, "local")[0].scope, "local");
 * ```
 */
export function tagAll(notes: readonly Note[], scope: Scope): Note[] {
  return scope === "project" ? notes as Note[] : notes.map((n) => tag(n, scope)!);
}

/**
 * A draft without its `scope` (what a scope's own store is given).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutScope } from "./_scoped_parts.ts";
 * assert.deepEqual(withoutScope({ text: "x", scope: "user" }), { text: "x" });
 * ```
 */
export function withoutScope(draft: NoteDraft): NoteDraft {
  const { scope: _s, ...rest } = draft;
  return rest;
}

/** The notes, each id once (its first note). */
function dedupe(notes: Note[]): Note[] {
  const seen = new Set<string>();
  return notes.filter((n) => !seen.has(n.id) && (seen.add(n.id), true));
}

/**
 * The entries of `record` named by `keys` (those it has).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pick } from "./_scoped_parts.ts";
 * assert.deepEqual(pick({ a: 1, b: 2 }, ["b", "c"]), { b: 2 });
 * ```
 */
export function pick<T>(
  record: Readonly<Record<string, T>>,
  keys: readonly string[],
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of keys) if (Object.hasOwn(record, k)) out[k] = record[k];
  return out;
}

/**
 * The change token of several stores: each scope's own token. {@linkcode parseToken} reads it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeToken, parseToken } from "./_scoped_parts.ts";
 * const token = encodeToken({ project: "7", user: "2" });
 * assert.deepEqual(parseToken(token, ["project", "user"]), { project: "7", user: "2" });
 * assert.equal(parseToken(token, ["project", "local"]), undefined); // another set of scopes
 * assert.equal(parseToken("garbage", ["project"]), undefined);
 * ```
 */
export function encodeToken(tokens: Record<string, string>): string {
  return JSON.stringify(tokens);
}

/** Each scope's token of {@linkcode encodeToken}; undefined when it is not one for `scopes`. */
export function parseToken(
  token: string | undefined,
  scopes: readonly Scope[],
): Partial<Record<Scope, string>> | undefined {
  if (token === undefined) return undefined;
  try {
    const parsed = JSON.parse(token);
    if (!parsed || typeof parsed !== "object") return undefined;
    for (const s of scopes) if (typeof parsed[s] !== "string") return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

/**
 * The snapshot of every scope's store (`ScopedMemoryStore.snapshot`): their notes, tagged, and one
 * SHA-256 over them; the project's own file's SHA-256 while it alone holds notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "../store/file_store.ts";
 * import { scopedSnapshot } from "./_scoped_parts.ts";
 * const dir = await Deno.makeTempDir();
 * const project = new FileMemoryStore({ rootDir: dir });
 * await project.commit({ notes: [{ text: "hello" }] });
 * const one = await scopedSnapshot(["project"], { project });
 * assert.equal(one.sha256, (await project.snapshot()).sha256);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function scopedSnapshot(
  scopes: readonly Scope[],
  stores: Partial<Record<Scope, MemoryStore>>,
): Promise<{ sha256: string; notes: Note[] }> {
  const hash = createHash("sha256");
  const notes: Note[] = [];
  let projectSha: string | undefined;
  for (const scope of scopes) {
    const store = stores[scope]! as MemoryStore & {
      snapshot?: () => Promise<{ sha256: string; notes: Note[] }>;
    };
    if (store.snapshot) {
      const one = await store.snapshot();
      if (scope === "project") projectSha = one.sha256;
      hash.update(`${scope}:${one.sha256}\n`);
      notes.push(...tagAll(one.notes, scope));
    } else {
      const all = (await store.changesSince(undefined)).upserted;
      hash.update(`${scope}:${all.map((n) => `${n.id}/${n.hash}`).join(",")}\n`);
      notes.push(...tagAll(all, scope));
    }
  }
  // While the project alone holds notes, the plan's guard is notes.md's own SHA-256 (what
  // `memo tidy` checks its diff against).
  if (projectSha !== undefined && notes.every((n) => n.scope === undefined)) {
    return { sha256: projectSha, notes };
  }
  return { sha256: hash.digest("hex"), notes: dedupe(notes) };
}
