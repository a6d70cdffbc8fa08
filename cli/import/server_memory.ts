/**
 * Reads the official MCP memory server's knowledge graph (`memory.jsonl` of
 * `@modelcontextprotocol/server-memory`): one note per entity.
 *
 * @module
 */

import type { ImportSkip, ReaderResult } from "./types.ts";
import { keyPart, splitLines } from "./_files.ts";

/** The text of a note for an entity with no observations and no relations. */
const NO_OBSERVATIONS = "(no observations)";

/** One file of the graph: its path relative to the source and its text. */
export interface GraphFile {
  /** Path relative to the source (a file source's basename). */
  file: string;
  text: string;
}

interface Entity {
  name: string;
  entityType: string;
  observations: string[];
  relations: Set<string>;
  file: string;
  line: number;
}

/**
 * Parses one or more `memory.jsonl` files as one graph. Each entity (lines
 * `{"type":"entity","name","entityType","observations":[…]}`) becomes a draft: title = name;
 * text = the observations as a `- ` list, then a blank line, `Relations:` and `- <from>
 * <relationType> <to>` for every relation naming it (sorted); labels = [entityType]; source
 * `server-memory:<name>` (white space and `%` percent-encoded). Entities named twice are merged
 * (observations de-duplicated). An entity with no observations and no relations gets the text
 * `(no observations)`. A relation is listed under each of its ends that is an entity (the server
 * does not require both to exist); one naming no entity at all, and a malformed line, are skipped
 * with their line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseServerMemory } from "./server_memory.ts";
 *
 * const text = [
 *   '{"type":"entity","name":"Alice Smith","entityType":"person","observations":["likes tea"]}',
 *   '{"type":"entity","name":"Acme","entityType":"company","observations":[]}',
 *   '{"type":"relation","from":"Alice Smith","to":"Bob","relationType":"knows"}',
 *   '{"type":"relation","from":"Carol","to":"Dan","relationType":"knows"}',
 * ].join("\n");
 * const { records, skipped } = parseServerMemory([{ file: "memory.jsonl", text }]);
 * assert.deepEqual(records[0].draft, {
 *   title: "Alice Smith",
 *   text: "- likes tea\n\nRelations:\n- Alice Smith knows Bob",
 *   labels: ["person"],
 *   source: "server-memory:Alice%20Smith",
 * });
 * assert.equal(records[1].draft.text, "(no observations)");
 * assert.deepEqual(skipped, [
 *   { file: "memory.jsonl", line: 4, reason: 'relation names no known entity: "Carol" and "Dan"' },
 * ]);
 * ```
 */
export function parseServerMemory(
  files: readonly GraphFile[],
  onLine?: (done: number, total: number) => void,
): ReaderResult {
  const skipped: ImportSkip[] = [];
  const entities = new Map<string, Entity>();
  const relations: { from: string; to: string; type: string; file: string; line: number }[] = [];
  const total = files.reduce((n, f) => n + splitLines(f.text).length, 0);
  let done = 0;
  for (const { file, text } of files) {
    const lines = splitLines(text);
    for (let i = 0; i < lines.length; i++) {
      if (onLine && ++done % 1000 === 0) onLine(done, total);
      const raw = lines[i];
      if (raw.trim() === "") continue;
      const line = i + 1;
      const skip = (reason: string) => skipped.push({ file, line, reason });
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        skip("not valid JSON");
        continue;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        skip("not a JSON object");
        continue;
      }
      const o = value as Record<string, unknown>;
      if (o.type === "entity") {
        if (typeof o.name !== "string" || o.name.trim() === "") {
          skip(`entity "name" is missing or not a string`);
          continue;
        }
        if (o.entityType !== undefined && typeof o.entityType !== "string") {
          skip(`entity "entityType" is not a string`);
          continue;
        }
        const observations = o.observations ?? [];
        if (!Array.isArray(observations) || !observations.every((x) => typeof x === "string")) {
          skip(`entity "observations" is not a list of strings`);
          continue;
        }
        const known = entities.get(o.name);
        if (known) {
          for (const x of observations) {
            if (!known.observations.includes(x)) known.observations.push(x);
          }
        } else {
          entities.set(o.name, {
            name: o.name,
            entityType: (o.entityType as string | undefined) ?? "",
            observations: [...new Set(observations as string[])],
            relations: new Set(),
            file,
            line,
          });
        }
      } else if (o.type === "relation") {
        if (
          typeof o.from !== "string" || typeof o.to !== "string" ||
          typeof o.relationType !== "string"
        ) {
          skip(`relation "from", "to" or "relationType" is missing or not a string`);
          continue;
        }
        relations.push({ from: o.from, to: o.to, type: o.relationType, file, line });
      } else {
        skip(`unknown "type": ${JSON.stringify(o.type ?? null)} (expected "entity" or "relation")`);
      }
    }
  }
  for (const r of relations) {
    const ends = [...new Set([r.from, r.to])].filter((name) => entities.has(name));
    if (ends.length === 0) {
      const names = [...new Set([r.from, r.to])].map((n) => JSON.stringify(n)).join(" and ");
      skipped.push({
        file: r.file,
        line: r.line,
        reason: `relation names no known entity: ${names}`,
      });
      continue;
    }
    const text = `- ${r.from} ${r.type} ${r.to}`;
    for (const name of ends) entities.get(name)!.relations.add(text);
  }
  onLine?.(total, total);
  const result: ReaderResult = { records: [], skipped };
  for (const e of entities.values()) {
    const parts: string[] = [];
    if (e.observations.length > 0) parts.push(e.observations.map(listItem).join("\n"));
    if (e.relations.size > 0) {
      parts.push("Relations:\n" + [...e.relations].sort().join("\n"));
    }
    if (parts.length === 0) parts.push(NO_OBSERVATIONS);
    result.records.push({
      draft: {
        title: e.name,
        text: parts.join("\n\n"),
        labels: e.entityType.trim() === "" ? [] : [e.entityType],
        source: `server-memory:${keyPart(e.name)}`,
      },
      file: e.file,
      line: e.line,
    });
  }
  return result;
}

/** An observation as a list item; its later lines indented under it. */
function listItem(text: string): string {
  return "- " + splitLines(text).join("\n  ");
}
