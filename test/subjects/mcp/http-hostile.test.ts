import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { scoreMcp } from "../../../src/harness/score-mcp.js";
import { SubjectStoppedError } from "../../../src/harness/stopped.js";
import { readReport } from "../../../src/report/read-report.js";
import { cli, MAIN, oneLineError } from "../../helpers/cli-helpers.js";

// Hostile MCP servers over Streamable HTTP (and one on stdio), as a red team wrote them: a
// redirect to another origin, a body of 1 GB, SSE streams left open, a server echoing the
// request's headers (a token) into its refusals, a 15 MB answer line. The CLI runs from dist/.

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "hostile-mcp");
const SECRET = "s3cr3t-T0KEN-9f8e7d6c";
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

async function serve(fixture: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, [join(FIXTURES, fixture)], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const [chunk] = (await once(child.stdout!, "data")) as [Buffer];
  return `http://127.0.0.1:${chunk.toString().trim()}`;
}

const fresh = () => mkdtempSync(join(tmpdir(), "tc-http-"));

/** The CLI run as a child, with its peak resident memory read from /proc while it runs. */
async function cliWatched(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; peakKb: number }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "" }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let peakKb = 0;
  const watch = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
      if (hwm !== undefined) peakKb = Math.max(peakKb, Number(hwm));
    } catch {
      // exited between two looks
    }
  }, 25);
  const [code] = (await once(child, "exit")) as [number | null];
  clearInterval(watch);
  return { code, stdout, stderr, peakKb };
}

describe("a redirect is never followed", () => {
  for (const status of ["302", "307", "308"]) {
    test(`a ${status} to another port at initialize: refused, exit 3, and the other server never gets the key`, () => {
      return (async () => {
        const record = join(fresh(), "received.jsonl");
        const url = await serve("http-redirect.mjs", { REDIRECT_STATUS: status, RECORD: record });
        const out = fresh();
        const run = cli("score", "--mcp-url", `${url}/mcp`, "--mcp-header", `X-Api-Key: ${SECRET}`, "--reporter", "terminal,json", "--out", out);
        expect(run.code, run.stderr).toBe(3);
        expect(oneLineError(run.stderr)).toMatch(new RegExp(`redirected \\(HTTP ${status}\\) to another origin \\(http://127\\.0\\.0\\.1:\\d+\\): not followed`));
        expect(existsSync(record) ? readFileSync(record, "utf8") : "").toBe("");
      })();
    }, 30_000);
  }

  test("a redirect that starts mid-run: every request after it fails saying so, and the key never leaves", async () => {
    const record = join(fresh(), "received.jsonl");
    const url = await serve("http-redirect.mjs", { REDIRECT_AFTER: "3", RECORD: record });
    const stopped = await scoreMcp({ url: `${url}/mcp`, headers: { "x-api-key": SECRET } }, { timeoutMs: 2_000 }).catch((error: unknown) => error);
    const report = stopped instanceof SubjectStoppedError ? stopped.report : (stopped as Awaited<ReturnType<typeof scoreMcp>>);
    expect(JSON.stringify(report)).toMatch(/redirected \(HTTP 307\) to another origin/);
    const received = existsSync(record) ? readFileSync(record, "utf8") : "";
    expect(received.toLowerCase()).not.toContain("x-api-key");
    expect(received).not.toContain(SECRET);
  }, 30_000);
});

describe("what a server sends is bounded", () => {
  test("a 1 GB JSON body is cut at 16 MB: the call classed with that reason, the run's memory bounded", async () => {
    const url = await serve("http-huge-body.mjs");
    const out = fresh();
    const run = await cliWatched("score", "--mcp-url", `${url}/mcp`, "--filter", "mcp/add/missing-required/*", "--reporter", "json", "--out", out);
    expect(run.code, run.stderr).toBe(1);
    const report = readReport(join(out, "report.jsonl"));
    const failing = report.rows.filter((row) => row.status !== "passed");
    expect(failing.map((row) => row.id).sort()).toEqual(["mcp/add/missing-required/a", "mcp/add/missing-required/b"]);
    for (const row of failing) expect(JSON.stringify(row)).toContain("larger than 16777216 bytes");
    // a Node process running the CLI is near 100 MB; holding the body would take gigabytes
    expect(run.peakKb).toBeGreaterThan(0);
    expect(run.peakKb).toBeLessThan(400 * 1024);
  }, 30_000);

  test("an SSE stream left open after its answer is closed by the client once the answer came", async () => {
    const url = await serve("http-sse-open.mjs");
    const report = await scoreMcp({ url: `${url}/mcp` });
    expect(report.summary.scores.total.percent).toBe(100);
    const stats = (await (await fetch(`${url}/stats`)).json()) as { opened: number; mostOpen: number };
    // requests go one at a time: a stream kept past its answer would pile up with the next ones
    expect(stats.opened).toBeGreaterThan(10);
    expect(stats.mostOpen).toBeLessThanOrEqual(2);
  }, 30_000);

  test("an SSE stream that never brings the answer is closed at the timeout", async () => {
    const url = await serve("http-sse-open.mjs", { NEVER_ANSWER_CALLS: "1" });
    const report = await scoreMcp({ url: `${url}/mcp` }, { timeoutMs: 300, filters: ["mcp/add/missing-required/*"] });
    expect(report.rows.filter((row) => row.id.startsWith("mcp/add/")).every((row) => row.status !== "passed")).toBe(true);
    const stats = (await (await fetch(`${url}/stats`)).json()) as { opened: number; mostOpen: number };
    expect(stats.opened).toBeGreaterThan(2);
    expect(stats.mostOpen).toBeLessThanOrEqual(2);
  }, 30_000);

  test("a 15 MB answer line on stdio, sent at once, is read in time and classed by its content", async () => {
    const report = await scoreMcp({ command: `${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, "http-stdio-long-line.mjs"))}` }, { filters: ["mcp/add/missing-required/*"] });
    const rows = report.rows.filter((row) => row.id.startsWith("mcp/add/"));
    expect(rows.map((row) => row.id).sort()).toEqual(["mcp/add/missing-required/a", "mcp/add/missing-required/b"]);
    // each refusal is 15 MB: read as a refusal (passed), never classed hung at the default 5 s
    expect(rows.filter((row) => row.status !== "passed").map((row) => row.id)).toEqual([]);
  }, 60_000);
});

describe("a header value given is never written out", () => {
  test("a server echoing request headers in its refusals: no report, file or output holds the key, and the refusals still count", async () => {
    const url = await serve("http-echo-headers.mjs", { TOKEN: SECRET });
    const out = fresh();
    const run = cli("score", "--mcp-url", `${url}/mcp`, "--mcp-header", `X-Api-Key: ${SECRET}`, "--reporter", "terminal,json,junit,markdown,html", "--out", out);
    expect(run.code, run.stderr).toBe(0);
    const files = readdirSync(out);
    expect(files).toEqual(expect.arrayContaining(["report.jsonl", "junit.xml", "summary.md", "report.html"]));
    for (const file of files) expect(readFileSync(join(out, file), "utf8"), file).not.toContain(SECRET);
    expect(run.stdout).not.toContain(SECRET);
    expect(run.stderr).not.toContain(SECRET);
    // the refusals were read as refusals: the redaction left them JSON
    const report = readReport(join(out, "report.jsonl"));
    expect(report.rows.find((row) => row.id === "mcp/add/missing-required/a")?.status).toBe("passed");
    expect(JSON.stringify(report)).toContain("[redacted]");
  }, 30_000);

  test("a wrong key echoed in a 401: exit 3, and neither the message nor the reports hold it", async () => {
    const url = await serve("http-echo-headers.mjs", { TOKEN: "the-right-one" });
    const out = fresh();
    const run = cli("score", "--mcp-url", `${url}/mcp`, "--mcp-header", `X-Api-Key: ${SECRET}`, "--reporter", "terminal,json,junit,markdown,html", "--out", out);
    expect(run.code, run.stderr).toBe(3);
    expect(oneLineError(run.stderr)).toMatch(/HTTP 401/);
    for (const file of readdirSync(out)) expect(readFileSync(join(out, file), "utf8"), file).not.toContain(SECRET);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  }, 30_000);

  test("fuzz --mcp-url on a server that runs every call, its answers quoting the key: the findings show it redacted", async () => {
    const url = await serve("http-echo-headers.mjs", { TOKEN: SECRET, RUN_ANYTHING: "1" });
    for (const json of [[], ["--json"]]) {
      const run = cli("fuzz", "--mcp-url", `${url}/mcp`, "--mcp-header", `X-Api-Key: ${SECRET}`, "--runs", "20", "--max-findings", "2", "--seed", "3", ...json);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toContain("x-api-key was [redacted]");
      expect(run.stdout + run.stderr).not.toContain(SECRET);
    }
  }, 60_000);
});

describe("a URL or a header that cannot be sent safely is a usage error", () => {
  const cases: [string, string[], RegExp][] = [
    ["credentials in the URL", ["--mcp-url", `http://user:${SECRET}@127.0.0.1:9/mcp`], /holds credentials/],
    ["a CR in a header value", ["--mcp-url", "http://127.0.0.1:9/mcp", "--mcp-header", `X-Api-Key: ${SECRET}\r\nX-Other: 1`], /control character/],
    ["an LF in a header value", ["--mcp-url", "http://127.0.0.1:9/mcp", "--mcp-header", `X-Api-Key: ${SECRET}\nx`], /control character/],
    ["a header name that is not a token", ["--mcp-url", "http://127.0.0.1:9/mcp", "--mcp-header", `X Api Key: ${SECRET}`], /not a header name/],
    ["a header with no colon", ["--mcp-url", "http://127.0.0.1:9/mcp", "--mcp-header", SECRET], /NAME: VALUE/],
    ["a port out of range", ["--mcp-url", `http://127.0.0.1:70000/mcp?key=${SECRET}`], /port 70000 is out of range/],
    ["ftp://", ["--mcp-url", `ftp://127.0.0.1/${SECRET}`], /scheme ftp: is not supported/],
    ["not a URL", ["--mcp-url", `${SECRET} at localhost`], /not a URL/],
    ["--mcp-header without --mcp-url", ["--mcp", "node server.mjs", "--mcp-header", `X-Api-Key: ${SECRET}`], /--mcp-header goes with --mcp-url/],
    // with no server named at all: refused, never the demo run with the header ignored
    ["--mcp-header with no server", ["--mcp-header", `X-Api-Key: ${SECRET}`], /--mcp-header goes with --mcp-url/],
  ];
  for (const [what, args, said] of cases) {
    test(`${what}: exit 2, one line, the secret not in it`, () => {
      for (const command of ["score", "fuzz"]) {
        const run = cli(command, ...args);
        expect(run.code, run.stderr).toBe(2);
        expect(oneLineError(run.stderr)).toMatch(said);
        expect(run.stdout + run.stderr).not.toContain(SECRET);
      }
    });
  }
});

test("--mcp with a command that does not exist: exit 3, told it was not found (code 127), with its stderr", () => {
  const out = fresh();
  const run = cli("score", "--mcp", "no-such-command-tc", "--reporter", "terminal", "--out", out);
  expect(run.code).toBe(3);
  const line = oneLineError(run.stderr);
  expect(line).toMatch(/exited with code 127 \(the command was not found\)/);
  expect(line).not.toMatch(/EPIPE/);
  expect(run.stdout).toMatch(/no-such-command-tc: not found/);
});

test("the API refuses a URL with credentials before it becomes a label, quoting neither", async () => {
  const refused = await scoreMcp({ url: `http://user:${SECRET}@127.0.0.1:9/mcp` }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(Error);
  expect((refused as Error).message).toMatch(/holds credentials/);
  expect(JSON.stringify(refused)).not.toContain(SECRET);
  expect((refused as Error).message).not.toContain(SECRET);
});
