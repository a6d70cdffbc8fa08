/**
 * Change notifications: what a subscription asks for and which notifications a change of the notes
 * sends (`subscriptions.ts`, both eras), and the open `subscriptions/listen` streams of the
 * stateless era with their limit (`listen_streams.ts`). The SSE response that carries a listen over
 * HTTP is `http/_listen_sse.ts`.
 *
 * @module
 */

export * from "./subscriptions.ts";
export * from "./listen_streams.ts";
