/**
 * The web page's Status and Connectors views in headless Chromium, against
 * `memo serve` on a project whose `notes.md` has a damaged section and whose
 * config names two GitHub Discussions connectors (a fake GitHub on loopback):
 * one that works and one whose repository does not exist. Status shows the
 * damaged section with its line number and the runtime; Sync shows each
 * step's progress, each connector's counts and the failure, and the notes
 * it wrote appear in the list. The connector token never reaches the page.
 * A note remembered from the page's form lands in `notes.md`.
 */

import assert from "node:assert/strict";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { launchBrowser } from "./_browser.ts";
import { startMemoServe } from "./_serve_process.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";

const GITHUB_TOKEN = "ghp_WEBpageSYNCtoken000000000000000000007";

const NOTES_MD = `# Memory

<!-- memo:note {"id":"aa","labels":["ops"],"created":"2026-01-01T00:00:00.000Z","updated":"2026-01-01T00:00:00.000Z"} -->
## A sound note
It reads fine.

<!-- memo:note {"id":"bb", -->
## A damaged note
Its marker is cut.
`;

Deno.test("the web page's Status shows damaged sections and the runtime; Sync shows progress, counts and errors; New note remembers", async () => {
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2, 3].map((n) =>
      discussion(n, `2024-05-0${n}T10:00:00Z`, { title: `Discussion number ${n}` })
    ),
  }], { token: GITHUB_TOKEN });
  const dir = await Deno.makeTempDir({ prefix: "memo-web-sync-" });
  await mkdir(join(dir, ".memo", "memory"), { recursive: true });
  await writeFile(join(dir, ".memo", "memory", "notes.md"), NOTES_MD);
  await writeFile(
    join(dir, ".memo", "config.json"),
    JSON.stringify({
      connectors: [
        {
          id: "gh",
          type: "discussions",
          repositories: ["octo-org/hello-world"],
          apiUrl: github.url,
        },
        { id: "gone", type: "discussions", repositories: ["octo-org/missing"], apiUrl: github.url },
      ],
    }),
  );
  const server = await startMemoServe(["--dir", dir], { MEMO_GITHUB_TOKEN: GITHUB_TOKEN });
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(30_000); // only a stuck page waits this long
    const page = await context.newPage();
    await page.goto(`${server.origin}/`);
    await page.getByRole("list", { name: "Notes", exact: true }).waitFor();

    // Status: the damaged section, with its line, and the runtime.
    await page.getByRole("button", { name: "Status", exact: true }).click();
    const status = page.getByRole("region", { name: "Status", exact: true });
    const damaged = status.getByRole("region", { name: "Damaged sections", exact: true });
    await damaged.getByText("line 7").waitFor();
    assert.match(await damaged.innerText(), /damaged-note: Cannot/);
    assert.match(await status.innerText(), /Runtime\s+local/);
    // Why the model is not loaded: with use-lite, auto stays lexical and nothing loads it.
    assert.match(
      await status.innerText(),
      /Embeddings\s+use-lite, idle: 0 of \d+ notes embedded: auto uses lexical with use-lite; the model loads at the first vector or hybrid recall/,
    );
    assert.equal(await page.getByRole("banner").getByText("local", { exact: true }).count(), 1);

    // Connectors: Sync, progress as it runs, then each connector's result and the failure.
    await page.getByRole("button", { name: "Connectors", exact: true }).click();
    const connectors = page.getByRole("region", { name: "Connectors", exact: true });
    await connectors.getByRole("button", { name: "Sync", exact: true }).click();
    const result = connectors.getByRole("region", { name: "Sync result", exact: true });
    await result.waitFor();
    const progress = await connectors.getByRole("list", { name: "Sync progress" }).innerText();
    assert.match(progress, /gh \(discussions\): \d+ pages?, 3 records/);
    const text = await result.innerText();
    assert.match(text, /3 written, 0 updated, 0 unchanged/);
    assert.match(text, /gh \(discussions\)\s+3\s+3\s+0\s+0/);
    assert.match(text, /gone \(discussions\): /, text);
    assert.ok(!(await page.content()).includes(GITHUB_TOKEN), "the token reaches the page");

    // The synced notes are in the list, newest first.
    await page.getByRole("button", { name: "Notes", exact: true }).click();
    const list = page.getByRole("list", { name: "Notes", exact: true });
    await list.getByRole("button", { name: "Discussion number 3" }).waitFor();

    // Remember a new note from the page: it is on disk and opens rendered.
    await page.getByRole("button", { name: "New note", exact: true }).click();
    const form = page.getByRole("form", { name: "New note", exact: true });
    await form.getByLabel("Title", { exact: true }).fill("Release checklist");
    await form.getByLabel("Text", { exact: true }).fill("1. Tag it\n2. **Ship** it");
    await form.getByLabel("Labels", { exact: true }).fill("release, ops");
    await form.getByRole("button", { name: "Remember", exact: true }).click();
    const article = page.getByRole("article", { name: "Note", exact: true });
    await article.getByRole("heading", { name: "Release checklist" }).waitFor();
    assert.equal(await article.locator(".markdown strong").innerText(), "Ship");
    const disk = await Deno.readTextFile(join(dir, ".memo", "memory", "notes.md"));
    assert.match(
      disk,
      /"labels":\["release","ops"\].*\n## Release checklist\n1\. Tag it\n2\. \*\*Ship\*\* it/,
    );
    await list.getByRole("button", { name: "Release checklist" }).waitFor();
    await context.close();
  } finally {
    await browser.close();
    await server.stop();
    await github.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("the web page's Status names memo resolve for an unresolved merge and memo init for a missing driver", async () => {
  const dir = await realpath(await Deno.makeTempDir({ prefix: "memo-web-git-" }));
  const git = (...args: string[]) => new Deno.Command("git", { args, cwd: dir }).output();
  assert.equal((await git("init", "-q")).code, 0);
  await mkdir(join(dir, ".memo", "memory"), { recursive: true });
  await writeFile(join(dir, ".memo", ".gitattributes"), "memory/notes.md merge=memo\n");
  const note = (id: string, title: string) =>
    `<!-- memo:note {"id":"${id}","created":"2026-01-0${id.length}T00:00:00.000Z",` +
    `"updated":"2026-01-01T00:00:00.000Z"} -->\n## ${title}\n${title}.\n\n`;
  await writeFile(
    join(dir, ".memo", "memory", "notes.md"),
    "# Memory\n\n" + note("aa", "Deploys run with make deploy") + "<<<<<<< HEAD\n" +
      note("bb", "The queue is kafka") + "=======\n" + note("cc", "The cache is redis") +
      ">>>>>>> theirs\n",
  );
  const server = await startMemoServe(["--dir", dir], {});
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/`);
    await page.getByRole("list", { name: "Notes", exact: true }).waitFor();
    await page.getByRole("button", { name: "Status", exact: true }).click();
    const card = page.getByRole("region", { name: "Git", exact: true });
    await card.waitFor();
    const text = await card.innerText();
    assert.match(text, /notes\.md has an unresolved git merge \(1 conflict hunk\)/);
    assert.ok(text.includes(`Run memo resolve --dir ${dir}, then git add`), text);
    assert.ok(text.includes(`no merge driver for notes.md`), text);
    assert.ok(text.includes(`Run memo init --dir ${dir}.`), text);
    // The notes shown are the merge, computed in memory.
    await page.getByRole("button", { name: "Notes", exact: true }).click();
    const list = page.getByRole("list", { name: "Notes", exact: true });
    await list.getByRole("button", { name: "The cache is redis" }).waitFor();
    assert.equal(await list.getByRole("button", { name: "The queue is kafka" }).count(), 1);
  } finally {
    await browser.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
