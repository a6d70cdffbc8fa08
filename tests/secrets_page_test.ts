/**
 * The secrets guard on the web page, in headless Chromium against `memo serve`: a note with a
 * secret remembered from the page's form opens redacted; the Status view shows the count of
 * secrets stored notes hold (a hand edit), and none after `memo scan --redact`; no value of the
 * corpus is ever on the page.
 */

import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { memoPaths } from "@memo/memory";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { secretCorpus } from "../testing/secrets_corpus.ts";
import { launchBrowser } from "./_browser.ts";
import { startMemoServe } from "./_serve_process.ts";
import { assertNoSecret } from "./_secrets_check.ts";

const corpus = secretCorpus();

Deno.test("the web page: a secret remembered from the form opens redacted; Status counts stored secrets until memo scan --redact; no value on the page", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-secrets-page-" });
  await mkdir(join(dir, ".memo"), { recursive: true });
  const io = recordingIO(dir);
  for (const s of corpus.slice(0, 12)) await runCli(["remember", s.text, "--dir", dir], io);
  await runCli(["remember", "Edited by hand later", "--dir", dir], io);
  const hand = corpus.find((s) => s.rule === "npm-token")!;
  const path = memoPaths(dir).notes;
  await writeFile(
    path,
    (await readFile(path, "utf8")).replace("Edited by hand later", `Edited by hand: ${hand.text}`),
  );
  const server = await startMemoServe(["--dir", dir], {});
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`${server.origin}/`);
    await page.getByRole("list", { name: "Notes", exact: true }).waitFor();

    const status = page.getByRole("region", { name: "Status", exact: true });
    await page.getByRole("button", { name: "Status", exact: true }).click();
    await status.getByText("1 secret in stored notes").waitFor();
    assert.match(await status.innerText(), /Secrets\s+redacts secrets before writing/);

    // Remembered from the page: stored and shown redacted.
    const secret = corpus.find((s) => s.rule === "anthropic-api-key")!;
    await page.getByRole("button", { name: "Notes", exact: true }).click();
    await page.getByRole("button", { name: "New note", exact: true }).click();
    const form = page.getByRole("form", { name: "New note", exact: true });
    await form.getByLabel("Title", { exact: true }).fill("Claude key");
    await form.getByLabel("Text", { exact: true }).fill(secret.text);
    await form.getByRole("button", { name: "Remember", exact: true }).click();
    const article = page.getByRole("article", { name: "Note", exact: true });
    await article.getByText("[redacted:anthropic-api-key]").waitFor();

    // memo scan --redact in another process's stead: the page's Status follows.
    assert.equal(await runCli(["scan", "--redact", "--dir", dir], io), 0);
    await page.getByRole("button", { name: "Status", exact: true }).click();
    await status.getByText("no secrets in stored notes").waitFor();

    await page.getByRole("button", { name: "Notes", exact: true }).click();
    await page.getByRole("list", { name: "Notes", exact: true }).waitFor();
    assertNoSecret(await page.content(), corpus, "the page");
    assertNoSecret(io.out.join("") + io.err.join(""), corpus, "the CLI's output");
    await context.close();
  } finally {
    await browser.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
