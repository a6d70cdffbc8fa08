/**
 * A fake Notion API for the connector tests and the benchmark: database
 * query, search and block children, answered with objects typed by
 * `@notionhq/client` (see `tests/fixtures/notion/objects.ts`), Notion's error
 * bodies (`tests/fixtures/notion/errors.json`), and a fault at a chosen
 * request. It pages as Notion does: `page_size` results (100 when not given,
 * never more than 100; a `page_size` that is not a whole number from 1 is a
 * `validation_error`), `start_cursor` in, `has_more` and `next_cursor` out;
 * and, when told, fewer results than asked for (as Notion may).
 *
 * @module
 */

import {
  type BlockObjectResponse,
  childrenAnswer,
  type DatabaseObjectResponse,
  type PageObjectResponse,
  queryAnswer,
  searchAnswer,
} from "./fixtures/notion/objects.ts";
import {
  type Fault,
  type FaultOptions,
  fixtureText,
  hang,
  resetAnswer,
  serve,
  type TestServer,
} from "./connectors_helpers.ts";

/** The most results Notion sends in one list answer, whatever `page_size` asks. */
export const NOTION_MAX_PAGE_SIZE = 100;

/** What the fake holds. */
export interface NotionModel {
  /** Database id (hyphenated) → its pages. */
  databases: Map<string, PageObjectResponse[]>;
  /** Objects a search finds (pages and databases). */
  searchable: (PageObjectResponse | DatabaseObjectResponse)[];
  /** Block id (or page id) → its children. */
  children: Map<string, BlockObjectResponse[]>;
  /** Databases that answer like a multi-source database under 2022-06-28. */
  multiSource?: Set<string>;
}

/** A request the fake received. */
export interface NotionRequest {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

/** The running fake. */
export interface FakeNotion extends TestServer {
  requests: NotionRequest[];
  model: NotionModel;
  /**
   * Injects `fault` at request number `at` (1-based, counted from the last
   * `reset`). `retryAfter` replaces the `retry-after` header of a rate-limit
   * fault (seconds or an HTTP date).
   */
  setFault(fault: Fault | undefined, at?: number, options?: FaultOptions): void;
  /** Clears the request log and the fault. */
  reset(): void;
}

interface Options {
  token: string;
  /**
   * At most this many results per query or search answer, fewer than the
   * client asked for (as Notion may send).
   * @default no limit beyond Notion's (`page_size`, at most 100)
   */
  listPageSize?: number;
  /**
   * At most this many blocks per children answer, fewer than the client
   * asked for.
   * @default no limit beyond Notion's (`page_size`, at most 100)
   */
  blockPageSize?: number;
  onHang?: () => void;
  /** Keep no request log, and sort each database once (the benchmark's static model). */
  quiet?: boolean;
  /** Milliseconds to wait before each answer (network latency). @default 0 */
  latencyMs?: number;
}

/** Starts the fake Notion API. */
export function startFakeNotion(model: NotionModel, options: Options): FakeNotion {
  const errors: Record<string, unknown> = {};
  const state = {
    requests: [] as NotionRequest[],
    count: 0,
    fault: undefined as Fault | undefined,
    at: 0,
    retryAfter: undefined as string | undefined,
    repeat: new Map<string, string>(),
  };
  const sortedCache = new Map<string, PageObjectResponse[]>();
  const errorsReady = fixtureText("notion/errors.json").then((t) =>
    Object.assign(errors, JSON.parse(t))
  );
  const headers = {
    "content-type": "application/json; charset=utf-8",
    "x-notion-request-id": "fake",
  };
  const error = (name: string, extra: Record<string, string> = {}) => {
    const body = errors[name] as { status: number };
    return new Response(JSON.stringify(body), {
      status: body.status,
      headers: { ...headers, ...extra },
    });
  };
  const ok = (value: unknown) => new Response(JSON.stringify(value), { status: 200, headers });

  /** Notion's `page_size`: 100 when absent, capped at 100; undefined when it is not 1 or more. */
  const pageSizeOf = (raw: unknown): number | undefined => {
    if (raw === undefined || raw === null) return NOTION_MAX_PAGE_SIZE;
    const n = typeof raw === "number" || typeof raw === "string" ? Number(raw) : NaN;
    return Number.isInteger(n) && n >= 1 ? Math.min(n, NOTION_MAX_PAGE_SIZE) : undefined;
  };
  const badPageSize = (where: string, raw: unknown) =>
    new Response(
      JSON.stringify({
        object: "error",
        status: 400,
        code: "validation_error",
        message:
          `${where} failed validation: ${where}.page_size should be a number, instead was \`${
            JSON.stringify(raw)
          }\`.`,
      }),
      { status: 400, headers },
    );

  /** Pages a list by cursor (the id of the first item of the next page, as Notion's cursors). */
  function pageOf<T extends { id: string }>(
    items: T[],
    cursor: string | undefined,
    size: number,
    fault: Fault | undefined,
    key: string,
  ) {
    if (cursor !== undefined && state.repeat.get(key) === cursor) {
      // The cursor handed out by a "cursor-repeat" fault: hand it out again.
      state.repeat.delete(key);
      return { slice: [] as T[], next: cursor as string | null, more: true };
    }
    let start = 0;
    if (cursor !== undefined) {
      start = items.findIndex((i) => i.id === cursor);
      if (start < 0) return undefined;
    }
    const slice = items.slice(start, start + size);
    let next: string | null = start + size < items.length ? items[start + size].id : null;
    let more = next !== null;
    if (fault === "cursor-repeat") {
      more = true;
      if (cursor !== undefined) next = cursor;
      else {
        next = items[Math.min(start + size, items.length - 1)]?.id ??
          "0c4e2f5a-0000-4000-8000-000000000000";
        state.repeat.set(key, next);
      }
    } else if (fault === "cursor-null") {
      more = true;
      next = null;
    }
    return { slice, next, more };
  }

  const server = serve(async (request) => {
    await errorsReady;
    const url = new URL(request.url);
    let body: Record<string, unknown> | undefined;
    if (request.method === "POST") {
      try {
        body = await request.json();
      } catch {
        return new Response(
          JSON.stringify({
            object: "error",
            status: 400,
            code: "invalid_json",
            message: "Error parsing JSON body.",
          }),
          { status: 400, headers },
        );
      }
    }
    state.count++;
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    if (!options.quiet) {
      state.requests.push({
        method: request.method,
        path: url.pathname,
        search: url.search,
        headers: Object.fromEntries(request.headers),
        body,
      });
    }
    if (request.headers.get("authorization") !== `Bearer ${options.token}`) {
      return error("unauthorized");
    }
    if (request.headers.get("notion-version") !== "2022-06-28") {
      return new Response(
        JSON.stringify({
          object: "error",
          status: 400,
          code: "missing_version",
          message: "Notion-Version header failed validation.",
        }),
        { status: 400, headers },
      );
    }
    const fault = state.count === state.at ? state.fault : undefined;
    switch (fault) {
      case "401":
        return error("unauthorized");
      case "403":
        return error("restricted_resource");
      case "429":
      case "rate-limited":
        return error("rate_limited", { "retry-after": state.retryAfter ?? "17" });
      case "500":
      case "field-error": // GitHub's partial answer; Notion has none, so its plain failure
        return error("internal_server_error");
      case "html-502":
        return new Response(await fixtureText("notion/bad_gateway.html"), {
          status: 502,
          headers: { "content-type": "text/html" },
        });
      case "timeout":
        return await hang(request, options.onHang);
      case "reset":
        return resetAnswer();
    }
    const asked = pageSizeOf(body?.page_size);
    if (request.method === "POST" && asked === undefined) {
      return badPageSize("body", body?.page_size);
    }
    const listSize = Math.min(asked ?? NOTION_MAX_PAGE_SIZE, options.listPageSize ?? Infinity);
    const cursor = typeof body?.start_cursor === "string" ? body.start_cursor : undefined;
    let m: RegExpExecArray | null;
    if (
      request.method === "POST" &&
      (m = /^\/v1\/databases\/([0-9a-f-]{32,36})\/query$/.exec(url.pathname))
    ) {
      const id = m[1];
      if (model.multiSource?.has(id)) return error("multiple_data_sources");
      const pages = model.databases.get(id);
      if (!pages) return error("object_not_found");
      const filter = body?.filter as {
        timestamp?: string;
        last_edited_time?: { on_or_after?: string };
      } | undefined;
      const since = filter?.timestamp === "last_edited_time"
        ? filter.last_edited_time?.on_or_after
        : undefined;
      const cacheKey = `${id} ${since}`;
      const sorted = (options.quiet ? sortedCache.get(cacheKey) : undefined) ?? pages
        .filter((p) => since === undefined || Date.parse(p.last_edited_time) >= Date.parse(since))
        .sort((a, b) =>
          b.last_edited_time.localeCompare(a.last_edited_time) || a.id.localeCompare(b.id)
        );
      if (options.quiet) sortedCache.set(cacheKey, sorted);
      const p = pageOf(sorted, cursor, listSize, fault, `db:${id}`);
      return p ? ok(queryAnswer(p.slice, p.next, p.more)) : error("invalid_cursor");
    }
    if (request.method === "POST" && url.pathname === "/v1/search") {
      const query = typeof body?.query === "string" ? body.query.toLowerCase() : "";
      const filterValue = (body?.filter as { value?: string } | undefined)?.value;
      const found = model.searchable
        .filter((o) => !filterValue || o.object === filterValue)
        .filter((o) =>
          !query ||
          JSON.stringify(o.object === "page" ? o.properties : o.title).toLowerCase().includes(query)
        )
        .sort((a, b) =>
          b.last_edited_time.localeCompare(a.last_edited_time) || a.id.localeCompare(b.id)
        );
      const p = pageOf(found, cursor, listSize, fault, "search");
      return p ? ok(searchAnswer(p.slice, p.next, p.more)) : error("invalid_cursor");
    }
    if (
      request.method === "GET" &&
      (m = /^\/v1\/blocks\/([0-9a-f-]{32,36})\/children$/.exec(url.pathname))
    ) {
      const kids = model.children.get(m[1]);
      if (!kids) return error("object_not_found");
      const raw = url.searchParams.get("page_size");
      const askedBlocks = pageSizeOf(raw);
      if (askedBlocks === undefined) return badPageSize("query", raw);
      const size = Math.min(askedBlocks, options.blockPageSize ?? Infinity);
      const c = url.searchParams.get("start_cursor") ?? undefined;
      const p = pageOf(kids, c, size, fault, `blocks:${m[1]}`);
      return p ? ok(childrenAnswer(p.slice, p.next, p.more)) : error("invalid_cursor");
    }
    return new Response(
      JSON.stringify({
        object: "error",
        status: 400,
        code: "invalid_request_url",
        message: "Invalid request URL.",
      }),
      { status: 400, headers },
    );
  });

  return {
    ...server,
    requests: state.requests,
    model,
    setFault(fault, at = 1, faultOptions = {}) {
      state.fault = fault;
      state.at = at;
      state.retryAfter = faultOptions.retryAfter;
    },
    reset() {
      state.requests.length = 0;
      state.count = 0;
      state.fault = undefined;
      state.at = 0;
      state.retryAfter = undefined;
      state.repeat.clear();
    },
  };
}
