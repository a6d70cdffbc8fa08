/**
 * The shapes between the cloud runtime and the Cloud API: notes without
 * their `revision`, drafts, the redactions of both sides, and stats.
 *
 * @module
 */

import type { ConnectorDraft } from "@memo/connectors";
import type { MemoCloudBatchResult, MemoCloudNote } from "./client.ts";
import type { MemoCloudStats } from "./client_types.ts";
import type { MemoStats, Note, SecretRedaction, SecretsPolicy } from "../types.ts";

/** The runtime's note: the cloud note without its `revision`, as the local runtime returns it. */
export function plain(note: MemoCloudNote): Note {
  const { revision: _revision, ...rest } = note;
  return rest;
}

/** What this side's guard and the server's replaced, each once (undefined when neither did). */
export function mergeRedacted(
  mine: SecretRedaction[],
  theirs: SecretRedaction[] | undefined,
): SecretRedaction[] | undefined {
  const out = [...mine];
  for (const r of theirs ?? []) {
    if (!out.some((m) => m.rule === r.rule && m.field === r.field && m.index === r.index)) {
      out.push(r);
    }
  }
  return out.length ? out : undefined;
}

/** The fields of a draft that the Cloud API takes. */
export function draftOf(draft: ConnectorDraft) {
  return {
    text: draft.text,
    title: draft.title,
    labels: draft.labels,
    source: draft.source,
    created: draft.created,
    updated: draft.updated,
  };
}

/** A batch's notes by status, without their `revision`. */
export function byStatus(
  result: MemoCloudBatchResult,
): Record<"written" | "updated" | "unchanged", Note[]> {
  const of = (status: string) =>
    result.results.filter((r) => r.status === status).map((r) => plain(r.note));
  return { written: of("written"), updated: of("updated"), unchanged: of("unchanged") };
}

/** The runtime's stats from the Cloud API's (lexical recall only, no embeddings, no issues). */
export function statsOf(s: MemoCloudStats, policy: SecretsPolicy): MemoStats {
  return {
    notes: s.notes,
    labels: s.labels ?? {},
    sources: s.sources ?? {},
    ...(s.lastUpdated !== undefined ? { lastUpdated: s.lastUpdated } : {}),
    engine: { default: "lexical", auto: "lexical" },
    embeddings: { model: "none", ready: false, embedded: 0, total: s.notes, state: "off" },
    issues: [],
    secrets: { policy },
  };
}
