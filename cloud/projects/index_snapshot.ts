/**
 * The snapshot file of a `ProjectIndex` (`project_index.ts`): the memory package's lexical snapshot
 * file (`encodeLexicalSnapshot`) with four more arrays: the revisions and store positions of the
 * notes in doc order (each as two 32-bit halves) and their ids, labels, sources, times,
 * `supersedes` and validity as UTF-8 JSON. The file's checksum covers them, and its key names the
 * format, the project and the change sequence it covers.
 *
 * @module
 */

import {
  type Bm25LexicalIndex,
  createLexicalIndex,
  decodeLexicalSnapshot,
  encodeLexicalSnapshot,
  LEXICAL_SNAPSHOT_VERSION,
  lexicalOptionsKey,
} from "@memo/memory";
import { createHash } from "node:crypto";

/** The lexical index's part of a snapshot. */
export type LexicalSnapshot = NonNullable<ReturnType<Bm25LexicalIndex["exportSnapshot"]>>;

/**
 * What a snapshot keeps of one note besides the lexical index.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SnapshotRow } from "./index_snapshot.ts";
 *
 * const at = "2026-01-01T00:00:00.000Z";
 * const row: SnapshotRow = { id: "n1", labels: [], created: at, updated: at, revision: 4, ord: 2 };
 * assert.equal(row.revision, 4);
 * ```
 */
export interface SnapshotRow {
  id: string;
  labels: string[];
  created: string;
  updated: string;
  revision: number;
  ord: number;
  source?: string;
  supersedes?: string[];
  validFrom?: string;
  validUntil?: string;
}

/**
 * Version of the cloud's snapshot layout (the arrays besides the lexical index's); 2 added
 * `created`, `supersedes` and the validity; 3 leaves out the lexical index's token hash table
 * (`exportSnapshot({ tokenTable: false })`), built again after the import, at its first need.
 */
const CLOUD_SNAPSHOT_LAYOUT = 3;

/**
 * The snapshot format of this build under schema version `schema`: a snapshot of another format
 * (another layout, index version, index options or schema) is never loaded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { snapshotFormat } from "./index_snapshot.ts";
 *
 * assert.match(snapshotFormat(3), /^cloud-3\/lex-\d+\/schema-3\/opt-[0-9a-f]{12}$/);
 * assert.notEqual(snapshotFormat(3), snapshotFormat(4));
 * ```
 */
export function snapshotFormat(schema: number): string {
  const options = createHash("sha256")
    .update(lexicalOptionsKey(createLexicalIndex().options))
    .digest("hex")
    .slice(0, 12);
  return `cloud-${CLOUD_SNAPSHOT_LAYOUT}/lex-${LEXICAL_SNAPSHOT_VERSION}/schema-${schema}/opt-${options}`;
}

/** The per-note JSON columns of a snapshot. */
interface Meta {
  ids: string[];
  labels: string[][];
  sources: (string | null)[];
  created: string[];
  updated: string[];
  supersedes: (string[] | null)[];
  validFrom: (string | null)[];
  validUntil: (string | null)[];
}

/**
 * The snapshot file under `key` of a lexical snapshot, the rows of its notes in doc order and the
 * change sequence `seq` it covers.
 *
 * @example See {@linkcode decodeIndexSnapshot}.
 */
export function encodeIndexSnapshot(
  key: string,
  lexical: LexicalSnapshot,
  rows: readonly SnapshotRow[],
  seq: number,
): Uint8Array {
  const docs = rows.length;
  const revHi = new Int32Array(docs), revLo = new Int32Array(docs);
  const ordHi = new Int32Array(docs), ordLo = new Int32Array(docs);
  const meta: Meta = {
    ids: [],
    labels: [],
    sources: [],
    created: [],
    updated: [],
    supersedes: [],
    validFrom: [],
    validUntil: [],
  };
  rows.forEach((row, doc) => {
    revHi[doc] = Math.floor(row.revision / 2 ** 32);
    revLo[doc] = row.revision | 0;
    ordHi[doc] = Math.floor(row.ord / 2 ** 32);
    ordLo[doc] = row.ord | 0;
    meta.ids.push(row.id);
    meta.labels.push(row.labels);
    meta.sources.push(row.source ?? null);
    meta.created.push(row.created);
    meta.updated.push(row.updated);
    meta.supersedes.push(row.supersedes ?? null);
    meta.validFrom.push(row.validFrom ?? null);
    meta.validUntil.push(row.validUntil ?? null);
  });
  const json = new TextEncoder().encode(JSON.stringify(meta));
  const metaArray = new Int32Array(Math.ceil(json.byteLength / 4));
  new Uint8Array(metaArray.buffer).set(json);
  return encodeLexicalSnapshot(key, {
    ...lexical,
    numbers: { ...lexical.numbers, cloudSeq: seq, cloudMetaBytes: json.byteLength },
    arrays: {
      ...lexical.arrays,
      cloudRevHi: revHi,
      cloudRevLo: revLo,
      cloudOrdHi: ordHi,
      cloudOrdLo: ordLo,
      cloudMeta: metaArray,
    },
  }, docs);
}

/**
 * The parts of a snapshot file taken under `key`, or undefined when the bytes are damaged, of
 * another key or format, or do not fit. Each row also carries an empty `title`, `body` and `hash`:
 * a `ProjectIndex` holds the rows as they are.
 *
 * @example A round trip (an empty lexical part, for brevity)
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProjectIndex } from "./project_index.ts";
 * import { decodeIndexSnapshot, snapshotFormat } from "./index_snapshot.ts";
 *
 * const at = "2026-01-01T00:00:00.000Z";
 * const index = new ProjectIndex();
 * index.add([{ id: "a", title: "t", body: "Deploy", labels: ["ops"], hash: "h", created: at, updated: at, revision: 1, ord: 1 }]);
 * index.finish(1);
 * const key = `${snapshotFormat(1)}:7:1`;
 * const decoded = decodeIndexSnapshot(index.exportSnapshot(key)!, key)!;
 * assert.equal(decoded.seq, 1);
 * assert.deepEqual(decoded.rows.map((r) => [r.id, r.labels, r.revision]), [["a", ["ops"], 1]]);
 * assert.equal(decodeIndexSnapshot(index.exportSnapshot(key)!, `${key}x`), undefined);
 * ```
 */
export function decodeIndexSnapshot(
  bytes: Uint8Array,
  key: string,
): { lexical: LexicalSnapshot; rows: SnapshotRow[]; seq: number } | undefined {
  try {
    const lexical = decodeLexicalSnapshot(bytes, key);
    if (!lexical) return undefined;
    const a = lexical.arrays;
    const docs = lexical.numbers.docs;
    const metaBytes = lexical.numbers.cloudMetaBytes;
    const seq = lexical.numbers.cloudSeq;
    const int32 = (name: string) => {
      const v = a[name];
      return v instanceof Int32Array ? v : new Int32Array(0);
    };
    const [revHi, revLo, ordHi, ordLo, metaArray] = [
      "cloudRevHi",
      "cloudRevLo",
      "cloudOrdHi",
      "cloudOrdLo",
      "cloudMeta",
    ].map(int32);
    if (
      !Number.isSafeInteger(seq) || !Number.isSafeInteger(metaBytes) || metaBytes < 0 ||
      metaBytes > metaArray.byteLength ||
      ![revHi, revLo, ordHi, ordLo].every((p) => p.length === docs)
    ) return undefined;
    // Not a fatal decoder: the bytes passed the file's checksum, and the encoder wrote valid UTF-8
    // (a fatal one checks every byte again: 4-10 ms of 1.6 MB against 1-6 ms).
    const meta = JSON.parse(
      new TextDecoder().decode(new Uint8Array(metaArray.buffer, metaArray.byteOffset, metaBytes)),
    ) as Meta;
    const columns = [
      meta.ids,
      meta.labels,
      meta.sources,
      meta.created,
      meta.updated,
      meta.supersedes,
      meta.validFrom,
      meta.validUntil,
    ];
    if (!columns.every((c) => Array.isArray(c) && c.length === docs)) return undefined;
    const join = (hi: Int32Array, lo: Int32Array, doc: number) =>
      hi[doc] * 2 ** 32 + (lo[doc] >>> 0);
    const rows: SnapshotRow[] = [];
    for (let doc = 0; doc < docs; doc++) {
      // In the shape of a `ProjectIndex`'s row (its text blank), which holds these as they are:
      // one object a note, not two, on a cold load.
      const row = {
        id: meta.ids[doc],
        title: "",
        body: "",
        labels: meta.labels[doc],
        hash: "",
        created: meta.created[doc],
        updated: meta.updated[doc],
        revision: join(revHi, revLo, doc),
        ord: join(ordHi, ordLo, doc),
      } as SnapshotRow;
      if (meta.sources[doc] !== null) row.source = meta.sources[doc]!;
      if (meta.supersedes[doc]?.length) row.supersedes = meta.supersedes[doc]!;
      if (meta.validFrom[doc] !== null) row.validFrom = meta.validFrom[doc]!;
      if (meta.validUntil[doc] !== null) row.validUntil = meta.validUntil[doc]!;
      rows.push(row);
    }
    return { lexical, rows, seq };
  } catch {
    return undefined;
  }
}
