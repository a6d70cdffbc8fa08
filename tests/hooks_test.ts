/**
 * `memo hook` and `memo init --hooks`: each client's documented input answered in its documented
 * output shape; the hook files merged, run twice and removed back to the same JSON; the failure
 * paths (a locked store, no project, garbage on stdin) exit 0 with nothing added; an unresolved
 * merge; no repeats within a session; superseded, expired and secret text never added; the prompt
 * guard; and nothing of a prompt stored.
 */

import assert from "node:assert/strict";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { gitRun as git } from "../testing/git.ts";
import { lookAlikeCorpus, secretCorpus } from "../testing/secrets_corpus.ts";
import { until } from "../testing/wait.ts";
import { runProcess } from "./_run_process.ts";

async function project(): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "memo-hooks-" }));
  await mkdir(join(root, ".memo"));
  return root;
}

async function memo(root: string, ...argv: string[]): Promise<string> {
  const io = recordingIO(root);
  assert.equal(await runCli([...argv, "--dir", root], io), 0, io.err.join(""));
  return io.out.join("");
}

async function remember(root: string, text: string, ...flags: string[]): Promise<string> {
  return JSON.parse(await memo(root, "remember", text, ...flags, "--json")).note.id;
}

/** Runs `memo hook` in process with `input` on stdin, from `cwd`. */
async function hook(
  cwd: string,
  input: unknown,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const io = recordingIO(cwd, typeof input === "string" ? input : JSON.stringify(input));
  const code = await runCli(["hook", ...argv], io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

/** Cursor's documented input: its common fields, then the event's own. */
function cursorInput(root: string, event: string, own: Record<string, unknown>) {
  return {
    conversation_id: "c-1",
    generation_id: "g-1",
    model: "claude-sonnet",
    model_id: "claude-sonnet-5",
    model_params: [{ id: "thinking", value: "true" }],
    hook_event_name: event,
    cursor_version: "1.7.2",
    workspace_roots: [root],
    user_email: null,
    transcript_path: null,
    ...own,
  };
}

/** VS Code's documented common input fields. */
function vscodeInput(root: string, event: string) {
  return {
    timestamp: "2026-02-09T10:30:00.000Z",
    cwd: root,
    sessionId: "vs-1",
    hookEventName: event,
    transcript_path: "/tmp/t.json",
  };
}

async function logLines(root: string): Promise<string[]> {
  try {
    return (await readFile(join(root, ".memo", "logs", "hooks.log"), "utf8")).split("\n").filter(
      Boolean,
    );
  } catch {
    return [];
  }
}

/** Every file under `dir` with its bytes, `cache/` aside. */
async function snapshot(dir: string, skip = "cache"): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string, rel: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === skip) continue;
      if (e.isDirectory()) await walk(join(d, e.name), r);
      else out.set(r, await readFile(join(d, e.name), "utf8"));
    }
  };
  await walk(dir, "");
  return out;
}

Deno.test("memo hook answers each client's documented input in its documented shape", async (t) => {
  const root = await project();
  try {
    await remember(root, "Always run make check before pushing", "--label", "pinned");
    await remember(root, "The staging database is db-stage-2 on Postgres 16", "--label", "infra");
    await t.step("Claude Code SessionStart: hookSpecificOutput.additionalContext", async () => {
      const input = {
        session_id: "abc123",
        transcript_path: "/home/u/.claude/projects/x/abc123.jsonl",
        cwd: root,
        hook_event_name: "SessionStart",
        source: "startup",
        model: "claude-sonnet-5",
      };
      const { code, out } = await hook(root, input, "--client", "claude-code", "session-start");
      assert.equal(code, 0);
      const doc = JSON.parse(out);
      assert.deepEqual(Object.keys(doc), ["hookSpecificOutput"]);
      assert.equal(doc.hookSpecificOutput.hookEventName, "SessionStart");
      const context: string = doc.hookSpecificOutput.additionalContext;
      assert.match(context, /^Memory from memo/);
      assert.match(context, /Pinned:\n- \S+ \(\d+m ago\) \[pinned\] Always run make check/);
      assert.match(
        context,
        /memo holds 2 notes for this project; the memo MCP tools recall, get_note/,
      );
    });
    await t.step("Claude Code UserPromptSubmit: the note the prompt is about", async () => {
      const input = {
        session_id: "abc123",
        transcript_path: "/home/u/.claude/projects/x/abc123.jsonl",
        cwd: root,
        permission_mode: "default",
        hook_event_name: "UserPromptSubmit",
        prompt: "Which Postgres version does the staging database run?",
      };
      const { code, out } = await hook(root, input, "--client", "claude-code", "prompt");
      assert.equal(code, 0);
      const doc = JSON.parse(out);
      assert.equal(doc.hookSpecificOutput.hookEventName, "UserPromptSubmit");
      assert.match(doc.hookSpecificOutput.additionalContext, /db-stage-2 on Postgres 16/);
      const quiet = await hook(
        root,
        { ...input, prompt: "rename this function" },
        "--client",
        "claude-code",
        "prompt",
      );
      assert.deepEqual([quiet.code, quiet.out], [0, ""]); // adding nothing prints nothing
    });
    await t.step("Cursor sessionStart: additional_context", async () => {
      const input = cursorInput(root, "sessionStart", {
        session_id: "c-1",
        is_background_agent: false,
        composer_mode: "agent",
      });
      const { code, out } = await hook("/", input, "--client", "cursor", "session-start");
      assert.equal(code, 0);
      const doc = JSON.parse(out);
      assert.deepEqual(Object.keys(doc), ["additional_context"]);
      assert.match(doc.additional_context, /Always run make check/);
      // beforeSubmitPrompt cannot add context: nothing is printed.
      const prompt = cursorInput(root, "beforeSubmitPrompt", {
        prompt: "Which Postgres version does the staging database run?",
        attachments: [{ type: "file", file_path: join(root, "README.md") }],
      });
      assert.deepEqual(await hook("/", prompt, "--client", "cursor", "prompt"), {
        code: 0,
        out: "",
        err: "",
      });
    });
    await t.step("VS Code SessionStart: hookSpecificOutput.additionalContext", async () => {
      const input = { ...vscodeInput(root, "SessionStart"), source: "new" };
      const { code, out } = await hook("/", input, "--client", "vscode", "session-start");
      assert.equal(code, 0);
      const doc = JSON.parse(out);
      assert.deepEqual(Object.keys(doc), ["hookSpecificOutput"]);
      assert.deepEqual(Object.keys(doc.hookSpecificOutput), ["hookEventName", "additionalContext"]);
      assert.equal(doc.hookSpecificOutput.hookEventName, "SessionStart");
      assert.match(doc.hookSpecificOutput.additionalContext, /Always run make check/);
      // UserPromptSubmit answers in the common output format only: no context, nothing printed.
      const prompt = {
        ...vscodeInput(root, "UserPromptSubmit"),
        prompt: "Which Postgres version does the staging database run?",
      };
      assert.deepEqual(await hook("/", prompt, "--client", "vscode", "prompt"), {
        code: 0,
        out: "",
        err: "",
      });
    });
    await t.step(
      "a Claude Code entry run by Cursor or VS Code answers as that client",
      async () => {
        // Both run the hooks of .claude/settings*.json by default, with their own input.
        const cursor = cursorInput(root, "sessionStart", { session_id: "c-2" });
        const asCursor = await hook("/", cursor, "--client", "claude-code", "session-start");
        assert.deepEqual(Object.keys(JSON.parse(asCursor.out)), ["additional_context"]);
        const prompt = cursorInput(root, "beforeSubmitPrompt", { prompt: "staging Postgres?" });
        assert.equal((await hook("/", prompt, "--client", "claude-code", "prompt")).out, "");
        const vscode = { ...vscodeInput(root, "UserPromptSubmit"), prompt: "staging Postgres?" };
        assert.equal((await hook("/", vscode, "--client", "claude-code", "prompt")).out, "");
        // Where the client's own memo hooks are on, they answer: the Claude Code entry adds nothing.
        await mkdir(join(root, ".memo", "cache", "hooks"), { recursive: true });
        await writeFile(
          join(root, ".memo", "cache", "hooks", "clients.json"),
          JSON.stringify({ cursor: { on: true, file: "~/.cursor/hooks.json" } }),
        );
        const again = cursorInput(root, "sessionStart", { session_id: "c-3" });
        assert.equal((await hook("/", again, "--client", "claude-code", "session-start")).out, "");
        assert.match((await hook("/", again, "--client", "cursor", "session-start")).out, /memo/);
        await writeFile(join(root, ".memo", "cache", "hooks", "clients.json"), "{}");
      },
    );
    await t.step("--dry-run says what and why, and records nothing", async () => {
      const input = {
        session_id: "dry",
        cwd: root,
        prompt: "Which Postgres version does staging run?",
      };
      const { out } = await hook(root, input, "--client", "claude-code", "--dry-run", "prompt");
      assert.match(out, /^rule: added\n/);
      assert.match(out, /postgre \(name\) in 1/);
      assert.match(out, /would add 1 note/);
      // A project whose hooks' index holds nothing says so, not that it has no notes.
      const empty = await Deno.makeTempDir({ prefix: "memo-hook-empty-" });
      try {
        await mkdir(join(empty, ".memo"), { recursive: true });
        const start = { session_id: "dry-empty", cwd: empty, hook_event_name: "SessionStart" };
        const none = await hook(
          empty,
          start,
          "--client",
          "claude-code",
          "--dry-run",
          "session-start",
        );
        assert.match(none.out, /^would add nothing: the hooks' index holds no notes yet/);
      } finally {
        await Deno.remove(empty, { recursive: true });
      }
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memo init --hooks merges beside other hooks, twice, and --no-hooks gives the same JSON back", async (t) => {
  const root = await project();
  const home = await Deno.makeTempDir({ prefix: "memo-home-" });
  try {
    const cases: { client: string; path: string; before: unknown; team?: boolean }[] = [
      {
        client: "claude-code",
        path: join(root, ".claude", "settings.local.json"),
        before: {
          permissions: { allow: ["Bash(npm test)"] },
          hooks: {
            SessionStart: [{
              matcher: "startup",
              hooks: [{ type: "command", command: "echo hi" }],
            }],
            PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }],
          },
        },
      },
      {
        client: "claude-code",
        team: true,
        path: join(root, ".claude", "settings.json"),
        before: { model: "opus" },
      },
      {
        client: "cursor",
        path: join(home, ".cursor", "hooks.json"),
        before: {
          version: 1,
          hooks: { sessionStart: [{ command: "./other.sh" }], stop: [{ command: "x" }] },
        },
      },
      {
        client: "vscode",
        path: join(home, ".copilot", "hooks", "memo.json"),
        before: { hooks: { PreToolUse: [{ type: "command", command: "./guard.sh", timeout: 5 }] } },
      },
      {
        client: "vscode",
        team: true,
        path: join(root, ".github", "hooks", "memo.json"),
        before: { hooks: { Stop: [{ type: "command", command: "./report.sh" }] } },
      },
    ];
    for (const c of cases) {
      await t.step(`${c.client}${c.team ? " --team" : ""}`, async () => {
        await mkdir(join(c.path, ".."), { recursive: true });
        await writeFile(c.path, JSON.stringify(c.before, null, 2));
        const init = async (...flags: string[]) => {
          const io = recordingIO(root);
          io.env.HOME = home;
          const argv = [
            "init",
            "--client",
            c.client,
            ...flags,
            ...(c.team ? ["--team"] : []),
            "--json",
          ];
          assert.equal(await runCli(argv, io), 0, io.err.join(""));
          return JSON.parse(io.out.join("")).files.find((f: { hooks?: boolean }) => f.hooks);
        };
        assert.equal((await init("--hooks")).status, "updated");
        const once = await readFile(c.path, "utf8");
        assert.equal((await init("--hooks")).status, "unchanged");
        assert.equal(await readFile(c.path, "utf8"), once); // twice adds nothing
        const doc = JSON.parse(once);
        const commands = JSON.stringify(doc.hooks).match(/hook --client [a-z-]+ [a-z-]+/g)!;
        assert.deepEqual(
          commands,
          c.client === "claude-code"
            ? ["hook --client claude-code session-start", "hook --client claude-code prompt"]
            : [`hook --client ${c.client} session-start`],
        );
        assert.doesNotMatch(once, /--dir|workspaceFolder/);
        // Each client's documented entry shape; every `timeout` is in seconds.
        const event = c.client === "cursor" ? "sessionStart" : "SessionStart";
        const entry = doc.hooks[event].at(-1);
        const command = entry.command ?? entry.hooks?.[0]?.command;
        assert.match(command, /hook --client [a-z-]+ session-start$/);
        assert.deepEqual(
          entry,
          c.client === "claude-code"
            ? { hooks: [{ type: "command", command, timeout: 10 }] }
            : c.client === "cursor"
            ? { command, timeout: 10 }
            : { type: "command", command, timeout: 10 },
        );
        if (c.client === "cursor") assert.equal(doc.version, 1);
        assert.equal((await init("--no-hooks")).status, "updated");
        assert.deepEqual(JSON.parse(await readFile(c.path, "utf8")), c.before);
      });
    }
    await t.step(
      "a file made by --hooks is gone after --no-hooks; the MCP entry stays",
      async () => {
        const dir = await project();
        try {
          const io = recordingIO(dir);
          assert.equal(await runCli(["init", "--client", "claude-code", "--hooks"], io), 0);
          assert.equal(await runCli(["init", "--client", "claude-code", "--no-hooks"], io), 0);
          await assert.rejects(stat(join(dir, ".claude", "settings.local.json")));
          assert.ok(JSON.parse(await readFile(join(dir, ".mcp.json"), "utf8")).mcpServers.memo);
          assert.match(await readFile(join(dir, ".memo", ".gitignore"), "utf8"), /^logs\/$/m);
          assert.equal(await runCli(["init", "--client", "claude-desktop", "--hooks"], io), 2);
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("memo hook's failure paths add nothing, exit 0, and log one line where there is a project", async (t) => {
  await t.step("a store held under lock by a stuck process", async () => {
    const root = await project();
    try {
      await remember(root, "The staging database is db-stage-2");
      await writeFile(
        join(root, ".memo", "memory", "notes.md.lock"),
        JSON.stringify({ pid: 1, time: new Date().toISOString() }),
      );
      const input = { session_id: "s", cwd: root, prompt: "staging database" };
      const { code, out } = await hook(root, input, "--client", "claude-code", "prompt");
      assert.deepEqual([code, out], [0, ""]);
      const lines = await logLines(root);
      assert.equal(lines.length, 1);
      assert.match(lines[0], /claude-code prompt: the notes are locked by another process/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
  await t.step("no .memo anywhere: nothing is written at all", async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "memo-none-" }));
    try {
      const input = { session_id: "s", cwd: dir, prompt: "staging database" };
      for (const event of ["session-start", "prompt"]) {
        const { code, out, err } = await hook(dir, input, "--client", "claude-code", event);
        assert.deepEqual([code, out, err], [0, "", ""]);
      }
      assert.deepEqual((await hook(dir, "{{{", "--client", "claude-code", "prompt")).code, 0);
      assert.deepEqual(await readdir(dir), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
  await t.step("garbage on stdin, and a usage error", async () => {
    const root = await project();
    try {
      await remember(root, "The staging database is db-stage-2");
      const { code, out } = await hook(
        root,
        "\u0000not json at all",
        "--client",
        "claude-code",
        "prompt",
      );
      assert.deepEqual([code, out], [0, ""]);
      assert.equal((await hook(root, "{}", "--client", "zed", "prompt")).code, 0);
      const lines = await logLines(root);
      assert.equal(lines.length, 2);
      assert.match(lines[0], /claude-code prompt: .*JSON/);
      assert.match(lines[1], /hook: --client must be one of/);
      assert.ok(lines.every((l) => l.length <= 300));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
  await t.step("a timeout", async () => {
    const root = await project();
    try {
      await remember(root, "The staging database is db-stage-2");
      await writeFile(
        join(root, ".memo", "config.json"),
        JSON.stringify({ hooks: { timeoutMs: 1 } }),
      );
      // A stdin that never ends: the hook gives up at its timeout.
      const io = recordingIO(root);
      io.readStdin = () => new Promise<string>(() => {});
      assert.equal(await runCli(["hook", "--client", "claude-code", "prompt"], io), 0);
      assert.deepEqual(io.out, []);
      assert.match((await logLines(root))[0], /timed out after 2000 ms/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
});

Deno.test("memo hook during an unresolved merge of notes.md adds the notes reads serve", async () => {
  const dir = await project();
  try {
    await git(dir, "init", "-q", "-b", "main");
    await git(dir, "config", "user.email", "memo@example.com");
    await git(dir, "config", "user.name", "memo");
    await remember(dir, "Deploys run with make deploy");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "checkout", "-qb", "bob");
    await remember(dir, "bob says the queue is kafka");
    await git(dir, "commit", "-qam", "bob");
    await git(dir, "checkout", "-q", "main");
    await remember(dir, "alice says the cache is redis");
    await git(dir, "commit", "-qam", "alice");
    assert.notEqual((await git(dir, "merge", "-q", "--no-edit", "bob")).code, 0);
    assert.match(await readFile(join(dir, ".memo", "memory", "notes.md"), "utf8"), /^<{7} /m);
    const input = { session_id: "m", cwd: dir, prompt: "which queue does bob use, kafka?" };
    const { code, out } = await hook(dir, input, "--client", "claude-code", "prompt");
    assert.equal(code, 0);
    const context = JSON.parse(out).hookSpecificOutput.additionalContext;
    assert.match(context, /bob says the queue is kafka/);
    assert.doesNotMatch(context, /<{7}|={7}|>{7}/);
    const brief = await hook(dir, input, "--client", "claude-code", "session-start");
    assert.match(JSON.parse(brief.out).hookSpecificOutput.additionalContext, /memo holds 3 notes/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memo hook adds a note once per session, and a fresh session starts over", async () => {
  const root = await project();
  try {
    await remember(root, "The staging database is db-stage-2 on Postgres 16");
    const ask = (session: string) =>
      hook(
        root,
        { session_id: session, cwd: root, prompt: "staging database Postgres?" },
        "--client",
        "claude-code",
        "prompt",
      );
    assert.match((await ask("one")).out, /db-stage-2/);
    assert.equal((await ask("one")).out, "");
    assert.match((await ask("two")).out, /db-stage-2/);
    const sessions = await readdir(join(root, ".memo", "cache", "hooks", "sessions"));
    assert.equal(sessions.length, 2);
    const state = await readFile(
      join(root, ".memo", "cache", "hooks", "sessions", sessions[0]),
      "utf8",
    );
    assert.doesNotMatch(state, /staging|Postgres/); // ids only, never the prompt
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memo hook never adds superseded, expired or secret text", async () => {
  const root = await project();
  try {
    const old = await remember(root, "The zephyr cluster runs Kafka 2");
    await memo(root, "correct", old, "The zephyr cluster runs Kafka 3");
    await remember(
      root,
      "The zephyr cluster had a Kafka 1 era",
      "--valid-until",
      "2020-01-01T00:00:00Z",
    );
    const [secret] = secretCorpus();
    // A hand edit: a secret that no write guarded.
    const path = join(root, ".memo", "memory", "notes.md");
    await remember(root, "The zephyr cluster token is PLACEHOLDER");
    await writeFile(path, (await readFile(path, "utf8")).replace("PLACEHOLDER", secret.value));
    for (const event of ["prompt", "session-start"]) {
      const input = { session_id: event, cwd: root, prompt: "zephyr cluster Kafka token" };
      const { out } = await hook(root, input, "--client", "claude-code", event);
      const context = JSON.parse(out).hookSpecificOutput.additionalContext;
      assert.match(context, /Kafka 3/);
      assert.doesNotMatch(context, /Kafka 2|Kafka 1/);
      assert.ok(!context.includes(secret.value), event);
      assert.match(context, /\[redacted:/);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the prompt guard blocks a prompt with a secret, naming the rule only; look-alikes pass", async () => {
  const root = await project();
  try {
    await writeFile(
      join(root, ".memo", "config.json"),
      JSON.stringify({ hooks: { guardPrompts: true } }),
    );
    const secrets = secretCorpus().slice(0, 6);
    // Each client's documented prompt input, and its documented block: Claude Code's
    // decision/reason (the prompt's text left out of the message it shows), Cursor's
    // beforeSubmitPrompt continue/user_message, VS Code's common continue/stopReason.
    const inputs: Record<string, (prompt: string) => unknown> = {
      "claude-code": (prompt) => ({
        session_id: "g",
        transcript_path: "/home/u/.claude/projects/x/g.jsonl",
        cwd: root,
        permission_mode: "default",
        hook_event_name: "UserPromptSubmit",
        prompt,
      }),
      cursor: (prompt) => cursorInput(root, "beforeSubmitPrompt", { prompt, attachments: [] }),
      vscode: (prompt) => ({ ...vscodeInput(root, "UserPromptSubmit"), prompt }),
    };
    const blocks: Record<string, (reason: string) => unknown> = {
      "claude-code": (reason) => ({
        decision: "block",
        reason,
        hookSpecificOutput: { hookEventName: "UserPromptSubmit", suppressOriginalPrompt: true },
      }),
      cursor: (reason) => ({ continue: false, user_message: reason }),
      vscode: (reason) => ({ continue: false, stopReason: reason }),
    };
    for (const client of ["claude-code", "cursor", "vscode"]) {
      for (const s of secrets) {
        const input = inputs[client](`please deploy with ${s.value} now`);
        const { code, out } = await hook(root, input, "--client", client, "prompt");
        assert.equal(code, 0);
        assert.ok(!out.includes(s.value), `${client} echoed ${s.name}`);
        const doc = JSON.parse(out);
        const reason = doc.reason ?? doc.user_message ?? doc.stopReason;
        assert.deepEqual(doc, blocks[client](reason), client);
        assert.match(reason, new RegExp(s.rule));
      }
    }
    for (const l of lookAlikeCorpus().slice(0, 8)) {
      const { out } = await hook(
        root,
        { session_id: "g", cwd: root, prompt: l.text },
        "--client",
        "claude-code",
        "prompt",
      );
      assert.equal(out, "", l.name);
    }
    // Cursor runs Claude Code's entries too. With Cursor's own memo hooks on (they have no prompt
    // entry), Claude Code's entry adds no context there, but still guards the prompt.
    const clients = join(root, ".memo", "cache", "hooks", "clients.json");
    await mkdir(join(root, ".memo", "cache", "hooks"), { recursive: true });
    await writeFile(clients, JSON.stringify({ cursor: { on: true } }));
    const [s] = secrets;
    const guarded = await hook(
      root,
      inputs.cursor(`please deploy with ${s.value} now`),
      "--client",
      "claude-code",
      "prompt",
    );
    assert.equal(guarded.code, 0);
    const doc = JSON.parse(guarded.out);
    assert.deepEqual(doc, blocks.cursor(doc.user_message));
    assert.ok(!guarded.out.includes(s.value));
    const clean = await hook(
      root,
      inputs.cursor("what does the deploy runbook say"),
      "--client",
      "claude-code",
      "prompt",
    );
    assert.deepEqual([clean.code, clean.out], [0, ""], "no context: Cursor's own hooks give it");
    assert.deepEqual(await logLines(root), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memo hook stores nothing of a prompt: .memo/ is the same before and after, caches aside", async () => {
  const root = await project();
  try {
    await remember(root, "The staging database is db-stage-2");
    const before = await snapshot(join(root, ".memo"));
    const prompt = "staging database: my very private prompt text 7d1f";
    for (const event of ["session-start", "prompt"]) {
      await hook(
        root,
        { session_id: "p", cwd: root, prompt, transcript_path: "/x.jsonl" },
        "--client",
        "claude-code",
        event,
      );
    }
    assert.deepEqual(await snapshot(join(root, ".memo")), before);
    for (const text of (await snapshot(join(root, ".memo"), "none")).values()) {
      assert.ok(!text.includes("7d1f"));
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memory_stats (memo stats) shows each client's hooks: on or off, and the last runs", async () => {
  const root = await project();
  try {
    const io = recordingIO(root);
    assert.equal(await runCli(["init", "--client", "claude-code", "--hooks"], io), 0);
    await remember(root, "The staging database is db-stage-2");
    await hook(root, { session_id: "s", cwd: root }, "--client", "claude-code", "session-start");
    let stats = JSON.parse(await memo(root, "stats", "--json"));
    assert.equal(stats.hooks["claude-code"].on, true);
    assert.equal(stats.hooks["claude-code"].file, ".claude/settings.local.json");
    assert.match(stats.hooks["claude-code"].lastRun["session-start"], /^\d{4}-\d\d-\d\dT/);
    assert.equal(await runCli(["init", "--client", "claude-code", "--no-hooks"], io), 0);
    stats = JSON.parse(await memo(root, "stats", "--json"));
    assert.equal(stats.hooks["claude-code"].on, false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * `memo hook --client claude-code EVENT` as a process of its own in `root` (an empty user scope of
 * the test's own), and the key of the hooks' index it builds apart (undefined before the first).
 */
function hookProcess(root: string) {
  const cli = new URL("../cli.ts", import.meta.url).pathname;
  const catalog = join(root, ".memo", "cache", "hooks", "catalog.json");
  return {
    run: (event: string, prompt: string, session: string) =>
      runProcess(Deno.execPath(), ["run", "-A", cli, "hook", "--client", "claude-code", event], {
        cwd: root,
        stdin: JSON.stringify({ session_id: session, cwd: root, prompt }),
        env: { MEMO_HOME: join(root, ".home") },
      }),
    built: async () => {
      try {
        return JSON.parse(await readFile(catalog, "utf8")).key as string;
      } catch {
        return undefined;
      }
    },
  };
}

Deno.test("memo hook (a process) rebuilds its index apart; meanwhile the old one serves, checked note by note", async () => {
  const root = await project();
  const { run, built } = hookProcess(root);
  try {
    const old = await remember(root, "The zephyr queue runs on Kafka 2 in staging");
    // No index yet: nothing added now, the index built by a process of its own.
    const first = await run("prompt", "zephyr queue Kafka staging", "a");
    assert.deepEqual([first.code, first.out], [0, ""]);
    await until(async () => (await built()) !== undefined, "the hooks' index to be built");
    assert.match((await run("prompt", "zephyr queue Kafka staging", "b")).out, /Kafka 2/);
    // A correction: the old index serves until the rebuild, and never shows the superseded note.
    const key = await built();
    await memo(root, "correct", old, "The zephyr queue runs on Kafka 3 in staging");
    for (const event of ["prompt", "session-start"]) {
      const { code, out } = await run(event, "zephyr queue Kafka staging", `c-${event}`);
      assert.equal(code, 0);
      assert.doesNotMatch(out, /Kafka 2/);
    }
    await until(async () => (await built()) !== key, "the hooks' index to be rebuilt");
    assert.match((await run("prompt", "zephyr queue Kafka staging", "d")).out, /Kafka 3/);
    assert.deepEqual(await logLines(root), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memo hook scans a note a hand edit changed after its index was built, and never prints one cut short", async () => {
  const root = await project();
  const hooks = hookProcess(root);
  const run = (prompt: string, session: string) => hooks.run("prompt", prompt, session);
  const built = hooks.built;
  const path = join(root, ".memo", "memory", "notes.md");
  try {
    const [secret] = secretCorpus();
    const placeholder = "x".repeat(secret.value.length);
    await remember(root, `The zephyr deploy key is ${placeholder}`);
    await remember(root, "The zephyr cluster runs Kafka 3");
    await run("zephyr deploy key", "a"); // builds the index apart
    await until(async () => (await built()) !== undefined, "the hooks' index to be built");
    // The same length: the stale index's byte range still holds the whole note.
    await writeFile(path, (await readFile(path, "utf8")).replaceAll(placeholder, secret.value));
    const same = await run("zephyr deploy key", "b");
    assert.equal(same.code, 0);
    const context = JSON.parse(same.out).hookSpecificOutput.additionalContext;
    assert.match(context, /The zephyr deploy key is \[redacted:/);
    assert.ok(!context.includes(secret.value.slice(0, 12)), context);
    // Longer: the range no longer fits its section; the note is left out, not printed cut short.
    const key = await built();
    await until(async () => (await built()) !== key, "the index rebuilt");
    await writeFile(
      path,
      (await readFile(path, "utf8")).replace(
        secret.value,
        `${secret.value} (rotated) ${secret.value}`,
      ),
    );
    const longer = await run("zephyr deploy key", "c");
    assert.equal(longer.code, 0);
    assert.ok(!longer.out.includes(secret.value.slice(0, 12)), longer.out);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** `memo` and `memo hook` in process, in `root`, with `MEMO_HOME` set to `home`. */
function withHome(root: string, home: string) {
  const run = async (argv: string[], stdin = "") => {
    const io = recordingIO(root, stdin);
    io.env = { MEMO_HOME: home };
    const code = await runCli(argv, io);
    return { code, out: io.out.join(""), err: io.err.join("") };
  };
  return {
    async memo(...argv: string[]): Promise<string> {
      const r = await run([...argv, "--dir", root]);
      assert.equal(r.code, 0, r.err);
      return r.out;
    },
    async remember(text: string, ...flags: string[]): Promise<string> {
      return JSON.parse(await this.memo("remember", text, ...flags, "--json")).note.id;
    },
    /** The context a hook adds ("" when none). */
    async hook(event: string, prompt = "", session = "s", ...flags: string[]): Promise<string> {
      const input = JSON.stringify({ session_id: session, cwd: root, prompt });
      const r = await run(["hook", "--client", "claude-code", ...flags, event], input);
      assert.equal(r.code, 0);
      if (flags.includes("--dry-run")) return r.out;
      return r.out ? JSON.parse(r.out).hookSpecificOutput.additionalContext : "";
    },
  };
}

/** Every file under `dir` whose text holds `text`. */
async function filesHolding(dir: string, text: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else if ((await readFile(join(d, e.name), "utf8")).includes(text)) out.push(join(d, e.name));
    }
  };
  await walk(dir);
  return out;
}

Deno.test("memo hook reads every scope served, as one memory; each line says its scope; a project copy wins", async () => {
  const root = await project();
  const home = join(root, "home");
  const m = withHome(root, home);
  try {
    await m.remember("The staging database is db-stage-2 on Postgres 16", "--label", "pinned");
    await m.remember("This checkout serves the zephyr app on port 8081", "--scope", "local");
    const user = await m.remember(
      "Ada prefers tabs and the quokka keyboard layout",
      "--scope",
      "user",
    );
    const brief = await m.hook("session-start");
    assert.match(brief, /memo holds 3 notes \(1 project, 1 local, 1 user\)/);
    assert.match(brief, /\(local\) This checkout serves the zephyr app/);
    assert.match(brief, new RegExp(`${user} \\(\\d+m ago\\) \\(user\\) Ada prefers tabs`));
    assert.match(brief, /ago\) \[pinned\] The staging database/); // the project's lines: no tag
    const added = await m.hook("prompt", "which quokka keyboard layout does Ada use?", "a");
    assert.match(added, new RegExp(`${user} \\(\\d+m ago\\) \\(user\\) Ada prefers tabs`));
    assert.match(await m.hook("prompt", "which port does the zephyr app serve on?", "a"), /8081/);

    // The user scope changes after the index was built: the next hook sees it.
    await m.remember("Ada reviews pull requests in the morning", "--scope", "user");
    assert.match(await m.hook("prompt", "when does Ada review pull requests?", "b"), /\(user\)/);

    // A move out of the project that git brings back: the project's copy alone is shown.
    const notes = join(root, ".memo", "memory", "notes.md");
    const id = await m.remember("The quokka service deploys with make ship");
    const committed = await readFile(notes, "utf8");
    await m.memo("update", id, "--scope", "user");
    await writeFile(notes, committed);
    const copy = await m.hook("prompt", "how does the quokka service deploy?", "c");
    assert.equal(copy.split(id).length - 1, 1, copy);
    assert.match(copy, new RegExp(`${id} \\(\\d+m ago\\) The quokka service`));
    assert.match(
      await m.hook("session-start", "", "d"),
      /memo holds 5 notes \(2 project, 1 local, 2 user\)/,
    );

    // The person's notes stay out of the project's caches: the user part is in MEMO_HOME.
    assert.deepEqual(await filesHolding(join(root, ".memo", "cache"), "quokka keyboard"), []);
    assert.ok((await filesHolding(join(home, "cache", "hooks"), "quokka keyboard")).length);
    assert.deepEqual(await filesHolding(join(root, ".memo", "cache", "hooks"), "zephyr app"), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memo hook ranks a note the same whichever scope holds it", async () => {
  const root = await project();
  const m = withHome(root, join(root, "home"));
  const prompt = "how do the kestrel builds cache the gradle wrapper on the runners?";
  const ranked = async (session: string) =>
    (await m.hook("prompt", prompt, session, "--dry-run")).split("\n")
      .filter((l) => / share /.test(l)).map((l) =>
        l.replace(" (user)", "").replace(" (local)", "")
      );
  try {
    await m.remember("Kestrel builds cache the gradle wrapper on the runners");
    await m.remember("The kestrel runners are arm64 machines with 16 cores and plenty of disk");
    const moving = await m.remember("Gradle on kestrel runs with the configuration cache on");
    await m.remember("The wrapper of gradle is pinned at 8.10 in every kestrel module");
    const before = await ranked("a");
    assert.equal(before.length, 4, before.join("\n"));
    for (const scope of ["user", "local"]) {
      await m.memo("update", moving, "--scope", scope);
      assert.match(
        await m.hook("prompt", prompt, `x-${scope}`, "--dry-run"),
        new RegExp(`${moving} \\(${scope}\\)`),
      );
      assert.deepEqual(await ranked(scope), before, scope);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memo hook never adds another scope's notes when narrowed by the config's scopes", async () => {
  const root = await project();
  const home = join(root, "home");
  const m = withHome(root, home);
  const config = join(root, ".memo", "config.json");
  try {
    await m.remember("The pelican service deploys with make ship");
    await m.remember("This checkout runs the pelican service on port 8081", "--scope", "local");
    await m.remember(
      "Ada runs the pelican service with a debugger and breakpoints",
      "--scope",
      "user",
    );
    const prompts = [
      "pelican service",
      "which port does the pelican service run on?",
      "pelican debugger",
    ];
    const everything = async (session: string) =>
      [
        await m.hook("session-start", "", session),
        ...await Promise.all(
          prompts.map((p, i) => m.hook("prompt", p, `${session}-${i}`)),
        ),
        ...await Promise.all(prompts.map((p) => m.hook("prompt", p, session, "--dry-run"))),
      ].join(
        "\n",
      );
    const all = await everything("all");
    assert.match(all, /8081/);
    assert.match(all, /breakpoints/);

    await writeFile(config, JSON.stringify({ scopes: ["project"] }));
    const project_ = await everything("project");
    assert.match(project_, /make ship/);
    assert.doesNotMatch(project_, /8081|breakpoints|\(user\)|\(local\)/);
    assert.match(project_, /memo holds 1 note for this project/);

    await writeFile(config, JSON.stringify({ scopes: ["project", "user"] }));
    const noLocal = await everything("no-local");
    assert.match(noLocal, /breakpoints/);
    assert.doesNotMatch(noLocal, /8081|\(local\)/);

    await writeFile(config, JSON.stringify({ scopes: ["local"] }));
    const localOnly = await everything("local-only");
    assert.match(localOnly, /8081/);
    assert.doesNotMatch(localOnly, /make ship|breakpoints|\(user\)/);
    assert.deepEqual(await logLines(root), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("memo hook: a rebuild that could not be started is tried again by the next hook, one that started is not", async () => {
  const root = await project();
  try {
    await remember(root, "The zephyr queue runs on Kafka 2 in staging");
    const input = { session_id: "s", cwd: root, prompt: "zephyr queue Kafka staging" };
    const starts: string[] = [];
    const runOnce = async (tag: string, started: boolean) => {
      const io = recordingIO(root, JSON.stringify(input));
      io.self = ["/no/such/memo"];
      io.spawnDetached = () => (starts.push(tag), Promise.resolve(started));
      assert.equal(await runCli(["hook", "--client", "claude-code", "prompt"], io), 0);
    };
    await runOnce("first (could not start)", false);
    await runOnce("second (started)", true);
    await runOnce("third (one is running)", true);
    assert.deepEqual(starts, ["first (could not start)", "second (started)"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
