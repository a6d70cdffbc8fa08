/**
 * What memo offers besides running tools: the catalog of lists computed once
 * per set of limits (`catalog.ts`), the resources (`resources.ts`) and the
 * prompts (`prompts.ts`). `completion/complete` is private to this folder.
 *
 * @module
 */

export * from "./catalog.ts";
export * from "./resources.ts";
export * from "./prompts.ts";
