/**
 * Internal: what the `Memo` client does for secrets, kept out of `memo.ts`: the count of stored
 * findings its stats report (cached by note content, so a stats call scans only what changed),
 * and `memo scan` over its notes, with `--redact`'s one atomic rewrite and the cleaning of the
 * caches computed from the old text (embedding vectors, the lexical index snapshot).
 *
 * @module
 */

import { readFile, rm } from "node:fs/promises";
import { embeddingKey, embeddingText } from "../embed/types.ts";
import { indexCachePath } from "../store/index_cache.ts";
import type { Note } from "../notes/note.ts";
import {
  findStoredSecrets,
  noteMayHoldSecret,
  redactStoredNote,
  scanNotesText,
  type SecretFinding,
} from "./store_scan.ts";

/**
 * Counts the secrets in stored notes, remembering the count of each note's content.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FindingCounter } from "./memo_secrets.ts";
 * const counter = new FindingCounter();
 * const note = { id: "a", title: "t", body: "glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: [], hash: "h1", created: "", updated: "" };
 * assert.equal(await counter.count([note]), 1);
 * assert.equal(await counter.count([{ ...note, body: "clean", hash: "h2" }]), 0);
 * ```
 */
export class FindingCounter {
  // Keyed by the note object: the client's mirror replaces a note's object when it changes,
  // and what is no longer stored is collected with it.
  #counts = new WeakMap<Note, number>();

  async count(notes: Iterable<Note>): Promise<number> {
    let total = 0;
    for (const note of notes) {
      let n = this.#counts.get(note);
      if (n === undefined) {
        n = noteMayHoldSecret(note) ? (await findStoredSecrets([note])).length : 0;
        this.#counts.set(note, n);
      }
      total += n;
    }
    return total;
  }
}

/**
 * What `memo scan` found in the stored notes, and, with `--redact`, what it changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SecretScanResult } from "@memo/memory";
 * const result: SecretScanResult = { notes: 10, findings: [], redacted: [] };
 * assert.equal(result.findings.length, 0);
 * ```
 */
export interface SecretScanResult {
  /** Notes scanned. */
  notes: number;
  /** Each finding (before any redaction), in file order. */
  findings: SecretFinding[];
  /** Ids of the notes rewritten (only with `redact`). */
  redacted: string[];
  /**
   * With `redact`, the findings it could not rewrite, left as they are: a section of `notes.md`
   * that is no note (a damaged marker; its `id` is empty), or a note's `source` where the runtime
   * cannot change it (the cloud). Absent when there are none.
   */
  unredacted?: SecretFinding[];
}

/** What {@linkcode scanStoredNotes} works on. */
export interface StoreScanTarget {
  /** The notes, in store order. */
  notes: readonly Note[];
  /**
   * `notes.md`, when the project's notes come from it (their findings then carry its line
   * numbers; notes of other scopes, which carry `scope`, are scanned as notes).
   */
  notesPath?: string;
  /** The project root whose caches are cleaned after a redaction (none: no cache files). */
  cacheRoot?: string;
  /**
   * The cache folders of the other scopes (`.memo/cache/local/`, `$MEMO_HOME/cache/`), whose
   * embedding caches are cleaned too.
   * @default none
   */
  scopeCaches?: readonly string[];
  /** Writes the redacted notes verbatim, in one atomic step. */
  apply(put: Note[]): Promise<void>;
  /** The time a redaction records. */
  now(): Date;
}

/**
 * Scans stored notes; with `redact`, rewrites every note holding a secret in one atomic step,
 * then drops the embedding vectors of their old text and the lexical index snapshot.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scanStoredNotes } from "./memo_secrets.ts";
 * const note = { id: "a", title: "t", body: "glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: [], hash: "", created: "", updated: "" };
 * const written: string[] = [];
 * const result = await scanStoredNotes(
 *   { notes: [note], apply: async (put) => void written.push(...put.map((n) => n.body)), now: () => new Date(0) },
 *   true,
 * );
 * assert.deepEqual(result.findings, [{ id: "a", rule: "gitlab-token", field: "text", line: 1 }]);
 * assert.deepEqual(written, ["[redacted:gitlab-token]"]);
 * ```
 */
export async function scanStoredNotes(
  target: StoreScanTarget,
  redact: boolean,
): Promise<SecretScanResult> {
  let findings: SecretFinding[];
  if (target.notesPath) {
    let text = "";
    try {
      text = await readFile(target.notesPath, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
    }
    findings = await scanNotesText(text);
    // The notes of other scopes (tagged with theirs) live in other files: scanned as notes.
    const others = target.notes.filter((n) => n.scope !== undefined && n.scope !== "project");
    if (others.length) findings.push(...await findStoredSecrets(others));
  } else {
    findings = await findStoredSecrets(target.notes);
  }
  const result: SecretScanResult = { notes: target.notes.length, findings, redacted: [] };
  if (!redact || !findings.length) return result;
  // A damaged section is no note: nothing here can rewrite it.
  const damaged = findings.filter((f) => f.id === "");
  if (damaged.length) result.unredacted = damaged;
  const now = target.now();
  const put: Note[] = [];
  const old = new Set<string>();
  for (const note of target.notes) {
    const clean = await redactStoredNote(note, now);
    if (!clean) continue;
    put.push(clean);
    old.add(embeddingKey(embeddingText(note)));
  }
  if (!put.length) return result;
  await target.apply(put);
  result.redacted = put.map((n) => n.id);
  if (target.cacheRoot !== undefined || target.scopeCaches?.length) {
    // Loaded here: the embedding cache's file format is no part of a client's start.
    const { purgeEmbeddings, purgeEmbeddingsIn } = await import("./_embedding_purge.ts");
    // A text may be cached in every scope that held it: each scope's cache is cleaned.
    for (const dir of target.scopeCaches ?? []) await purgeEmbeddingsIn(dir, old);
    if (target.cacheRoot !== undefined) {
      await purgeEmbeddings(target.cacheRoot, old);
      await rm(indexCachePath(target.cacheRoot), { force: true });
    }
  }
  return result;
}
