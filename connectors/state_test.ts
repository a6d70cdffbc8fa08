import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FileConnectorState } from "./state.ts";
import { tempDir } from "../testing/temp_dir.ts";

Deno.test("FileConnectorState writes atomically and keeps the other connectors' entries", async () => {
  await using dirTmp = await tempDir("memo-state-");
  const dir = dirTmp.path;
  const path = join(dir, ".memo", "connectors", "state.json");
  const state = new FileConnectorState(path);
  assert.equal(await state.read("gh"), undefined, "no file: no state");
  await state.write("gh", { type: "discussions", scope: "a", since: "2024-05-01T00:00:00Z" });
  await state.write("wiki", { type: "pages", since: "2024-05-02T00:00:00.000Z" });
  await state.write("gh", { type: "discussions", scope: "a", since: "2024-05-03T00:00:00Z" });
  assert.deepEqual(JSON.parse(await readFile(path, "utf8")), {
    version: 1,
    connectors: {
      gh: { type: "discussions", scope: "a", since: "2024-05-03T00:00:00Z" },
      wiki: { type: "pages", since: "2024-05-02T00:00:00.000Z" },
    },
  });
  assert.deepEqual(
    await readdir(join(dir, ".memo", "connectors")),
    ["state.json"],
    "no temporary file left",
  );
  assert.equal(await state.read("toString"), undefined);
});

Deno.test("FileConnectorState treats a damaged file as empty", async () => {
  await using dirTmp = await tempDir("memo-state-");
  const dir = dirTmp.path;
  const path = join(dir, "state.json");
  await writeFile(path, "{ damaged");
  const state = new FileConnectorState(path);
  assert.equal(await state.read("gh"), undefined);
  await state.write("gh", { type: "discussions" });
  assert.deepEqual(await state.read("gh"), { type: "discussions" });
});
