/**
 * What memo offers besides running tools: the catalog of lists computed once
 * per set of limits (`catalog.ts`), the resources (`resources.ts`), the
 * prompts (`prompts.ts`) and `completion/complete` (`completion.ts`).
 *
 * @module
 */

export * from "./catalog.ts";
export * from "./resources.ts";
export * from "./prompts.ts";
export * from "./completion.ts";
