/**
 * Internal: the journal of a move between scopes. It is written (and flushed) before the note is
 * written into its new scope, and cleared after the note left the old one; a `load()` that finds
 * it finishes the move.
 *
 * @module
 */

import { mkdir, open, readFile, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { replaceFromTemp } from "../platform/replace_file.ts";
import { isScope, type Scope } from "./scopes.ts";

/**
 * One move in flight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MoveEntry } from "./_move_journal.ts";
 * const entry: MoveEntry = { id: "n1", from: "project", to: "user" };
 * assert.equal(entry.to, "user");
 * ```
 */
export interface MoveEntry {
  id: string;
  from: Scope;
  to: Scope;
}

/**
 * The journal file of moves between scopes (one move at a time).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { MoveJournal } from "./_move_journal.ts";
 * const dir = await Deno.makeTempDir();
 * const journal = new MoveJournal(join(dir, "cache", "scope-move.json"));
 * assert.equal(await journal.read(), undefined);
 * await journal.write({ id: "n1", from: "local", to: "project" });
 * assert.deepEqual(await journal.read(), { id: "n1", from: "local", to: "project" });
 * await journal.clear();
 * assert.equal(await journal.read(), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class MoveJournal {
  readonly #path: string;

  /** A journal kept at `path`. */
  constructor(path: string) {
    this.#path = path;
  }

  /** The move recorded, if any (a torn or foreign file counts as none). */
  async read(): Promise<MoveEntry | undefined> {
    let text: string;
    try {
      text = await readFile(this.#path, "utf8");
    } catch {
      return undefined;
    }
    try {
      const e = JSON.parse(text);
      if (typeof e?.id === "string" && isScope(e.from) && isScope(e.to)) {
        return { id: e.id, from: e.from, to: e.to };
      }
    } catch {
      // a torn write: the move had not started
    }
    return undefined;
  }

  /** Records a move, durably, before it starts. */
  async write(entry: MoveEntry): Promise<void> {
    await mkdir(dirname(this.#path), { recursive: true });
    const tmp = `${this.#path}.${crypto.randomUUID()}.tmp`;
    const fh = await open(tmp, "wx");
    await replaceFromTemp(fh, tmp, this.#path, async () => {
      await fh.writeFile(JSON.stringify(entry) + "\n");
    }, true);
  }

  /** Forgets the move, once it is done. */
  async clear(): Promise<void> {
    await unlink(this.#path).catch((e) => {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
    });
  }
}
