/**
 * The connectors section of `.memo/config.json`: `{"connectors": [{"id", "type", ...params,
 * "apiUrl"?}]}`. Tokens never go in the file: they come from the environment.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { CONNECTOR_ID_PATTERN } from "./kit/connector_id.ts";
import { ConnectorConfigError } from "./errors.ts";

/**
 * One configured connector: its id, its type and the type's parameters (`repositories`, `pageSize`,
 * `databaseId`, `query`, `includeContent`, `maxDepth`, `apiUrl` …).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConnectorConfig, parseConnectorConfig } from "@memo/connectors";
 * const github: ConnectorConfig = {
 *   id: "github",
 *   type: "discussions",
 *   repositories: ["octo-org/hello-world"],
 * };
 * assert.deepEqual(parseConnectorConfig({ connectors: [github] }), [github]);
 * ```
 */
export interface ConnectorConfig {
  /** Unique id (letters, digits, `.`, `_`, `-`). */
  id: string;
  /** Connector type: `discussions`, `pages`, or one registered by the caller. */
  type: string;
  /** Parameters of the type. */
  [param: string]: unknown;
}

/** Keys that would hold a secret; refused so that no token is ever written to the file. */
const SECRET_KEYS = /^(token|apiKey|api_key|secret|password|auth|authorization|accessToken)$/i;

/**
 * Validates the `connectors` value of a parsed config file. Throws `ConnectorConfigError` naming
 * the first problem (never repeating a value that might be a secret).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorConfigError, parseConnectorConfig } from "@memo/connectors";
 * const list = parseConnectorConfig({
 *   connectors: [{ id: "notes", type: "pages", databaseId: "0123456789abcdef0123456789abcdef" }],
 * });
 * assert.equal(list[0].type, "pages");
 * // Tokens belong in the environment, never in the file.
 * assert.throws(
 *   () => parseConnectorConfig({ connectors: [{ id: "gh", type: "pages", token: "ntn_x" }] }),
 *   ConnectorConfigError,
 * );
 * ```
 */
export function parseConnectorConfig(
  config: unknown,
  file = ".memo/config.json",
): ConnectorConfig[] {
  const fail = (reason: string) => new ConnectorConfigError(`Cannot read ${file}: ${reason}`);
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw fail("it must hold a JSON object");
  }
  const list = (config as { connectors?: unknown }).connectors;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw fail("connectors must be a list");
  const ids = new Set<string>();
  return list.map((entry, index) => {
    const where = `connectors[${index}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw fail(`${where} must be an object`);
    }
    const { id, type } = entry as { id?: unknown; type?: unknown };
    if (typeof id !== "string" || !CONNECTOR_ID_PATTERN.test(id)) {
      throw fail(`${where}.id must be 1 to 64 letters, digits, '.', '_' or '-'`);
    }
    if (ids.has(id)) throw fail(`connector id ${id} is used twice`);
    ids.add(id);
    if (typeof type !== "string" || type.trim() === "") throw fail(`connector ${id} has no type`);
    for (const key of Object.keys(entry)) {
      if (SECRET_KEYS.test(key)) {
        throw fail(
          `connector ${id} has a ${key} entry; tokens come only from the environment ` +
            "(MEMO_GITHUB_TOKEN or GITHUB_TOKEN, MEMO_NOTION_TOKEN or NOTION_TOKEN): remove it",
        );
      }
    }
    return { ...(entry as Record<string, unknown>), id, type } as ConnectorConfig;
  });
}

/**
 * Reads the configured connectors from a config file. A missing file means no connectors; a file
 * that is not JSON, or a bad entry, throws `ConnectorConfigError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readConnectorConfig } from "@memo/connectors";
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await readConnectorConfig(`${dir}/config.json`), [], "no file: no connectors");
 * await Deno.writeTextFile(
 *   `${dir}/config.json`,
 *   JSON.stringify({ connectors: [{ id: "wiki", type: "pages", query: "runbook" }] }),
 * );
 * assert.deepEqual(await readConnectorConfig(`${dir}/config.json`), [
 *   { id: "wiki", type: "pages", query: "runbook" },
 * ]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readConnectorConfig(path: string): Promise<ConnectorConfig[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw new ConnectorConfigError(
      `Cannot read .memo/config.json: ${(e as { code?: string }).code ?? "it cannot be opened"}`,
      { cause: e },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConnectorConfigError("Cannot read .memo/config.json: it is not valid JSON");
  }
  return parseConnectorConfig(parsed);
}
