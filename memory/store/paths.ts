/**
 * Where memo keeps its files inside a project.
 *
 * @module
 */

import { join } from "node:path";

/**
 * Paths of memo's files under a project root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoPaths, memoPaths } from "@memo/memory";
 * const paths: MemoPaths = memoPaths("/p");
 * assert.equal(paths.dir, "/p/.memo");
 * assert.equal(paths.cache, "/p/.memo/cache");
 * ```
 */
export interface MemoPaths {
  /** `<root>/.memo` */
  dir: string;
  /** `<root>/.memo/memory/notes.md` */
  notes: string;
  /** `<root>/.memo/memory/notes.md.lock` */
  lock: string;
  /** `<root>/.memo/config.json` */
  config: string;
  /** `<root>/.memo/connectors/state.json` */
  connectorState: string;
  /** `<root>/.memo/replica/` */
  replica: string;
  /** `<root>/.memo/cache/` */
  cache: string;
}

/**
 * Resolves memo's file locations for a project root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoPaths } from "@memo/memory";
 * assert.equal(memoPaths("/p").notes, "/p/.memo/memory/notes.md");
 * assert.equal(memoPaths("/p").lock, "/p/.memo/memory/notes.md.lock");
 * ```
 */
export function memoPaths(rootDir: string): MemoPaths {
  const dir = join(rootDir, ".memo");
  const notes = join(dir, "memory", "notes.md");
  return {
    dir,
    notes,
    lock: `${notes}.lock`,
    config: join(dir, "config.json"),
    connectorState: join(dir, "connectors", "state.json"),
    replica: join(dir, "replica"),
    cache: join(dir, "cache"),
  };
}
