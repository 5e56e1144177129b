import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { cli } from "../../helpers/cli-helpers.js";
import { needs } from "../../helpers/machine.mjs";

// The sandbox as a witness: tools that run and then answer in a refusal's words are told by what
// their processes did (a program started, a connection tried, a file written), seen from outside
// the sandbox; what a server does after answering is never blamed on a call; a server that looks
// for the tracer and kills what it can see is still watched; without the sandbox, nothing is.

const machine = needs("bwrap", "strace");
const base = mkdtempSync(join(tmpdir(), "mcp-witness-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface Check {
  what: string;
  pass: boolean;
  actual?: { ran?: unknown; answer?: string; observed?: string; text?: string };
}
interface Row {
  kind: "row";
  id: string;
  checks: Check[];
  repro?: { steps?: string[] };
}
interface Run {
  rows: Row[];
  flags: string[];
  folder: string;
}

/** The fixture server with these tools, scored by the CLI; its rows and flags from report.jsonl. */
function score(name: string, tools: string[], sandboxed: boolean, ...extra: string[]): Run {
  const folder = join(base, name);
  cpSync(join(import.meta.dirname, "..", "..", "fixtures", "hostile-mcp", "witness-server.mjs"), join(folder, "witness-server.mjs"));
  // a folder the sandbox's own user can read
  chmodSync(base, 0o755);
  chmodSync(folder, 0o755);
  const out = join(base, `${name}-out`);
  const run = cli("score", "--mcp", `node witness-server.mjs ${tools.join(" ")}`, ...(sandboxed ? ["--sandbox", "bwrap"] : []), "--submission", folder, "--reporter", "json", "--out", out, "--min-score", "0", ...extra);
  expect(run.code, run.stderr).toBe(0);
  const records = readFileSync(join(out, "report.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { kind: string; flags?: string[] });
  return { rows: records.filter((record): record is Row => record.kind === "row"), flags: records.find((record) => record.kind === "summary")?.flags ?? [], folder };
}

let all: Run | undefined;
/** One run of every tool, in the order the harness calls them: connect, detect, first, fork, late, quiet, shell, write. */
function everyTool(): Run {
  all ??= score("all", ["shell", "write", "connect", "fork", "late", "detect", "quiet", "first"], true);
  return all;
}

const refused = (row: Row) => row.checks.find((check) => check.what === "refused before the tool runs")!;
const rowsOf = (run: Run, tool: string) => {
  const rows = run.rows.filter((row) => row.id.startsWith(`mcp/${tool}/`));
  // the schema gives each tool its probes: a tool with none would assert nothing
  expect(rows.length).toBeGreaterThanOrEqual(6);
  return rows;
};

/** Every call of `tool` is classed as ran, from what was observed, whatever its refusal's words. */
function expectObserved(tool: string, seen: RegExp): void {
  for (const row of rowsOf(everyTool(), tool)) {
    const check = refused(row);
    expect(check.pass, row.id).toBe(false);
    expect(check.actual?.ran, row.id).toBe(true);
    expect(check.actual?.answer, row.id).toBe("ran, then failed");
    expect(check.actual?.observed, row.id).toMatch(seen);
  }
}

describe("the sandbox as a witness", () => {
  test.skipIf(machine.lacking)(`a tool that runs a program and answers "invalid arguments" ran ${machine.tag}`, () => {
    expectObserved("shell", /^ran: started `sh -c exit 1`/);
  }, 120_000);

  test.skipIf(machine.lacking)(`a tool that writes outside its /tmp and answers "Validation error" ran, and the path is shown ${machine.tag}`, () => {
    expectObserved("write", new RegExp(`^ran: tried to write ${join(everyTool().folder, "witness-out.json").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(E`));
  }, 120_000);

  test.skipIf(machine.lacking)(`a tool that tries a TCP connection and answers a refusal ran ${machine.tag}`, () => {
    expectObserved("connect", /^ran: tried to connect to 10\.255\.255\.1:443 \(E[A-Z]+\)/);
  }, 120_000);

  test.skipIf(machine.lacking)(`a program started by a child the tool forked before answering is the call's ${machine.tag}`, () => {
    expectObserved("fork", /started `\/bin\/true`/);
  }, 120_000);

  test.skipIf(machine.lacking)(`what a tool does after answering is blamed neither on its call nor on the next one, and is noted ${machine.tag}`, () => {
    const run = everyTool();
    // `quiet` is called right after `late`: late's programs start while quiet's calls are under way
    for (const row of [...rowsOf(run, "late"), ...rowsOf(run, "quiet")]) {
      expect(refused(row).pass, JSON.stringify(refused(row))).toBe(true);
      for (const check of row.checks) if (check.actual?.observed !== undefined) expect(check.actual.observed, row.id).toBe("nothing observed");
    }
    // it was seen all the same, outside every call
    expect(run.flags.join("\n")).toMatch(/the sandbox saw, after a call's answer, not blamed on any call: started `\/bin\/true`/);
  }, 120_000);

  test.skipIf(machine.lacking)(`a server that looks for the tracer finds none it can name, kills what it sees, and is still watched ${machine.tag}`, () => {
    const run = everyTool();
    expectObserved("detect", /started `\/bin\/true`/);
    for (const row of rowsOf(run, "detect")) expect(refused(row).actual?.text, row.id).toMatch(/TracerPid 0; strace seen: no/);
    // the calls after it (fork, shell, write come later) are still observed, to the last
    const last = run.rows.filter((row) => row.id.startsWith("mcp/write/")).at(-1)!;
    expect(refused(last).actual?.observed).toMatch(/^ran: tried to write /);
  }, 120_000);

  test.skipIf(machine.lacking)(`a tool that refuses and does nothing is judged by its text, nothing observed ${machine.tag}`, () => {
    const rows = rowsOf(everyTool(), "quiet");
    for (const row of rows) expect(refused(row).pass, row.id).toBe(true);
    // a non-object call's refusal does not name "object": that check shows what was observed
    const shown = rows.flatMap((row) => row.checks.flatMap((check) => (check.actual?.observed !== undefined ? [check.actual.observed] : [])));
    expect(shown.length).toBeGreaterThan(0);
    for (const observed of shown) expect(observed).toBe("nothing observed");
  }, 120_000);

  test(`without the sandbox a verdict says it was not observed, and the text alone decides`, () => {
    const run = score("outside", ["shell"], false);
    const rows = rowsOf(run, "shell");
    // the same tool as above: its refusal's words pass it when nothing watches
    for (const row of rows) expect(refused(row).pass, row.id).toBe(true);
    const shown = rows.flatMap((row) => row.checks.flatMap((check) => (check.actual?.observed !== undefined ? [check.actual.observed] : [])));
    expect(shown.length).toBeGreaterThan(0);
    for (const observed of shown) expect(observed).toBe("not observed (no sandbox)");
    // a passing row keeps the call sent, the answer and the rule that classed it: a "refused" is audited from the file
    for (const row of rows) {
      expect(row.repro?.steps?.[0], row.id).toMatch(/^tools\/call \{"name":"shell","arguments":/);
      expect(refused(row).actual, row.id).toMatchObject({ ran: false, text: 'invalid arguments: "path" is required', rule: expect.stringMatching(/^isError/) });
    }
  }, 120_000);
});

describe("a server's own one-off act is not the call's", () => {
  test.skipIf(machine.lacking)(`an act in one call's window that does not recur when the same call is sent again is shown apart, and the refusal stands ${machine.tag}`, () => {
    const rows = rowsOf(everyTool(), "first");
    for (const row of rows) expect(refused(row).pass, row.id).toBe(true);
    const once = rows.filter((row) => row.checks.some((check) => String(check.actual?.observed).startsWith("nothing of the call's own (seen once, not when it was sent again: started `/bin/true`)")));
    expect(once.map((row) => row.id)).toEqual(["mcp/first/non-object/array"]);
  }, 120_000);
});

describe("a call that hung after its tool acted", () => {
  test.skipIf(machine.lacking)(`ran, and the hang is still said: the server stopped answering ${machine.tag}`, () => {
    const run = score("hang", ["hang"], true, "--timeout", "800", "--filter", "mcp/hang/extra-property", "--filter", "mcp/hang/missing-required/*");
    const rows = run.rows.filter((row) => row.id.startsWith("mcp/hang/"));
    expect(rows.map((row) => row.id).sort()).toEqual(["mcp/hang/extra-property", "mcp/hang/missing-required/path"]);
    for (const row of rows) {
      expect(refused(row).actual?.answer, row.id).toBe("ran");
      expect(refused(row).actual?.observed, row.id).toBe("ran: started `/bin/true`");
      const answers = row.checks.find((check) => check.what === "the server keeps answering")!;
      expect(answers.pass, row.id).toBe(false);
      expect(JSON.stringify(answers.actual), row.id).toContain("hung: no answer within 800 ms");
    }
  }, 120_000);
});

describe("what a server does on every call is no tool's", () => {
  test.skipIf(machine.lacking)(`a program the server runs on every call, a call of a tool it does not list included, is set apart; a tool's own program still counts ${machine.tag}`, () => {
    const run = score("telemetry", ["--telemetry", "quiet", "shell"], true);
    for (const row of rowsOf(run, "quiet")) expect(refused(row).pass, row.id).toBe(true);
    const apart = rowsOf(run, "quiet").filter((row) => row.checks.some((check) => String(check.actual?.observed).startsWith("nothing of the tool's own (the server does as much on a call of a tool that does not exist: started `/bin/echo called`)")));
    expect(apart.length).toBeGreaterThan(0);
    for (const row of rowsOf(run, "shell")) expect(refused(row).actual?.observed, row.id).toMatch(/^ran: started `sh -c exit 1`$/);
    expect(run.flags.join("\n")).toContain("on every call, a call of a tool that does not exist included, the server starts echo (the sandbox saw it twice): not blamed on any tool");
  }, 120_000);
});

describe("what a server's background process does is no call's", () => {
  test.skipIf(machine.lacking)(`a child the server started at start, looking up a name all the while (in every call's handling and its resend too), is set apart; a tool's own program and a child started for the call still count ${machine.tag}`, () => {
    const run = score("background", ["--background", "slow", "shell", "fork"], true);
    for (const row of rowsOf(run, "slow")) expect(refused(row).pass, row.id).toBe(true);
    for (const row of rowsOf(run, "shell")) expect(refused(row).actual?.observed, row.id).toMatch(/^ran: started `sh -c exit 1`$/);
    for (const row of rowsOf(run, "fork")) expect(refused(row).actual?.observed, row.id).toMatch(/^ran: started `\S*node -e/);
    expect(run.flags.join("\n")).toContain("the sandbox saw, while a call was handled, by a process the server started outside any call, not blamed on it: looked up a name: read /etc/resolv.conf");
  }, 120_000);
});

describe("what a server's own process does by itself, in every window, is no call's", () => {
  test.skipIf(machine.lacking)(`a retry timer in the server's own process, looking up a name in every call's handling and its resend too, does not overrule a refusal naming the argument (a window with no call shows it); a refusal naming nothing stays ran, and a tool's own program still counts ${machine.tag}`, () => {
    const run = score("busy", ["--busy", "slow", "shell"], true);
    const slow = rowsOf(run, "slow");
    // the refusal names "path": the rows of path's own probes read as refused, the rest name nothing
    const plain = slow.filter((row) => refused(row).actual?.answer === "refused");
    expect(plain.length).toBeGreaterThan(0);
    for (const row of plain) {
      expect(refused(row).pass, row.id).toBe(true);
      expect(refused(row).actual?.observed, row.id).toMatch(/^nothing of the call's own \((the server's own process does as much with no call under way|seen once, not when it was sent again): looked up a name/);
    }
    expect(plain.some((row) => String(refused(row).actual?.observed).startsWith("nothing of the call's own (the server's own process does as much with no call under way: looked up a name: read /etc/resolv.conf)"))).toBe(true);
    // the price: a refusal that names nothing, on a server this busy, is not trusted over what was seen
    for (const row of slow.filter((row) => !plain.includes(row))) expect(refused(row).actual?.observed, row.id).toMatch(/^ran: looked up a name|^nothing of the call's own \(seen once/);
    for (const row of rowsOf(run, "shell")) expect(refused(row).actual?.observed, row.id).toMatch(/^ran: (.*; )?started `sh -c exit 1`/);
  }, 120_000);
});

describe("fuzz --mcp with the sandbox as a witness", () => {
  test.skipIf(machine.lacking)(`a tool that runs a program and answers in a refusal's words is found as ran, with what was seen; without the sandbox its text alone finds nothing ${machine.tag}`, () => {
    const folder = join(base, "fuzz");
    cpSync(join(import.meta.dirname, "..", "..", "fixtures", "hostile-mcp", "witness-server.mjs"), join(folder, "witness-server.mjs"));
    chmodSync(base, 0o755);
    chmodSync(folder, 0o755);
    const args = ["fuzz", "--mcp", "node witness-server.mjs shell", "--submission", folder, "--runs", "12", "--seed", "1"];
    const watched = cli(...args, "--sandbox", "bwrap");
    expect(watched.code, watched.stderr).toBe(1);
    expect(watched.stdout).toContain("shell ran on invalid arguments");
    expect(watched.stdout).toMatch(/observed +ran: started `sh -c exit 1`/);
    const unwatched = cli(...args);
    expect(unwatched.code, unwatched.stderr).toBe(0);
    expect(unwatched.stdout).not.toContain("ran on invalid arguments");
  }, 120_000);
});
