/**
 * Change notifications: what a subscription asks for, which notifications a change of the notes
 * sends, and the open `subscriptions/listen` streams of the stateless era.
 *
 * @module
 */

export * from "./subscriptions.ts";
export * from "./listen_streams.ts";
