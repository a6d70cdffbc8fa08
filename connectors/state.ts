/**
 * Incremental-sync state: per connector, the newest `updatedAt` a committed pass held. Kept in
 * `.memo/connectors/state.json`, written atomically (temporary file, fsync, rename), and moved
 * forward only after a pass commits.
 *
 * @module
 */

import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * What is kept for one connector.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConnectorStateEntry } from "@memo/connectors";
 * const entry: ConnectorStateEntry = {
 *   type: "discussions",
 *   scope: "https://api.github.com/graphql octo-org/hello-world",
 *   since: "2024-05-02T09:30:00Z",
 * };
 * assert.equal(JSON.parse(JSON.stringify(entry)).since, "2024-05-02T09:30:00Z");
 * ```
 */
export interface ConnectorStateEntry {
  /** Connector type when the state was written. */
  type: string;
  /** The connector's `scope` when the state was written; other scopes start over. */
  scope?: string;
  /** Newest `updatedAt` of a committed record (ISO 8601). */
  since?: string;
}

/**
 * Where incremental state is kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConnectorStateEntry, ConnectorStateStore } from "@memo/connectors";
 * const entries = new Map<string, ConnectorStateEntry>();
 * const memory: ConnectorStateStore = {
 *   read: (id) => Promise.resolve(entries.get(id)),
 *   write: (id, entry) => Promise.resolve(void entries.set(id, entry)),
 * };
 * await memory.write("github", { type: "discussions", since: "2024-05-01T10:00:00Z" });
 * assert.equal((await memory.read("github"))?.since, "2024-05-01T10:00:00Z");
 * ```
 */
export interface ConnectorStateStore {
  /** The entry of a connector, if any. */
  read(id: string): Promise<ConnectorStateEntry | undefined>;
  /** Replaces the entry of a connector. */
  write(id: string, entry: ConnectorStateEntry): Promise<void>;
}

interface StateFile {
  version: 1;
  connectors: Record<string, ConnectorStateEntry>;
}

/**
 * Incremental state in a JSON file (`.memo/connectors/state.json`). A file that cannot be read or
 * parsed counts as empty (the next pass is a full pass), never as an error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileConnectorState } from "@memo/connectors";
 * const dir = await Deno.makeTempDir();
 * const state = new FileConnectorState(`${dir}/.memo/connectors/state.json`);
 * assert.equal(await state.read("github"), undefined, "no file yet: a full pass");
 * await state.write("github", { type: "discussions", since: "2024-05-01T10:00:00Z" });
 * assert.equal((await state.read("github"))?.since, "2024-05-01T10:00:00Z");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class FileConnectorState implements ConnectorStateStore {
  /** Path of the state file. */
  readonly path: string;

  /** Keeps the state in the file at `path`. */
  constructor(path: string) {
    this.path = path;
  }

  /** The entry of a connector, if any. */
  async read(id: string): Promise<ConnectorStateEntry | undefined> {
    const file = await this.#load();
    const entry = Object.hasOwn(file.connectors, id) ? file.connectors[id] : undefined;
    return entry && typeof entry === "object" && typeof entry.type === "string" ? entry : undefined;
  }

  /** Replaces the entry of a connector, keeping the others, atomically. */
  async write(id: string, entry: ConnectorStateEntry): Promise<void> {
    const file = await this.#load();
    file.connectors[id] = entry;
    await mkdir(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${crypto.randomUUID()}.tmp`;
    try {
      const handle = await open(temp, "wx", 0o644);
      try {
        await handle.writeFile(JSON.stringify(file, null, 2) + "\n", "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch (e) {
      await rm(temp, { force: true }).catch(() => {});
      throw e;
    }
  }

  async #load(): Promise<StateFile> {
    try {
      const parsed = JSON.parse(await readFile(this.path, "utf8"));
      if (
        parsed && typeof parsed === "object" && parsed.connectors &&
        typeof parsed.connectors === "object"
      ) {
        return { version: 1, connectors: { ...parsed.connectors } };
      }
    } catch {
      // missing or damaged: start over with a full pass
    }
    return { version: 1, connectors: {} };
  }
}
