/**
 * The `recall` tool's rendered results, kept with the hits they render: a runtime's recall cache
 * answers the same query with the same hit objects, so the second call with the same hits reuses
 * the JSON of the first (and its escaped text) instead of serializing some 10 notes twice again.
 *
 * @module
 */

/**
 * A result serialized once: `json` is its `structuredContent`, `textJson` (filled at the first
 * `toolResultJson`) the same JSON as a JSON string, the text content.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Rendered } from "./_rendered.ts";
 *
 * const rendered: Rendered = { json: '{"hits":[]}' };
 * rendered.textJson ??= JSON.stringify(rendered.json);
 * assert.equal(rendered.textJson, '"{\\"hits\\":[]}"');
 * ```
 */
export interface Rendered {
  /** The result, serialized. */
  readonly json: string;
  /** `json` as a JSON string, once a text content needed it. */
  textJson?: string;
}

interface Entry extends Rendered {
  readonly hits: readonly unknown[];
  readonly engine: unknown;
  readonly embedded: number;
  readonly total: number;
}

/**
 * Rendered recall results, by their first hit (held weakly: a result the runtime's cache dropped
 * goes with it). A result matches only when every hit is the very object rendered before, in the
 * same order, with the same engine and coverage; a runtime's hits are never changed in place (its
 * recall cache hands the same objects to every caller), so the same objects serialize the same.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RenderedRecalls } from "./_rendered.ts";
 *
 * const rendered = new RenderedRecalls();
 * const hits = [{ note: { id: "a" }, score: 1 }];
 * const structured = { hits, engine: "lexical", coverage: { embedded: 0, total: 1 } };
 * const first = rendered.of(hits, "lexical", 0, 1, structured)!;
 * assert.equal(first.json, JSON.stringify(structured));
 * assert.equal(rendered.of(hits.slice(), "lexical", 0, 1, structured), first); // the same hits
 * assert.notEqual(rendered.of([{ ...hits[0] }], "lexical", 0, 1, structured), first); // new objects
 * assert.equal(rendered.of([], "lexical", 0, 1, structured), undefined); // nothing to key on
 * ```
 */
export class RenderedRecalls {
  readonly #byFirstHit = new WeakMap<object, Entry>();

  /**
   * The rendering of `structured` (made of these hits, engine and coverage): the one kept for the
   * same hit objects, else a new one, kept. Undefined when there is no hit object to key on.
   */
  of(
    hits: readonly unknown[],
    engine: unknown,
    embedded: number,
    total: number,
    structured: Record<string, unknown>,
  ): Rendered | undefined {
    const first = hits[0];
    if (first === null || typeof first !== "object") return undefined;
    const known = this.#byFirstHit.get(first);
    if (
      known !== undefined && known.engine === engine && known.embedded === embedded &&
      known.total === total && sameItems(known.hits, hits)
    ) {
      return known;
    }
    const entry: Entry = {
      json: JSON.stringify(structured),
      hits: hits.slice(),
      engine,
      embedded,
      total,
    };
    this.#byFirstHit.set(first, entry);
    return entry;
  }
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
