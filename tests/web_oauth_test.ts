/**
 * The web page in Chromium against `memo serve` with OAuth on, and a real
 * authorization server (`npm:oidc-provider`): "Sign in" runs the
 * authorization code flow with PKCE through the provider's login form,
 * then the page searches and writes; a read-only account's page disables
 * the write controls. The access token never appears in the page, its URL,
 * memo's log or an answer.
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, type BrowserContext, launchBrowser, type Page } from "./_browser.ts";
import { startAuthServer } from "./_oidc_provider.ts";
import { freePort, startMemoServe } from "./_serve_process.ts";

function button(scope: Page | ReturnType<Page["locator"]>, name: string) {
  return scope.getByRole("button", { name, exact: true });
}

/** Opens the page, signs in as `account` on the provider's form, waits for the notes. */
async function signIn(context: BrowserContext, pageUrl: string, account: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(pageUrl);
  const card = page.getByRole("region", { name: "Sign in", exact: true });
  await button(card, "Sign in").click();
  await page.getByRole("heading", { name: "Sign in to the test provider" }).waitFor();
  await page.getByLabel("Login").fill(account);
  await page.getByLabel("Password").fill("any");
  await button(page, "Sign in").click();
  await page.getByRole("list", { name: "Notes", exact: true }).waitFor();
  assert.equal(new URL(page.url()).search, "", "the code left the address bar");
  return page;
}

Deno.test("the web page signs in with OAuth in Chromium: search and write; a read-only token disables writes", async () => {
  const port = freePort();
  const pageUrl = `http://127.0.0.1:${port}/`;
  const resource = `http://127.0.0.1:${port}/mcp`;
  const dir = await Deno.makeTempDir();
  let browser: Browser | undefined;
  const as = await startAuthServer({
    resources: [{ url: resource }],
    clients: [{
      client_id: "memo-page",
      token_endpoint_auth_method: "none",
      redirect_uris: [pageUrl],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }],
  });
  const memo = await startMemoServe(["--dir", dir, "--oauth-page-client-id", "memo-page"], {
    MEMO_OAUTH_ISSUER: as.issuer,
    MEMO_OAUTH_RESOURCE: resource,
    MEMO_LOG_LEVEL: "info",
  }, port);
  const authorizations = new Set<string>();
  try {
    const seed = await as.clientCredentials(resource, "memo:read memo:write");
    const seeded = await fetch(resource, {
      method: "POST",
      headers: {
        authorization: `Bearer ${seed}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "remember",
          arguments: { title: "Deploying", text: "We deploy with fly every Tuesday." },
        },
      }),
    });
    assert.equal(seeded.status, 200);
    await seeded.body?.cancel();

    browser = await launchBrowser();
    const context = await browser.newContext();
    context.on("request", (request) => {
      const header = request.headers().authorization;
      if (header?.startsWith("Bearer ")) authorizations.add(header.slice(7));
    });
    const page = await signIn(context, pageUrl, "ana");

    const search = page.getByRole("search");
    await search.getByRole("searchbox", { name: "Query", exact: true }).fill("deploy");
    await button(search, "Search").click();
    const results = page.getByRole("list", { name: "Results", exact: true });
    await results.getByText("Deploying").waitFor();

    await button(page, "New note").click();
    const form = page.getByRole("form", { name: "New note", exact: true });
    await form.getByLabel("Title", { exact: true }).fill("Written from the page");
    await form.getByLabel("Text", { exact: true }).fill("Signed in with OAuth, then wrote this.");
    await button(form, "Remember").click();
    // The page shows the note once the server answered the write.
    await page.getByRole("article", { name: "Note", exact: true })
      .getByRole("heading", { name: "Written from the page", exact: true }).waitFor();
    const notes = await readFile(join(dir, ".memo", "memory", "notes.md"), "utf8");
    assert.match(notes, /Signed in with OAuth, then wrote this\./);
    assert.equal(authorizations.size, 1, "the page sends its one access token");
    const token = [...authorizations][0];
    assert.ok(!(await page.content()).includes(token), "the token is not in the page");
    assert.ok(!page.url().includes(token));
    await button(page.getByRole("banner"), "Sign out").click();
    await page.close();

    const reader = await signIn(await browser.newContext(), pageUrl, "reader");
    await reader.getByRole("banner").getByText("read-only", { exact: true }).waitFor();
    assert.equal(await button(reader, "New note").isDisabled(), true, "New note");
    await reader.getByRole("list", { name: "Notes", exact: true }).getByRole("button", {
      name: "Written from the page",
    }).click();
    const article = reader.getByRole("article", { name: "Note", exact: true });
    assert.equal(await button(article, "Edit").isDisabled(), true, "Edit");
    assert.equal(await button(article, "Forget").isDisabled(), true, "Forget");
  } finally {
    await browser?.close();
    const code = await memo.stop();
    await as.close();
    await Deno.remove(dir, { recursive: true });
    assert.equal(code, 0);
  }
  const log = memo.stderr();
  for (const token of authorizations) assert.ok(!log.includes(token), "the log holds a token");
});
