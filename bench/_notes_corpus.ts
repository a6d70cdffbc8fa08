/**
 * The synthetic notes of the scale benchmarks (`store_scale.ts`, `open_scale.ts`): about 1 KB
 * each, 100,000 of them make about 103 MB of notes.md.
 *
 * @module
 */

import { NOTES_PREAMBLE, serializeNote } from "../memory/store/codec.ts";
import { contentHash, type Note } from "../memory/notes/note.ts";
import { memoPaths } from "../memory/store/paths.ts";

/**
 * Writes `<rootDir>/.memo/memory/notes.md` with `count` notes of about 1 KB, from a seeded
 * vocabulary: the same file for the same count on every run. One note in ten holds non-ASCII
 * text, one in three a source key. Returns the file's size in bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "../memory/store/file_store.ts";
 * import { generateNotes } from "./_notes_corpus.ts";
 * const dir = await Deno.makeTempDir();
 * const bytes = await generateNotes(dir, 20);
 * assert.ok(bytes > 20_000);
 * assert.equal((await new FileMemoryStore({ rootDir: dir }).load()).notes, 20);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function generateNotes(rootDir: string, count: number): Promise<number> {
  const path = memoPaths(rootDir).notes;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = ("deploy staging database cache index token memory agent recall rate limit " +
    "retry backoff queue worker schema migration release branch review latency budget " +
    "incident postmortem owner runbook alert dashboard metric trace span service rateLimit " +
    "snake_case kebab-case the a of to and in is it for on with as at by")
    .split(" ");
  // About one note in ten holds non-ASCII text, as notes written by people and agents do.
  const unicode = ["café — naïve", "“quoted” résumé", "🚀 shipped", "日本語のメモ", "Größe ±5 %"];
  const labels = ["ops", "infra", "team", "decision", "howto", "bug", "meeting"];
  let bytes = 0;
  let buf = NOTES_PREAMBLE;
  const start = Date.parse("2024-01-01T00:00:00Z");
  for (let i = 0; i < count; i++) {
    let body = "";
    while (body.length < 800) {
      body += words[Math.floor(rand() * words.length)];
      body += rand() < 0.08 ? ".\n" : " ";
    }
    if (i % 10 === 0) body += unicode[(i / 10) % unicode.length];
    const title = `Note ${i}: ${words[i % words.length]} ${words[(i * 7) % words.length]}`;
    const noteLabels = [labels[i % labels.length]];
    const time = new Date(start + i * 60_000).toISOString();
    const note: Note = {
      id: `0${i.toString(36).padStart(9, "0")}bench${(i * 7919 % 100000).toString(36)}`,
      title,
      body,
      labels: noteLabels,
      hash: contentHash({ title, body, labels: noteLabels }),
      created: time,
      updated: time,
    };
    if (i % 3 === 0) note.source = `github:acme/repo/discussions/${i}`;
    buf += serializeNote(note);
    if (buf.length > 1 << 20 || i === count - 1) {
      const chunk = enc.encode(buf);
      bytes += chunk.length;
      for (let done = 0; done < chunk.length;) done += await file.write(chunk.subarray(done));
      buf = "";
    }
  }
  // On disk before measuring: otherwise the first commit's fsync would flush the whole file.
  await file.sync();
  file.close();
  return bytes;
}
