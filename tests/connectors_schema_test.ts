/**
 * The connectors against the real APIs' published contracts: the GitHub
 * query validates against GitHub's public GraphQL schema, and the Notion
 * fixtures type-check against `@notionhq/client`'s response types (compile
 * time only: `deno check` covers this file).
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { schema } from "npm:@octokit/graphql-schema@15.26.1";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { buildSchema, parse, validate } from "npm:graphql@16.15.0";
import { DISCUSSIONS_QUERY } from "../connectors/mod.ts";
import {
  blocks,
  childrenAnswer,
  type ListBlockChildrenResponse,
  page,
  type PageObjectResponse,
  queryAnswer,
  type QueryDatabaseResponse,
  searchAnswer,
  type SearchResponse,
} from "./fixtures/notion/objects.ts";
import { sampleWorkspace } from "./fixtures/notion/workspace.ts";

// GitHub's schema file repeats two enterprise fields; the SDL check would refuse the whole
// file for them, so it is skipped. Query validation itself is unchanged.
const github = buildSchema(schema.idl, { assumeValidSDL: true });

Deno.test("DISCUSSIONS_QUERY validates against GitHub's public GraphQL schema", () => {
  const errors = validate(github, parse(DISCUSSIONS_QUERY));
  assert.deepEqual(errors.map((e) => e.message), []);
});

Deno.test("the schema check catches a field GitHub does not have", () => {
  const broken = DISCUSSIONS_QUERY.replace("hasDiscussionsEnabled", "hasDiscussionsTurnedOn");
  const errors = validate(github, parse(broken));
  assert.match(
    errors[0]?.message ?? "",
    /Cannot query field "hasDiscussionsTurnedOn" on type "Repository"/,
  );
  const labels = DISCUSSIONS_QUERY.replace("category {", "state {");
  assert.ok(validate(github, parse(labels)).length > 0, "discussions have no state");
});

Deno.test("Notion fixtures are typed with @notionhq/client's response types", () => {
  const model = sampleWorkspace();
  const pages: PageObjectResponse[] = [...model.databases.values()].flat();
  const query: QueryDatabaseResponse = queryAnswer(pages, null, false);
  const search: SearchResponse = searchAnswer(model.searchable, null, false);
  const children: ListBlockChildrenResponse = childrenAnswer(
    [...model.children.values()].flat(),
    null,
    false,
  );
  assert.equal(query.results.length, 7);
  assert.ok(search.results.some((r) => r.object === "database"));
  assert.ok(children.results.length > 20);
  // The types bite: a page without `in_trash`, or a block with a made-up type, does not compile.
  const noTrash: PageObjectResponse = {
    ...page({ id: "x", title: "x", created: "", edited: "" }),
    // @ts-expect-error in_trash is required on a page object
    in_trash: undefined,
  };
  const badBlock: ListBlockChildrenResponse["results"][number] = {
    ...blocks.divider("a", "b"),
    // @ts-expect-error "paragraf" is not a block type
    type: "paragraf",
  };
  assert.ok(noTrash && badBlock);
});
