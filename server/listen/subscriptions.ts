/**
 * Change notifications for memory: what a `subscriptions/listen` filter (2026-07-28) or a session's
 * `resources/subscribe` asks for, what memo agrees to, and which notifications a change of the
 * notes sends.
 *
 * memo's tools and prompts never change while it runs, so it never sends `tools/list_changed` or
 * `prompts/list_changed` and leaves them out of an acknowledgement. It watches `notes.md` (through
 * the runtime's `watch`), so it honours `resourcesListChanged` and `resourceSubscriptions` for
 * `memo://stats` and `memo://notes/{id}`.
 *
 * @module
 */

import type { RuntimeChange } from "../../runtimes/types.ts";
import { noteIdOf, noteUri, STATS_URI } from "../catalog/resources.ts";
import { isObject } from "../protocol/stateless.ts";

/** The `notifications` filter of `subscriptions/listen`. */
export interface SubscriptionFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
}

/** Most URIs one listen may subscribe to. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 1000;

/**
 * Reads the `notifications` filter of a `subscriptions/listen` request; returns the reason it is
 * malformed, or the filter.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFilter } from "./subscriptions.ts";
 *
 * assert.deepEqual(parseFilter({ notifications: { resourcesListChanged: true } }), {
 *   resourcesListChanged: true,
 * });
 * assert.equal(typeof parseFilter({}), "string");
 * ```
 */
export function parseFilter(params: Record<string, unknown>): SubscriptionFilter | string {
  const n = params.notifications;
  if (!isObject(n)) return "params.notifications must be an object";
  const filter: SubscriptionFilter = {};
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const) {
    const v = n[key];
    if (v === undefined) continue;
    if (typeof v !== "boolean") return `params.notifications.${key} must be a boolean`;
    filter[key] = v;
  }
  const uris = n.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || uris.some((u) => typeof u !== "string")) {
      return "params.notifications.resourceSubscriptions must be a list of URIs";
    }
    if (uris.length > MAX_RESOURCE_SUBSCRIPTIONS) {
      return `params.notifications.resourceSubscriptions holds more than ${MAX_RESOURCE_SUBSCRIPTIONS} URIs`;
    }
    filter.resourceSubscriptions = uris as string[];
  }
  return filter;
}

/** Whether memo can send `notifications/resources/updated` for `uri`. */
export function isWatchableUri(uri: string): boolean {
  return uri === STATS_URI || noteIdOf(uri) !== undefined;
}

/**
 * The part of a filter memo honours: resource changes, when the runtime can watch; never tool or
 * prompt list changes (they do not change).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { acknowledgedFilter } from "./subscriptions.ts";
 *
 * const asked = {
 *   toolsListChanged: true,
 *   resourcesListChanged: true,
 *   resourceSubscriptions: ["memo://stats", "file:///etc/passwd"],
 * };
 * assert.deepEqual(acknowledgedFilter(asked, true), {
 *   resourcesListChanged: true,
 *   resourceSubscriptions: ["memo://stats"],
 * });
 * assert.deepEqual(acknowledgedFilter(asked, false), {});
 * ```
 */
export function acknowledgedFilter(
  requested: SubscriptionFilter,
  canWatch: boolean,
): SubscriptionFilter {
  const ack: SubscriptionFilter = {};
  if (!canWatch) return ack;
  if (requested.resourcesListChanged) ack.resourcesListChanged = true;
  const uris = requested.resourceSubscriptions?.filter(isWatchableUri);
  if (uris?.length) ack.resourceSubscriptions = [...new Set(uris)];
  return ack;
}

/** One notification a change sends: its method and, for an update, the URI. */
export interface ChangeNotification {
  /** `notifications/resources/list_changed` or `notifications/resources/updated`. */
  method: string;
  uri?: string;
}

/**
 * The notifications a change of the notes sends under an acknowledged filter: `list_changed` when
 * notes were added or removed, `updated` for `memo://stats` on any change, and for each subscribed
 * note that changed (every subscribed note when the change does not say which).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notificationsFor } from "./subscriptions.ts";
 *
 * const filter = {
 *   resourcesListChanged: true,
 *   resourceSubscriptions: ["memo://stats", "memo://notes/a1", "memo://notes/b2"],
 * };
 * assert.deepEqual(notificationsFor({ ids: ["a1"], listChanged: false }, filter), [
 *   { method: "notifications/resources/updated", uri: "memo://stats" },
 *   { method: "notifications/resources/updated", uri: "memo://notes/a1" },
 * ]);
 * assert.equal(notificationsFor({ ids: ["c3"], listChanged: true }, filter)[0].method,
 *   "notifications/resources/list_changed");
 * const odd = { resourceSubscriptions: ["memo://notes/%61%31"] }; // a1, encoded
 * assert.deepEqual(notificationsFor({ ids: ["a1"], listChanged: false }, odd), [
 *   { method: "notifications/resources/updated", uri: "memo://notes/%61%31" },
 * ]);
 * ```
 */
export function notificationsFor(
  change: RuntimeChange,
  filter: SubscriptionFilter,
): ChangeNotification[] {
  const out: ChangeNotification[] = [];
  if (filter.resourcesListChanged && change.listChanged) {
    out.push({ method: "notifications/resources/list_changed" });
  }
  const uris = filter.resourceSubscriptions;
  if (!uris?.length) return out;
  const changed = change.ids.length ? new Set(change.ids.map(noteUri)) : undefined;
  for (const uri of uris) {
    // A note's URI is matched by its id, however the client encoded it; the notification names
    // the URI as the client subscribed to it.
    if (uri === STATS_URI || changed === undefined || changed.has(canonicalUri(uri))) {
      out.push({ method: "notifications/resources/updated", uri });
    }
  }
  return out;
}

/**
 * A note's URI as memo writes it (its id encoded once); any other URI as it is. Two URIs that name
 * one note, however encoded, have the same canonical URI.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalUri } from "./subscriptions.ts";
 *
 * assert.equal(canonicalUri("memo://notes/%6E000002"), canonicalUri("memo://notes/n000002"));
 * assert.equal(canonicalUri("memo://stats"), "memo://stats");
 * ```
 */
export function canonicalUri(uri: string): string {
  const id = noteIdOf(uri);
  return id === undefined ? uri : noteUri(id);
}
