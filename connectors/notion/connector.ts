/**
 * The workspace-pages connector: Notion pages from a database query or a workspace search, with
 * their content as markdown.
 *
 * @module
 */

import { checkApiUrl, hostOf, systemClock } from "../kit/http.ts";
import { checkConnectorId } from "../kit/connector_id.ts";
import { CursorTrail, isBefore } from "../kit/paging.ts";
import { ConnectorConfigError, WorkspaceError } from "../errors.ts";
import { PAGE_SIZE } from "../limits.ts";
import type { Connector, ConnectorRecord, FetchLike, PullContext } from "../types.ts";
import { NOTION_API_URL, type NotionCallOptions, notionList } from "./client.ts";
import { normalizeNotionId, normalizeNotionToken } from "./ids.ts";
import {
  type BlockNode,
  blocksToMarkdown,
  CONTAINER_TYPES,
  type NotionBlock,
  PAGE_TYPES,
} from "./markdown.ts";
import { isLivePage, pageToRecord } from "./_page.ts";

/**
 * Type identifier of {@linkcode WorkspaceConnector}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createConnectorRegistry, WORKSPACE_TYPE } from "@memo/connectors";
 * assert.equal(WORKSPACE_TYPE, "pages");
 * assert.ok(createConnectorRegistry().has(WORKSPACE_TYPE));
 * ```
 */
export const WORKSPACE_TYPE = "pages";

/**
 * Default depth of nested blocks read below a page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MAX_DEPTH, WorkspaceConnector } from "@memo/connectors";
 * assert.equal(DEFAULT_MAX_DEPTH, 3);
 * assert.equal(new WorkspaceConnector().maxDepth, DEFAULT_MAX_DEPTH);
 * ```
 */
export const DEFAULT_MAX_DEPTH = 3;

/**
 * Options of {@linkcode WorkspaceConnector}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkspaceConnector, type WorkspaceConnectorOptions } from "@memo/connectors";
 * // Search the workspace for pages titled "runbook", titles and labels only.
 * const options: WorkspaceConnectorOptions = {
 *   id: "runbooks",
 *   query: "runbook",
 *   includeContent: false,
 * };
 * const notion = new WorkspaceConnector(options);
 * assert.equal(notion.databaseId, undefined);
 * assert.equal(notion.query, "runbook");
 * ```
 */
export interface WorkspaceConnectorOptions {
  /**
   * Connector id.
   * @default "notion"
   */
  id?: string;
  /**
   * Internal integration secret (`secret_…` or `ntn_…`); white space and a pasted `Bearer ` are
   * dropped. The registry fills it from `MEMO_NOTION_TOKEN`, else `NOTION_TOKEN`.
   * @default undefined (a pass fails before any request)
   */
  token?: string;
  /**
   * Notion API base URL.
   * @default "https://api.notion.com"
   */
  apiUrl?: string;
  /**
   * `fetch` to use.
   * @default the pass's `fetch`, else `globalThis.fetch`
   */
  fetch?: FetchLike;
  /**
   * Database to query, with or without hyphens, or its URL. Without it the connector searches the
   * workspace for pages.
   * @default undefined (workspace search)
   */
  databaseId?: string;
  /**
   * Search text, matched against page titles (workspace search only).
   * @default "" (every page shared with the integration)
   */
  query?: string;
  /**
   * Read each page's blocks and turn them into the note's markdown.
   * @default true
   */
  includeContent?: boolean;
  /**
   * Levels of nested blocks read below a page, 1 to 10 (columns and synced blocks cost no level).
   * @default 3
   */
  maxDepth?: number;
}

/**
 * Reads Notion pages: the pages of a database, or every page a workspace search finds. Each page
 * becomes a record keyed `notion:page/<id>`, with its select and multi-select values as labels.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkspaceConnector } from "@memo/connectors";
 *
 * // Answers like api.notion.com: the database holds one page; its content is one paragraph.
 * const list = (results: unknown[]) =>
 *   Response.json({ object: "list", results, has_more: false, next_cursor: null });
 * const pageId = "5c6a2821-6bb1-4a7e-b6e1-c50111515c3d";
 * const answerLikeNotion = (url: Request | URL | string) =>
 *   Promise.resolve(
 *     String(url).includes("/children")
 *       ? list([{
 *         object: "block",
 *         id: "9b1f3c4e-2d5a-4f6b-8c7d-0e1f2a3b4c5d",
 *         type: "paragraph",
 *         paragraph: { rich_text: [{ plain_text: "Run make deploy." }] },
 *       }])
 *       : list([{
 *         object: "page",
 *         id: pageId,
 *         created_time: "2024-05-01T10:00:00.000Z",
 *         last_edited_time: "2024-05-02T09:30:00.000Z",
 *         properties: {
 *           Name: { type: "title", title: [{ plain_text: "Deploy runbook" }] },
 *           Status: { type: "select", select: { name: "Done" } },
 *         },
 *       }]),
 *   );
 * const notion = new WorkspaceConnector({
 *   databaseId: "0123456789abcdef0123456789abcdef",
 *   token: "ntn_example",
 *   fetch: answerLikeNotion,
 * });
 * assert.equal(notion.databaseId, "01234567-89ab-cdef-0123-456789abcdef");
 * const [record] = await notion.pull({});
 * assert.equal(record.source, `notion:page/${pageId}`);
 * assert.equal(record.title, "Deploy runbook");
 * assert.equal(record.text, "Run make deploy.");
 * assert.deepEqual(record.metadata.labels, ["Done"]);
 * ```
 */
export class WorkspaceConnector implements Connector {
  /** Connector id. */
  readonly id: string;
  /** Always `pages`. */
  readonly type: string = WORKSPACE_TYPE;
  /** What is read, for incremental state. */
  readonly scope: string;
  /** Notion API base URL, without a trailing slash. */
  readonly apiUrl: string;
  /** The database queried (hyphenated), or undefined for a workspace search. */
  readonly databaseId?: string;
  /** Search text. */
  readonly query: string;
  /** Whether page content is read. */
  readonly includeContent: boolean;
  /** Levels of nested blocks read. */
  readonly maxDepth: number;
  #token: string | undefined;
  #fetch: FetchLike | undefined;

  /** Checks the options; throws `ConnectorConfigError` on a bad database id, depth or URL. */
  constructor(options: WorkspaceConnectorOptions = {}) {
    this.id = checkConnectorId(options.id ?? "notion");
    this.apiUrl = resolveNotionUrl(options.apiUrl);
    if (options.databaseId !== undefined && String(options.databaseId).trim() !== "") {
      this.databaseId = normalizeNotionId(options.databaseId);
    }
    if (options.query !== undefined && typeof options.query !== "string") {
      throw new ConnectorConfigError("Cannot create Notion connector: query must be a string");
    }
    this.query = (options.query ?? "").trim();
    if (this.databaseId && this.query) {
      throw new ConnectorConfigError(
        "Cannot create Notion connector: give databaseId or query, not both",
      );
    }
    this.includeContent = options.includeContent ?? true;
    if (typeof this.includeContent !== "boolean") {
      throw new ConnectorConfigError(
        "Cannot create Notion connector: includeContent must be true or false",
      );
    }
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (!Number.isInteger(this.maxDepth) || this.maxDepth < 1 || this.maxDepth > 10) {
      throw new ConnectorConfigError(
        "Cannot create Notion connector: maxDepth must be an integer from 1 to 10",
      );
    }
    this.#token = options.token;
    this.#fetch = options.fetch;
    this.scope = [
      this.apiUrl,
      this.databaseId ? `database:${this.databaseId}` : `search:${this.query}`,
      this.includeContent ? `content:${this.maxDepth}` : "no-content",
    ].join(" ");
  }

  /** Reads every page (and its content); throws at the first failed request. */
  async pull(context: PullContext = {}): Promise<ConnectorRecord[]> {
    const call: NotionCallOptions = {
      apiUrl: this.apiUrl,
      token: normalizeNotionToken(this.#token),
      fetch: this.#fetch ?? context.fetch ?? globalThis.fetch,
      clock: context.clock ?? systemClock,
      signal: context.signal,
    };
    const host = hostOf(this.apiUrl);
    const byId = new Map<string, ConnectorRecord>();
    let requests = 0;
    const progress = () =>
      context.onProgress?.({
        connector: this.id,
        type: this.type,
        phase: "fetching",
        pages: requests,
        records: byId.size,
      });
    const source = this.databaseId ? `Notion database ${this.databaseId}` : "the Notion workspace";
    const trail = new CursorTrail((reason) =>
      new WorkspaceError(`Cannot read pages of ${source}: ${reason}`)
    );
    let cursor: string | undefined;
    let listPage = 0;
    while (true) {
      listPage++;
      const list = await notionList(
        call,
        this.#listRequest(cursor, context.since),
        this.databaseId
          ? `query Notion database ${this.databaseId} (page ${listPage}) at ${host}`
          : `search the Notion workspace (page ${listPage}) at ${host}`,
        this.databaseId
          ? "share the database with the integration (••• → Connections → add it)"
          : "share the pages with the integration (••• → Connections → add it)",
      );
      requests++;
      let reachedOld = false;
      for (const item of list.results) {
        if (!isLivePage(item)) continue;
        if (context.since !== undefined && isBefore(item.last_edited_time, context.since)) {
          // Sorted by last_edited_time, newest first: the rest is older still.
          reachedOld = true;
          break;
        }
        const id = item.id;
        const known = byId.get(id);
        if (known && known.updatedAt === item.last_edited_time) continue;
        let content = "";
        if (this.includeContent) {
          const tree = await this.#children(call, id, 1, host, () => {
            requests++;
            progress();
          });
          content = blocksToMarkdown(tree);
        }
        byId.set(id, pageToRecord(item, content));
      }
      progress();
      if (reachedOld) break;
      cursor = trail.next(list.has_more, list.next_cursor);
      if (cursor === undefined) break;
    }
    return [...byId.values()];
  }

  #listRequest(cursor: string | undefined, since: string | undefined) {
    const page = cursor === undefined
      ? { page_size: PAGE_SIZE }
      : { page_size: PAGE_SIZE, start_cursor: cursor };
    if (this.databaseId) {
      // Notion rounds last_edited_time to the minute: asking for "on or after"
      // the stored minute re-reads that minute, and dedupe by hash skips what
      // did not change, so no edit within the minute is lost.
      const filter = since === undefined
        ? {}
        : { filter: { timestamp: "last_edited_time", last_edited_time: { on_or_after: since } } };
      return {
        method: "POST" as const,
        path: `/v1/databases/${this.databaseId}/query`,
        body: {
          ...filter,
          sorts: [{ timestamp: "last_edited_time", direction: "descending" }],
          ...page,
        },
      };
    }
    return {
      method: "POST" as const,
      path: "/v1/search",
      body: {
        ...(this.query ? { query: this.query } : {}),
        filter: { property: "object", value: "page" },
        sort: { direction: "descending", timestamp: "last_edited_time" },
        ...page,
      },
    };
  }

  /** Reads a block's children (all pages of them), recursing down to maxDepth. */
  async #children(
    call: NotionCallOptions,
    blockId: string,
    depth: number,
    host: string,
    answered: () => void,
  ): Promise<BlockNode[]> {
    const trail = new CursorTrail((reason) =>
      new WorkspaceError(`Cannot read the content of Notion block ${blockId}: ${reason}`)
    );
    const nodes: BlockNode[] = [];
    let cursor: string | undefined;
    let page = 0;
    while (true) {
      page++;
      const query = `page_size=${PAGE_SIZE}` +
        (cursor === undefined ? "" : `&start_cursor=${encodeURIComponent(cursor)}`);
      const list = await notionList(
        call,
        { method: "GET", path: `/v1/blocks/${blockId}/children?${query}` },
        `read the content of Notion block ${blockId} (page ${page}) at ${host}`,
        "share the page with the integration (••• → Connections → add it)",
      );
      answered();
      for (const raw of list.results) {
        if (!raw || typeof raw !== "object") continue;
        const block = raw as NotionBlock;
        if (typeof block.id !== "string" || typeof block.type !== "string") continue;
        if (block.in_trash === true || block.archived === true) continue;
        nodes.push({ block, children: [] });
      }
      cursor = trail.next(list.has_more, list.next_cursor);
      if (cursor === undefined) break;
    }
    for (const node of nodes) {
      const { block } = node;
      if (!block.has_children || PAGE_TYPES.has(block.type)) continue;
      const container = CONTAINER_TYPES.has(block.type);
      if (!container && depth >= this.maxDepth) continue;
      const target = syncedSource(block) ?? block.id;
      node.children = await this.#children(
        call,
        target,
        container ? depth : depth + 1,
        host,
        answered,
      );
    }
    return nodes;
  }
}

/** The original of a duplicate synced block, whose children hold the content. */
function syncedSource(block: NotionBlock): string | undefined {
  if (block.type !== "synced_block") return undefined;
  const from = (block.synced_block as { synced_from?: { block_id?: unknown } | null } | undefined)
    ?.synced_from;
  return typeof from?.block_id === "string" ? from.block_id : undefined;
}

function resolveNotionUrl(apiUrl: string | undefined): string {
  if (apiUrl === undefined || String(apiUrl).trim() === "") return NOTION_API_URL;
  const url = checkApiUrl(apiUrl, "the Notion", (m) => new ConnectorConfigError(m));
  return url.href.replace(/\/+$/, "").replace(/\/v1$/i, "");
}
