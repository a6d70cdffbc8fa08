/**
 * Internal: the shared components of the Cloud API's OpenAPI document: its
 * responses, parameters and headers (`document.ts` assembles the document;
 * `_schemas.ts` holds the schemas, `_paths.ts` the routes).
 *
 * @module
 */

import { ID_PATTERN, type Json, ref, type Schema } from "./_schemas.ts";

/** The media type of every body. */
export const JSON_TYPE = "application/json";
/** A JSON body of `schema`. */
export const content = (schema: Schema): Json => ({ [JSON_TYPE]: { schema } });

const errorResponse = (description: string, headers?: Record<string, Json>): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: content(ref("Error")),
});

const REPLAYED: Record<string, Json> = {
  "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" },
};

/**
 * The shared responses of the document (`#/components/responses`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { responses } from "./_components.ts";
 *
 * assert.ok("Unauthorized" in responses);
 * ```
 */
export const responses: Record<string, Json> = {
  InvalidRequest: errorResponse(
    "`invalid_request`: malformed JSON, an unknown or ill-typed field or query parameter, a bad id, cursor or token, a missing `Idempotency-Key`, or a key reused for another request.",
  ),
  Unauthorized: errorResponse("`unauthorized`: no API key, or not a valid one.", {
    "WWW-Authenticate": {
      description: "Always `Bearer`.",
      schema: { type: "string", const: "Bearer" },
    },
  }),
  Forbidden: errorResponse(
    "`forbidden`: the path names a workspace that is not the key's, or the key is an operator key (they read `GET /v1/stats` only).",
  ),
  OperatorForbidden: errorResponse(
    "`forbidden`: a workspace key; the instance's figures need an operator key.",
  ),
  WriteInvalidRequest: errorResponse(
    "`invalid_request`, as for any request, and a write holding a secret under `MEMO_CLOUD_SECRETS=refuse` (`details.secrets`: `[{rule, field, index?}]`, never a value; nothing is written). A 400 the store gave (a draft or patch it refused) is kept with the `Idempotency-Key`: a repeat gets it again with `Idempotent-Replayed: true`.",
    REPLAYED,
  ),
  NotFound: errorResponse("`not_found`: no such note (or no such route)."),
  WriteNotFound: errorResponse(
    "`not_found`: no such note. Kept with the `Idempotency-Key`: a repeat gets it again with `Idempotent-Replayed: true`.",
    REPLAYED,
  ),
  Conflict: errorResponse(
    "`conflict`: `If-Match` names a revision the note has moved on from (`details.note` is the current note; kept with the `Idempotency-Key`, so a repeat gets it again with `Idempotent-Replayed: true`), or a request with the same `Idempotency-Key` is still running (`details.reason` is `in_progress`).",
    REPLAYED,
  ),
  PayloadTooLarge: errorResponse(
    "`payload_too_large`: the body passes the limit (`MEMO_CLOUD_MAX_BODY_BYTES`, default 1 MiB; 16 MiB for `notes:batch` and `notes:batchDelete`).",
  ),
  RateLimited: errorResponse(
    "`rate_limited`: more requests per second with this key than `MEMO_CLOUD_RATE_LIMIT`, counted across every instance (PostgreSQL store) or on this one (file store).",
    {
      "Retry-After": {
        description: "Seconds to wait, at least 1.",
        schema: { type: "integer", minimum: 1 },
      },
      "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
      RateLimit: { $ref: "#/components/headers/RateLimit" },
    },
  ),
  Internal: errorResponse(
    "`internal`: the server failed; the cause is in its log, never in the answer.",
  ),
};

/** The shared parameters of the document (`#/components/parameters`). */
export const parameters: Record<string, Json> = {
  workspaceId: {
    name: "workspaceId",
    in: "path",
    required: true,
    description: "The workspace: it must be the API key's (else 403).",
    schema: { type: "string", pattern: ID_PATTERN },
  },
  projectId: {
    name: "projectId",
    in: "path",
    required: true,
    description: "The project. Projects exist implicitly: one never written is empty.",
    schema: { type: "string", pattern: ID_PATTERN },
  },
  noteId: {
    name: "noteId",
    in: "path",
    required: true,
    description: "The note id (an id that cannot exist answers 404).",
    schema: { type: "string" },
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: true,
    description:
      "Makes the write safe to retry: a repeat within 24 h gets the first answer (with `Idempotent-Replayed: true`).",
    schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" },
  },
  IfMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    description:
      'The revision the change is based on, plain (`12`) or quoted (`"12"`); 409 when the note has moved on.',
    schema: { type: "string", pattern: '^(?:[0-9]+|"[0-9]+")$' },
  },
};

/** The shared headers of the document (`#/components/headers`). */
export const headers: Record<string, Json> = {
  IdempotentReplayed: {
    description: "`true` when this is the kept answer of an earlier request with the same key.",
    schema: { type: "string", const: "true" },
  },
  RateLimitPolicy: {
    description:
      'The rate limit (IETF HTTPAPI draft "RateLimit header fields for HTTP"): `"default";q=<MEMO_CLOUD_RATE_LIMIT>;w=1`, requests per one-second window per API key. Absent when the limit is off.',
    required: false,
    schema: { type: "string", pattern: '^"default";q=[0-9]+;w=1$' },
  },
  RateLimit: {
    description:
      'What is left of the window: `"default";r=<requests left>;t=<seconds until the window resets>`. Absent when the limit is off.',
    required: false,
    schema: { type: "string", pattern: '^"default";r=[0-9]+;t=[0-9]+$' },
  },
};
