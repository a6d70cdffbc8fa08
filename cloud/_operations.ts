/**
 * Internal: what each route of the Cloud API does once the request is authenticated, in its
 * workspace and within the rate limit: the reads ({@linkcode readOperation}), the writes
 * ({@linkcode prepareWrite}, run under the request's `Idempotency-Key`) and the answers of the
 * errors the store or the input raise ({@linkcode answerOfError}).
 *
 * @module
 */

import { CLOUD_ID_PATTERN } from "./_auth.ts";
import { CloudApiError, errorText } from "./errors.ts";
import { ifMatchOf } from "./fields/headers.ts";
import {
  batchDeleteInput,
  batchInput,
  createNoteInput,
  patchInput,
  recallInput,
} from "./fields/note_inputs.ts";
import { changesQuery, listQuery, noQuery } from "./fields/query.ts";
import type { CloudRoute } from "./_routes.ts";
import { guardCloudDrafts, guardCloudPatch } from "./_secrets.ts";
import { correctInput, supersedeInput, tidyPlanInput } from "./fields/history.ts";
import type { NoteDraft, SecretsPolicy } from "@memo/memory";
import type { CloudNote, CloudProject, IdempotentAnswer } from "./store.ts";

/** What an operation answers: a status and a JSON body. */
export interface Answer {
  status: number;
  body: unknown;
}

function quoteId(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

function noteNotFound(id: string): CloudApiError {
  return new CloudApiError("not_found", `Cannot find note ${quoteId(id)}`, {
    details: { id: id.slice(0, 80) },
  });
}

/** The answer of an error the store or the input raised, or `undefined` for a failure. */
export function answerOfError(error: unknown): IdempotentAnswer | undefined {
  if (error instanceof CloudApiError) {
    return { status: error.status, body: errorText(error.code, error.message, error.details) };
  }
  const e = error as { name?: unknown; code?: unknown; message?: unknown; details?: unknown };
  if (
    e?.name === "CloudConflictError" && typeof (e as { current?: unknown }).current === "object"
  ) {
    const current = (e as { current: CloudNote }).current;
    return {
      status: 409,
      body: errorText("conflict", String(e.message), { note: current }),
    };
  }
  if (e?.code === "MEMORY_VALIDATION_ERROR") {
    const details = e.details && typeof e.details === "object"
      ? e.details as Record<string, unknown>
      : undefined;
    return { status: 400, body: errorText("invalid_request", String(e.message), details) };
  }
  if (e?.code === "NOTE_NOT_FOUND") {
    const details = e.details && typeof e.details === "object"
      ? e.details as Record<string, unknown>
      : undefined;
    return { status: 404, body: errorText("not_found", String(e.message), details) };
  }
  return undefined;
}

/** Runs a read route. */
export async function readOperation(
  route: CloudRoute,
  url: URL,
  body: Record<string, unknown>,
  noteId: string | undefined,
  project: () => Promise<CloudProject>,
): Promise<Answer> {
  const query = url.searchParams;
  switch (route.operation) {
    case "listNotes": {
      const list = listQuery(query);
      const p = await project();
      try {
        return { status: 200, body: await p.list(list) };
      } catch (e) {
        // The one input the store checks itself: name it.
        const error = e as { code?: unknown; message?: unknown };
        if (list.cursor !== undefined && error?.code === "MEMORY_VALIDATION_ERROR") {
          throw new CloudApiError("invalid_request", String(error.message), {
            details: { parameter: "cursor" },
          });
        }
        throw e;
      }
    }
    case "getNote": {
      noQuery(query, "get the note");
      if (!CLOUD_ID_PATTERN.test(noteId!)) throw noteNotFound(noteId!);
      const note = await (await project()).get(noteId!);
      if (!note) throw noteNotFound(noteId!);
      return { status: 200, body: { note } };
    }
    case "recall": {
      noQuery(query, "recall");
      const { query: text, ...rest } = recallInput(body);
      const hits = await (await project()).recall(text, rest);
      return { status: 200, body: { hits } };
    }
    case "listChanges": {
      const { since, token, limit } = changesQuery(query);
      const p = await project();
      if (since > 0) {
        // A token past the feed's end (another server's or project's) would skip changes.
        const latest = await p.revision();
        if (since > latest) {
          throw new CloudApiError(
            "invalid_request",
            `Cannot read the changes: since is ahead of the feed, whose latest change is ${latest}; pass the "next" of an earlier answer of this project`,
            { details: { parameter: "since" } },
          );
        }
      }
      const { changes, hasMore } = await p.changes(since, limit);
      const next = changes.length ? String(changes[changes.length - 1].seq) : token;
      return { status: 200, body: { changes, next, hasMore } };
    }
    case "getStats": {
      noQuery(query, "count the notes");
      return { status: 200, body: await (await project()).stats() };
    }
    case "tidyNotes": {
      noQuery(query, "tidy the notes");
      return { status: 200, body: await (await project()).tidy() };
    }
    default:
      throw new Error(`Cannot route ${route.operation}: not a read`);
  }
}

/** A write whose answer is a 200 with what `run` returns. */
function ok200(action: string, run: () => Promise<unknown>) {
  return { action, run: async () => ({ status: 200, body: await run() }) };
}

/**
 * A write of `drafts` after the secrets guard: `write` stores what the guard let through and gives
 * the answer, whose body lists what the guard replaced (`redacted`) when it replaced anything.
 */
function guardedWrite<D extends NoteDraft>(
  action: string,
  drafts: D[],
  secrets: SecretsPolicy,
  write: (drafts: D[]) => Promise<{ status: number; body: object }>,
) {
  return {
    action,
    run: async (): Promise<Answer> => {
      const guarded = await guardCloudDrafts(drafts, secrets, action);
      const { status, body } = await write(guarded.drafts);
      return {
        status,
        body: guarded.redacted.length ? { ...body, redacted: guarded.redacted } : body,
      };
    },
  };
}

/**
 * Checks a write route's input; `run` does the write, after the secrets guard (`secrets`:
 * `MEMO_CLOUD_SECRETS`) over what it writes.
 */
export function prepareWrite(
  route: CloudRoute,
  url: URL,
  body: Record<string, unknown>,
  noteId: string | undefined,
  headers: Headers,
  project: () => Promise<CloudProject>,
  secrets: SecretsPolicy,
): { action: string; ifMatch?: number; run: () => Promise<Answer> } {
  const query = url.searchParams;
  switch (route.operation) {
    case "createNote": {
      const action = "create the note";
      noQuery(query, action);
      return guardedWrite(action, [createNoteInput(body)], secrets, async ([draft]) => {
        const result = await (await project()).remember(draft);
        return { status: result.status === "written" ? 201 : 200, body: result };
      });
    }
    case "upsertNotes": {
      const action = "upsert the notes";
      noQuery(query, action);
      return guardedWrite(action, batchInput(body), secrets, async (drafts) => {
        const results = await (await project()).upsert(drafts);
        const count = (status: string) => results.filter((r) => r.status === status).length;
        return {
          status: 200,
          body: {
            results,
            written: count("written"),
            updated: count("updated"),
            unchanged: count("unchanged"),
          },
        };
      });
    }
    case "correctNote": {
      const action = "correct the note";
      noQuery(query, action);
      // The guard reads the new text, title and labels, as a new note's (the ids and date hold no
      // text).
      return guardedWrite(action, [correctInput(body)], secrets, async ([input]) => ({
        status: 200,
        body: await (await project()).correct(input),
      }));
    }
    case "supersedeNotes": {
      noQuery(query, "supersede the notes");
      const input = supersedeInput(body);
      return ok200("supersede the notes", async () => await (await project()).supersede(input));
    }
    case "applyTidy": {
      noQuery(query, "apply the tidy plan");
      const plan = tidyPlanInput(body);
      return ok200("apply the tidy plan", async () => await (await project()).applyTidy(plan));
    }
    case "updateNote":
    case "deleteNote": {
      const action = route.operation === "updateNote" ? "update the note" : "delete the note";
      noQuery(query, action);
      const patch = route.operation === "updateNote" ? patchInput(body) : undefined;
      const ifMatch = ifMatchOf(headers, action);
      return {
        action,
        ifMatch,
        run: async () => {
          // An id that cannot be one is answered as an unknown one: by the store, after the
          // request's Idempotency-Key and If-Match are checked (docs/cloud-api.md, order of checks).
          if (!CLOUD_ID_PATTERN.test(noteId!)) throw noteNotFound(noteId!);
          const p = await project();
          const guarded = patch ? await guardCloudPatch(patch, secrets) : undefined;
          const note = guarded
            ? await p.update(noteId!, guarded.patch, ifMatch)
            : await p.remove(noteId!, ifMatch);
          if (!note) throw noteNotFound(noteId!);
          const redacted = guarded?.redacted ?? [];
          return { status: 200, body: redacted.length ? { note, redacted } : { note } };
        },
      };
    }
    case "deleteNotes": {
      const action = "delete the notes";
      noQuery(query, action);
      const selector = batchDeleteInput(body);
      return {
        action,
        run: async () => ({ status: 200, body: await (await project()).removeMany(selector) }),
      };
    }
    default:
      throw new Error(`Cannot route ${route.operation}: not a write`);
  }
}
