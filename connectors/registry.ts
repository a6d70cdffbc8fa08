/**
 * The connector registry: builds connectors from configuration entries, with tokens from the
 * environment. The two built-ins, `discussions` (GitHub) and `pages` (Notion), are registered by
 * default.
 *
 * @module
 */

import type { ConnectorConfig } from "./config.ts";
import { ConnectorConfigError } from "./errors.ts";
import { REPO_HOST_TYPE, RepoHostConnector } from "./github/connector.ts";
import type { Connector, FetchLike } from "./types.ts";
import { WORKSPACE_TYPE, WorkspaceConnector } from "./notion/connector.ts";

/**
 * Environment variables that hold connector tokens, in the order they are read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOKEN_ENV } from "@memo/connectors";
 * assert.deepEqual(TOKEN_ENV.discussions, ["MEMO_GITHUB_TOKEN", "GITHUB_TOKEN"]);
 * assert.deepEqual(TOKEN_ENV.pages, ["MEMO_NOTION_TOKEN", "NOTION_TOKEN"]);
 * ```
 */
export const TOKEN_ENV: Readonly<Record<string, readonly string[]>> = {
  [REPO_HOST_TYPE]: ["MEMO_GITHUB_TOKEN", "GITHUB_TOKEN"],
  [WORKSPACE_TYPE]: ["MEMO_NOTION_TOKEN", "NOTION_TOKEN"],
};

/**
 * What a factory gets besides the configuration entry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConnectorFactoryContext, createConnectorRegistry } from "@memo/connectors";
 * const context: ConnectorFactoryContext = { env: { NOTION_TOKEN: "ntn_example" } };
 * const notion = createConnectorRegistry().create({ id: "wiki", type: "pages" }, context);
 * assert.equal(notion.id, "wiki");
 * ```
 */
export interface ConnectorFactoryContext {
  /**
   * Environment holding the tokens.
   * @default {}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * `fetch` for the connector.
   * @default undefined (the pass's `fetch`)
   */
  fetch?: FetchLike;
}

/**
 * Builds a connector from a configuration entry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConnectorFactory, ConnectorRegistry } from "@memo/connectors";
 * const factory: ConnectorFactory = (config) => ({
 *   id: config.id,
 *   type: config.type,
 *   pull: () => Promise.resolve([]),
 * });
 * const registry = new ConnectorRegistry().register("static", factory);
 * const connector = registry.create({ id: "fixed", type: "static" });
 * assert.deepEqual(await connector.pull({}), []);
 * ```
 */
export type ConnectorFactory = (
  config: ConnectorConfig,
  context: ConnectorFactoryContext,
) => Connector;

/**
 * Options of {@linkcode ConnectorRegistry}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorRegistry, type ConnectorRegistryOptions } from "@memo/connectors";
 * const options: ConnectorRegistryOptions = { builtins: false };
 * assert.deepEqual(new ConnectorRegistry(options).types(), []);
 * ```
 */
export interface ConnectorRegistryOptions {
  /**
   * Register the built-in `discussions` and `pages` connectors.
   * @default true
   */
  builtins?: boolean;
}

/**
 * Connector types and how to build them. A new registry holds the two built-ins.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorRegistry } from "@memo/connectors";
 * const registry = new ConnectorRegistry();
 * assert.deepEqual(registry.types(), ["discussions", "pages"]);
 * const github = registry.create(
 *   { id: "gh", type: "discussions", repositories: ["octo-org/hello-world"] },
 *   { env: { GITHUB_TOKEN: "ghp_example" } },
 * );
 * assert.equal(github.id, "gh");
 * assert.equal(github.type, "discussions");
 * ```
 */
export class ConnectorRegistry {
  #factories = new Map<string, ConnectorFactory>();

  /** Creates a registry, with the built-ins unless `builtins` is false. */
  constructor(options: ConnectorRegistryOptions = {}) {
    if (options.builtins ?? true) {
      this.register(REPO_HOST_TYPE, createRepoHostConnector);
      this.register(WORKSPACE_TYPE, createWorkspaceConnector);
    }
  }

  /** Registers (or replaces) the factory of a type; returns the registry. */
  register(type: string, factory: ConnectorFactory): this {
    if (typeof type !== "string" || type.trim() === "" || typeof factory !== "function") {
      throw new ConnectorConfigError("Cannot register connector: give a type name and a factory");
    }
    this.#factories.set(type, factory);
    return this;
  }

  /** Whether a type is registered. */
  has(type: string): boolean {
    return this.#factories.has(type);
  }

  /** The registered types, in registration order. */
  types(): string[] {
    return [...this.#factories.keys()];
  }

  /** Builds the connector of a configuration entry; throws `ConnectorConfigError` on bad input. */
  create(config: ConnectorConfig, context: ConnectorFactoryContext = {}): Connector {
    const factory = this.#factories.get(config?.type);
    if (!factory) {
      throw new ConnectorConfigError(
        `Cannot create connector ${config?.id}: unknown type ${JSON.stringify(config?.type)} ` +
          `(known: ${this.types().join(", ")})`,
      );
    }
    return factory(config, context);
  }
}

/**
 * A registry with the two built-in connectors, `discussions` and `pages`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createConnectorRegistry } from "@memo/connectors";
 * const registry = createConnectorRegistry();
 * assert.ok(registry.has("discussions"));
 * assert.ok(registry.has("pages"));
 * ```
 */
export function createConnectorRegistry(): ConnectorRegistry {
  return new ConnectorRegistry();
}

/**
 * The first non-empty token of a type's environment variables (`MEMO_GITHUB_TOKEN`, else
 * `GITHUB_TOKEN`; `MEMO_NOTION_TOKEN`, else `NOTION_TOKEN`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenFromEnv } from "@memo/connectors";
 * assert.equal(tokenFromEnv("discussions", { GITHUB_TOKEN: "ghp_x" }), "ghp_x");
 * assert.equal(
 *   tokenFromEnv("discussions", { MEMO_GITHUB_TOKEN: "ghp_memo", GITHUB_TOKEN: "ghp_x" }),
 *   "ghp_memo",
 * );
 * assert.equal(tokenFromEnv("pages", { NOTION_TOKEN: "  " }), undefined);
 * ```
 */
export function tokenFromEnv(
  type: string,
  env: Readonly<Record<string, string | undefined>> = {},
): string | undefined {
  for (const name of TOKEN_ENV[type] ?? []) {
    const value = env[name];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
}

function pick<T extends string>(
  config: ConnectorConfig,
  allowed: readonly T[],
): Partial<Record<T, unknown>> {
  const out: Partial<Record<T, unknown>> = {};
  for (const key of Object.keys(config)) {
    if (key === "id" || key === "type") continue;
    if (!(allowed as readonly string[]).includes(key)) {
      throw new ConnectorConfigError(
        `Cannot create connector ${config.id}: type ${config.type} takes no parameter ${
          JSON.stringify(key.slice(0, 40))
        } (it takes ${allowed.join(", ")})`,
      );
    }
    out[key as T] = config[key];
  }
  return out;
}

function createRepoHostConnector(
  config: ConnectorConfig,
  context: ConnectorFactoryContext,
): Connector {
  const p = pick(config, ["repositories", "pageSize", "apiUrl"] as const);
  if (p.apiUrl !== undefined && typeof p.apiUrl !== "string") {
    throw new ConnectorConfigError(`Cannot create connector ${config.id}: apiUrl must be a string`);
  }
  return new RepoHostConnector({
    id: config.id,
    repositories: p.repositories as string[],
    pageSize: p.pageSize as number | undefined,
    apiUrl: p.apiUrl as string | undefined,
    token: tokenFromEnv(REPO_HOST_TYPE, context.env),
    fetch: context.fetch,
  });
}

function createWorkspaceConnector(
  config: ConnectorConfig,
  context: ConnectorFactoryContext,
): Connector {
  const p = pick(config, ["databaseId", "query", "includeContent", "maxDepth", "apiUrl"] as const);
  for (const key of ["databaseId", "apiUrl"] as const) {
    if (p[key] !== undefined && typeof p[key] !== "string") {
      throw new ConnectorConfigError(
        `Cannot create connector ${config.id}: ${key} must be a string`,
      );
    }
  }
  return new WorkspaceConnector({
    id: config.id,
    databaseId: p.databaseId as string | undefined,
    query: p.query as string | undefined,
    includeContent: p.includeContent as boolean | undefined,
    maxDepth: p.maxDepth as number | undefined,
    apiUrl: p.apiUrl as string | undefined,
    token: tokenFromEnv(WORKSPACE_TYPE, context.env),
    fetch: context.fetch,
  });
}
