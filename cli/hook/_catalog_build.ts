/**
 * Internal: building the hooks' index from a full read of the notes through `@memo/memory`, and
 * writing its files (see `_catalog.ts` for what they hold).
 *
 * @module
 */

import type { CliFiles } from "../context.ts";
import {
  type CatalogHead,
  type CatalogNote,
  idHash,
  type PartPlace,
  VERSION,
} from "./_catalog_types.ts";
import { join } from "./_paths.ts";
import { terms } from "./_words.ts";

/**
 * Builds the index of one scope's notes (whose file has the key `key`) and writes its files into
 * `place.dir`; the head and the integers (lengths, recent order, line offsets, id table,
 * postings).
 */
export async function writeCatalog(
  place: PartPlace,
  key: string,
  files: CliFiles,
): Promise<{ head: CatalogHead; ints: Int32Array }> {
  const dir = place.dir;
  const built = await buildCatalog(place, key, files);
  const id = built.head.id;
  await files.mkdir(dir);
  // Each build has files of its own, and the head names them (written last): a reader never
  // pairs a head with another build's files.
  await files.writeAtomically(join(dir, `index-${id}.bin`), new Uint8Array(built.ints.buffer));
  await files.writeAtomically(join(dir, `notes-${id}.jsonl`), built.lines);
  await files.writeAtomically(join(dir, `labels-${id}.json`), JSON.stringify(built.labels));
  await files.writeAtomically(join(dir, "catalog.json"), JSON.stringify(built.head));
  await removeLeftovers(files, dir, id);
  return { head: built.head, ints: built.ints };
}

/**
 * Removes the files of other builds, and the temporary files of builds that did not finish (their
 * process was ended).
 */
async function removeLeftovers(files: CliFiles, dir: string, id: string): Promise<void> {
  for (const name of await files.readdir(dir)) {
    const other = /^(index|notes|labels)-(\w+)\.(bin|jsonl|json)$/.exec(name);
    if (name.endsWith(".tmp") || (other && other[2] !== id)) await files.remove(join(dir, name));
  }
}

/** Builds the catalog from a full read of the notes. */
async function buildCatalog(
  place: PartPlace,
  key: string,
  files: CliFiles,
): Promise<
  { head: CatalogHead; ints: Int32Array; lines: Uint8Array; labels: Record<string, number[]> }
> {
  const { FileMemoryStore, mayHoldSecret } = await import("@memo/memory");
  const store = place.scope === "project"
    ? new FileMemoryStore({ rootDir: place.storeRoot })
    : new FileMemoryStore({ rootDir: place.storeRoot, notesPath: place.notes });
  const { notes } = await store.snapshot();
  const conflicted = store.unresolvedMerge !== undefined;
  await store.close();
  const ranges = conflicted
    ? new Map<string, [number, number]>()
    : await sectionRanges(place.notes, files);
  const live: CatalogNote[] = [];
  const lengths: number[] = [];
  const map = new Map<string, number[]>();
  const labels: Record<string, number[]> = {};
  let total = 0;
  for (const note of notes) {
    if (note.supersededBy?.length) continue;
    const range = ranges.get(note.id);
    const ts = terms(`${note.title}\n${note.body}\n${note.labels.join(" ")}`);
    const ordinal = live.length;
    const entry: CatalogNote = {
      id: note.id,
      title: note.title,
      labels: note.labels,
      created: note.created,
      updated: note.updated,
      start: range?.[0] ?? 0,
      end: range?.[1] ?? 0,
    };
    if (note.validFrom) entry.validFrom = note.validFrom;
    if (note.validUntil) entry.validUntil = note.validUntil;
    if (!range) entry.text = note.body;
    if (mayHoldSecret(`${note.title}\n${note.body}`)) entry.secret = true;
    live.push(entry);
    lengths.push(ts.length);
    total += ts.length;
    for (const label of note.labels) {
      if (!Object.hasOwn(labels, label)) Object.defineProperty(labels, label, own([]));
      labels[label].push(ordinal);
    }
    for (const t of ts) {
      const list = map.get(t);
      if (list) list.push(ordinal);
      else map.set(t, [ordinal]);
    }
  }
  const count = live.length;
  const recent = live.map((_, i) => i).sort((a, b) =>
    live[b].updated < live[a].updated ? -1 : live[b].updated > live[a].updated ? 1 : b - a
  );
  const encoder = new TextEncoder();
  const lineBytes = live.map((n) => encoder.encode(JSON.stringify(n) + "\n"));
  let size = 5 * count + 1;
  for (const list of map.values()) size += list.length;
  const ints = new Int32Array(size);
  ints.set(lengths, 0);
  ints.set(recent, count);
  let offset = 0;
  lineBytes.forEach((b, i) => {
    ints[2 * count + i] = offset;
    offset += b.byteLength;
  });
  ints[3 * count] = offset;
  // The id table: (hash of the id, ordinal), by hash, so that a note another scope also holds is
  // found without reading every line (`_memory.ts`).
  const hashes = live.map((n, i) => [idHash(n.id), i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  hashes.forEach(([h, o], i) => {
    ints[3 * count + 1 + 2 * i] = h;
    ints[3 * count + 2 + 2 * i] = o;
  });
  const lines = new Uint8Array(offset);
  offset = 0;
  for (const b of lineBytes) lines.set(b, offset), offset += b.byteLength;
  const termTable: Record<string, [number, number]> = {};
  let at = 5 * count + 1;
  for (const [t, list] of map) {
    Object.defineProperty(termTable, t, own([at, list.length]));
    ints.set(list, at);
    at += list.length;
  }
  return {
    head: {
      v: VERSION,
      key,
      id: Math.random().toString(36).slice(2, 10),
      count,
      average: count ? total / count : 0,
      terms: termTable,
    },
    labels,
    ints,
    lines,
  };
}

/** A plain own property (so that a `__proto__` term stays a key). */
function own(value: unknown): PropertyDescriptor {
  return { value, enumerable: true, writable: true, configurable: true };
}

/** The byte range of each note's section in its notes file, by id (from its marker lines). */
async function sectionRanges(
  notesPath: string,
  files: CliFiles,
): Promise<Map<string, [number, number]>> {
  const size = (await files.stat(notesPath))?.size ?? 0;
  const [bytes] = await files.readRanges(notesPath, [[0, size]]);
  const marker = new TextEncoder().encode("\n<!-- memo:note ");
  const starts: { id: string; at: number }[] = [];
  const decoder = new TextDecoder();
  let from = 0;
  if (startsWith(bytes, 0, marker.subarray(1))) from = -1;
  for (;;) {
    const at = from === -1 ? -1 : bytes.indexOf(marker[0], from);
    let start: number;
    if (from === -1) start = 0, from = 0;
    else {
      if (at < 0) break;
      if (!startsWith(bytes, at, marker)) {
        from = at + 1;
        continue;
      }
      start = at + 1;
    }
    const lineEnd = bytes.indexOf(10, start);
    const line = decoder.decode(bytes.subarray(start, lineEnd < 0 ? bytes.length : lineEnd));
    const id = /"id":"([^"]+)"/.exec(line)?.[1];
    if (id) starts.push({ id, at: start });
    from = lineEnd < 0 ? bytes.length : lineEnd;
  }
  const out = new Map<string, [number, number]>();
  starts.forEach((s, i) => {
    if (!out.has(s.id)) {
      out.set(s.id, [s.at, i + 1 < starts.length ? starts[i + 1].at : bytes.length]);
    }
  });
  return out;
}

function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}
