import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";

// Go as a first-class subject: the Go adapter template (conformance/adapters/go/main.go),
// compiled unchanged into a copy of a small Go implementation written from the seed
// (test/fixtures/go-impl, module tinyllm), scored through the CLI as a user would. The same
// implementation with its planted bug (TOOLREG_BUG=nolock: a registry without its mutex) is built
// with the race detector and must fail the concurrency rows. Go is not optional here: CI installs it
// (.ci/run, SYSTEM_PACKAGES).

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const FIXTURE = join(PACKAGE_ROOT, "test", "fixtures", "go-impl");
const TEMPLATE = join(PACKAGE_ROOT, "conformance", "adapters", "go", "main.go");

/** A Go cache shared between runs (a fresh machine fills it once), no network, no toolchain switch. */
const GO_HOME = join(tmpdir(), "tool-conformance-go");
const { TOOLREG_BUG: _bug, GORACE: _race, ...inherited } = process.env;
const GO_ENV = {
  ...inherited,
  GOTOOLCHAIN: "local",
  GOPROXY: "off",
  GOFLAGS: "",
  GOWORK: "off",
  GOCACHE: join(GO_HOME, "cache"),
  GOPATH: join(GO_HOME, "path"),
  CGO_ENABLED: "1", // -race needs cgo
};

let scratch: string;
let module: string;
let adapter: string;
let raceAdapter: string;

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { encoding: "utf8", env: GO_ENV, timeout: 120_000, ...options });
  if (result.error) throw new Error(`${command} ${args.join(" ")}: ${result.error.message}`);
  return result;
}

function go(...args: string[]): string {
  const result = run("go", args, { cwd: module });
  if (result.status !== 0) throw new Error(`go ${args.join(" ")} exited with ${result.status}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = run(process.execPath, [MAIN, ...args], { env: { ...inherited, NO_COLOR: "1" }, timeout: 90_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Row {
  id: string;
  tier: string;
  status: string;
}
interface Report {
  header: { subject: { implementation: { name: string; language: string }; capabilities: string[] }; tiers: string[]; level: string };
  rows: Row[];
  diagnosis: { matches: unknown[]; lines: string[] };
  summary: { scores: { total: { rows: number; passed: number; errored: number; percent: number } } };
  footer: { rows: number };
}

/** report.jsonl: a header line, one line per row, the diagnosis, the summary, a footer. */
function readJsonl(dir: string): Report {
  const lines = readFileSync(join(dir, "report.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { kind: string });
  const one = (kind: string) => {
    const found = lines.filter((line) => line.kind === kind);
    expect(found, `${kind} lines`).toHaveLength(1);
    return found[0] as never;
  };
  return { header: one("header"), rows: lines.filter((line) => line.kind === "row") as unknown as Row[], diagnosis: one("diagnosis"), summary: one("summary"), footer: one("footer") };
}

const notPassed = (report: Report) => report.rows.filter((row) => row.status !== "passed").map((row) => `${row.id} [${row.tier}]: ${row.status}`);

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error("this test runs the built CLI: run npm run build first");
  const version = spawnSync("go", ["version"], { encoding: "utf8", env: GO_ENV });
  if (version.error || version.status !== 0) throw new Error(`Go is needed (apt-get install golang-go; .ci/run installs it): ${version.error?.message ?? version.stderr}`);
  scratch = mkdtempSync(join(tmpdir(), "stdio-go-"));
  module = join(scratch, "tinyllm");
  cpSync(FIXTURE, module, { recursive: true });
  mkdirSync(join(module, "cmd", "adapter"), { recursive: true });
  copyFileSync(TEMPLATE, join(module, "cmd", "adapter", "main.go")); // the template itself, unchanged
  adapter = join(scratch, "adapter");
  raceAdapter = join(scratch, "adapter-race");
  go("build", "-o", adapter, "./cmd/adapter");
  go("build", "-race", "-o", raceAdapter, "./cmd/adapter");
}, 240_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the Go adapter template", () => {
  it("compiles unchanged against the fixture, and both are gofmt-clean and vet-clean", { timeout: 60_000 }, () => {
    expect(existsSync(adapter)).toBe(true);
    go("vet", "./...");
    const unformatted = run("gofmt", ["-l", "."], { cwd: module });
    expect(unformatted.status, unformatted.stderr).toBe(0);
    expect(unformatted.stdout.trim()).toBe("");
  });

  it("marks every line a user adjusts with ADJUST", () => {
    const adjusted = readFileSync(TEMPLATE, "utf8").split("\n").filter((line) => line.includes("// ADJUST:"));
    for (const needle of ['"tinyllm/agent/tool"', '"tinyllm/agent/types"', "types.ToolCall{", "m.ToolCallID", 'case "definitions":', '"implementation":']) {
      expect(adjusted.some((line) => line.includes(needle)), needle).toBe(true);
    }
  });
});

describe("the Go fixture scored through the CLI (score --subject BINARY, no other options)", () => {
  it("passes every row, and the diagnosis names no pitfall", { timeout: 90_000 }, () => {
    const out = mkdtempSync(join(scratch, "report-"));
    const { code, stderr } = cli("score", "--subject", JSON.stringify(adapter), "--reporter", "json", "--out", out);
    const report = readJsonl(out);
    expect(report.header.subject.implementation).toMatchObject({ name: "tinyllm", language: "go" });
    expect(report.header.subject.capabilities).toEqual(expect.arrayContaining(["validate", "registry", "concurrency"]));
    expect({ tiers: report.header.tiers, level: report.header.level }).toEqual({ tiers: ["core"], level: "messages" });
    expect(notPassed(report)).toEqual([]);
    expect(report.rows.some((row) => row.id.includes("concurren"))).toBe(true);
    expect(report.diagnosis.matches).toEqual([]);
    expect(report.summary.scores.total).toMatchObject({ rows: report.rows.length, passed: report.rows.length, errored: 0, percent: 100 });
    expect(report.footer.rows).toBe(report.rows.length);
    expect(code, stderr).toBe(0);
  });
});

describe("the Go fixture fuzzed against the reference (fuzz --subject BINARY)", () => {
  it("disagrees in none of 3,000 generated cases: the default domain holds for a correct Go implementation", { timeout: 90_000 }, () => {
    const { code, stdout, stderr } = cli("fuzz", "--subject", JSON.stringify(adapter), "--runs", "3000", "--seed", "20261130");
    expect(stdout, stderr).toMatch(/no disagreement with the reference in 3000 cases/);
    expect(code).toBe(0);
  });
});

describe("the planted bug: TOOLREG_BUG=nolock, a registry without its mutex", () => {
  const score = (subject: string) => {
    const out = mkdtempSync(join(scratch, "race-"));
    const { code, stderr } = cli("score", "--subject", subject, "--filter", "*concurren*", "--reporter", "json", "--out", out);
    return { code, stderr, report: readJsonl(out) };
  };

  it("the race-detector build passes the concurrency rows with the mutex", { timeout: 60_000 }, () => {
    const { code, stderr, report } = score(`GORACE=halt_on_error=1 ${JSON.stringify(raceAdapter)}`);
    expect(report.rows.length).toBeGreaterThan(0);
    expect(notPassed(report)).toEqual([]);
    expect(code, stderr).toBe(0);
  });

  it("and does not pass them without it (the race detector stops the process)", { timeout: 60_000 }, () => {
    const { code, report } = score(`TOOLREG_BUG=nolock GORACE=halt_on_error=1 ${JSON.stringify(raceAdapter)}`);
    expect(report.rows.length).toBeGreaterThan(0);
    expect(notPassed(report).length).toBeGreaterThan(0);
    expect(code).toBe(1);
  });

  it("go test -race: the fixture's own 50-goroutine test passes, and fails with TOOLREG_BUG=nolock", { timeout: 120_000 }, () => {
    const clean = run("go", ["test", "-race", "-count=1", "./..."], { cwd: module });
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);
    const racy = run("go", ["test", "-race", "-count=1", "./..."], { cwd: module, env: { ...GO_ENV, TOOLREG_BUG: "nolock" } });
    expect(racy.status).not.toBe(0);
    expect(racy.stdout + racy.stderr).toMatch(/WARNING: DATA RACE|concurrent map (writes|read and map write)/);
  });
});
