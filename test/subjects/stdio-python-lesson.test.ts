import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";

// The lesson profile, proven from the outside: a small Python registry written from seed 001's
// lesson alone (test/fixtures/python-lesson/registry.py, never from the reference or the rows)
// behind the lesson adapter template (conformance/adapters/python-lesson/adapter.py), scored through
// the built CLI as a student would. It must pass every core row of the lesson profile, and each of
// its planted bugs (LESSON_BUG=id, test/fixtures/python-lesson/bugs.json) must fail a core row: the
// row named here, which states the lesson sentence the bug breaks.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const ADAPTER = join(PACKAGE_ROOT, "conformance", "adapters", "python-lesson", "adapter.py");
const FIXTURE = join(PACKAGE_ROOT, "test", "fixtures", "python-lesson");
const REGISTRY = join(FIXTURE, "registry.py");
const PYTHON = process.env.PYTHON ?? "python3";
const SUBJECT = `${PYTHON} ${JSON.stringify(ADAPTER)} ${JSON.stringify(REGISTRY)}`;

/** Each planted bug, and one core row of the lesson profile it must fail. */
const KILLED_BY: Record<string, string> = {
  "coerce-numbers": "lesson/validate/coercion/string-42-not-number",
  "pointer-no-index": "lesson/example/pointer-a-b-2",
  "override-silent": "lesson/register/duplicate/refused",
  "names-sorted": "lesson/definitions/names/not-sorted",
  "uppercase-names": "lesson/register/name/uppercase-refused",
  "no-expected-type": "lesson/example/user-email-expected-string",
  "bool-is-integer": "lesson/validate/type/integer-fails-boolean",
  "length-utf8-bytes": "lesson/validate/minLength/accented-counts-once",
  "pattern-anchored": "lesson/validate/pattern/search-middle",
  "enum-bool-equals-int": "lesson/validate/enum/true-not-1",
  "root-slash": "lesson/validate/pointer/root-empty",
  "pointer-no-escape": "lesson/validate/pointer/escape-slash",
  "first-error-only": "lesson/validate/truncation/every-error-kept",
  "length-not-strings": "lesson/validate/minLength/ignores-array",
  "record-drops-opts": "lesson/register/get/record-round-trip-sync",
  "pattern-python": "lesson/validate/pattern/dollar-before-newline-fails",
};

interface Check {
  level: string;
  tier: string;
  what: string;
  pass: boolean;
  expected?: unknown;
  actual?: unknown;
}
interface Row {
  id: string;
  tier: string;
  status: string;
  checks: Check[];
  error?: string;
}
interface Report {
  header: { profile: string; subject: { implementation: { name: string; language: string }; profiles: string[]; capabilities: string[] }; tiers: string[]; level: string };
  rows: Row[];
  diagnosis: { matches: unknown[]; lines: string[] };
  summary: { scores: { total: { rows: number; passed: number; errored: number; percent: number } } };
}

let scratch: string;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const { LESSON_BUG: _bug, ...env } = process.env;
  const result = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", env: { ...env, NO_COLOR: "1" }, timeout: 120_000 });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** report.jsonl: a header line, one line per row, the diagnosis, the summary, a footer. */
function readJsonl(dir: string): Report {
  const lines = readFileSync(join(dir, "report.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { kind: string });
  const one = (kind: string) => lines.find((line) => line.kind === kind) as never;
  return { header: one("header"), rows: lines.filter((line) => line.kind === "row") as unknown as Row[], diagnosis: one("diagnosis"), summary: one("summary") };
}

/** score --profile lesson (default tier core, level messages), the subject run with LESSON_BUG=bug. */
function score(bug?: string, ...args: string[]): { code: number | null; stderr: string; report: Report } {
  const out = mkdtempSync(join(scratch, `score-${bug ?? "clean"}-`));
  const subject = bug ? `LESSON_BUG=${bug} ${SUBJECT}` : SUBJECT;
  const { code, stderr } = cli("score", "--subject", subject, "--profile", "lesson", "--reporter", "json", "--out", out, ...args);
  if (!existsSync(join(out, "report.jsonl"))) throw new Error(`score wrote no report (exit ${code}):\n${stderr}`);
  return { code, stderr, report: readJsonl(out) };
}

const why = (row: Row) => {
  const failed = row.checks.find((c) => !c.pass);
  return failed ? `${failed.what}: expected ${JSON.stringify(failed.expected)}, got ${JSON.stringify(failed.actual)}` : (row.error ?? row.status);
};
const notPassed = (report: Report) => report.rows.filter((row) => row.status !== "passed").map((row) => `${row.id} [${row.tier}]: ${row.status}: ${why(row)}`);

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error("this test runs the built CLI: run npm run build first");
  const version = spawnSync(PYTHON, ["--version"], { encoding: "utf8" });
  if (version.error || version.status !== 0) throw new Error(`Python 3 is needed: ${version.error?.message ?? version.stderr}`);
  scratch = mkdtempSync(join(tmpdir(), "stdio-python-lesson-"));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the lesson adapter template and its fixture", () => {
  it("marks every line a student adapts with ADJUST", () => {
    const adjusted = readFileSync(ADAPTER, "utf8").split("\n").filter((line) => line.includes("# ADJUST:"));
    for (const needle of ["impl.ToolRegistry()", "registry.register(", "registry.validate(", "self.registry.get(", "self.registry.names()", '"timeout_ms"', '"override"', "record.handler", "e.path"]) {
      expect(adjusted.some((line) => line.includes(needle)), needle).toBe(true);
    }
  });

  it("lists every planted bug in bugs.json, each with the lesson sentence it breaks, and names a row for each", () => {
    const bugs = JSON.parse(readFileSync(join(FIXTURE, "bugs.json"), "utf8")) as { id: string; title: string; where: string }[];
    for (const bug of bugs) expect(bug.title.length * bug.where.length, bug.id).toBeGreaterThan(0);
    const known = spawnSync(PYTHON, ["-B", "-c", "import registry; print('\\n'.join(registry.KNOWN_BUGS))"], { cwd: FIXTURE, encoding: "utf8" });
    expect(known.status, known.stderr).toBe(0);
    expect(bugs.map((b) => b.id)).toEqual(known.stdout.trim().split("\n"));
    expect(Object.keys(KILLED_BY).sort()).toEqual(bugs.map((b) => b.id).sort());
    expect(bugs.length).toBeGreaterThanOrEqual(6);
  });

  it("refuses an unknown LESSON_BUG instead of running correct", () => {
    const run = spawnSync(PYTHON, ["-B", "-c", "import registry"], { cwd: FIXTURE, encoding: "utf8", env: { ...process.env, LESSON_BUG: "no-such-bug" } });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("unknown bug(s) no-such-bug");
  });

  it("smoke: speaks the protocol in the lesson profile", { timeout: 30_000 }, () => {
    const { code, stdout, stderr } = cli("smoke", "--subject", SUBJECT, "--profile", "lesson");
    expect(stdout, stderr).toMatch(/ok {4}start {5}lesson-registry-py 0\.1\.0 \(python\)/);
    expect(stdout).toMatch(/capabilities validate, registry, records/);
    expect(code, stdout + stderr).toBe(0);
  });

  it("smoke sends only the lesson's eight keywords: a registry refusing every other keyword gets no warning", { timeout: 30_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "lesson-strict-"));
    try {
      const strict = join(dir, "strict_registry.py");
      writeFileSync(
        strict,
        `import sys
sys.path.insert(0, ${JSON.stringify(FIXTURE)})
import registry as base
from registry import *  # noqa: F401,F403

EIGHT = {"type", "properties", "required", "enum", "minLength", "maxLength", "pattern", "items"}
_check = base.check_schema


def strict(schema, path=""):
    if isinstance(schema, dict) and set(schema) - EIGHT:
        raise base.InvalidSchema("outside the lesson's eight keywords: " + ", ".join(sorted(set(schema) - EIGHT)))
    _check(schema, path)


base.check_schema = strict
`,
      );
      const { code, stdout, stderr } = cli("smoke", "--subject", `${PYTHON} ${JSON.stringify(ADAPTER)} ${JSON.stringify(strict)}`, "--profile", "lesson");
      expect(stdout, stderr).not.toMatch(/^(warn|FAIL)/m);
      expect(stdout).toMatch(/ok {4}get {7}the record comes back/);
      expect(code, stdout + stderr).toBe(0);
      // the wrapper does refuse: a schema with minimum is an error
      const probe = spawnSync(PYTHON, ["-B", "-c", "import strict_registry as r; r.ToolRegistry().register('a', {'type': 'integer', 'minimum': 1}, lambda a: a)"], { cwd: dir, encoding: "utf8" });
      expect(probe.stderr).toMatch(/outside the lesson's eight keywords: minimum/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("generated lesson cases (--fresh in the lesson profile, its core tier)", () => {
  const FRESH = ["--fresh", "300", "--seed", "3", "--filter", "fresh/*", "--min-score", "0"];

  it("the independent lesson registry passes 300 of them: each a core row of the lesson's eight keywords", { timeout: 120_000 }, () => {
    const { report } = score(undefined, ...FRESH);
    expect(report.rows).toHaveLength(300);
    expect(report.rows.every((row) => row.tier === "core")).toBe(true);
    expect(notPassed(report)).toEqual([]);
  });

  it("its planted bugs fail some: lengths in UTF-8 bytes, numeric strings coerced, no expected_type", { timeout: 120_000 }, () => {
    for (const bug of ["length-utf8-bytes", "coerce-numbers", "no-expected-type"]) {
      const { report } = score(bug, ...FRESH);
      expect(report.rows.filter((row) => row.status === "failed").length, bug).toBeGreaterThan(0);
    }
  });
});

describe("the lesson fixture scored through the CLI (score --subject ... --profile lesson)", () => {
  it("passes every core row, and the diagnosis names no pitfall", { timeout: 120_000 }, () => {
    const { code, stderr, report } = score();
    expect(report.header.profile).toBe("lesson");
    expect(report.header.subject.implementation).toMatchObject({ name: "lesson-registry-py", language: "python" });
    expect(report.header.subject.capabilities).toEqual(expect.arrayContaining(["validate", "registry", "records"]));
    expect(report.header.tiers).toEqual(["core"]);
    expect(report.rows.some((row) => row.id.startsWith("lesson/"))).toBe(true);
    expect(notPassed(report)).toEqual([]);
    expect(report.diagnosis.matches).toEqual([]);
    expect(report.summary.scores.total).toMatchObject({ rows: report.rows.length, passed: report.rows.length, errored: 0, percent: 100 });
    expect(code, stderr).toBe(0);
  });
});

describe("each planted bug fails a core row of the lesson profile", () => {
  for (const [bug, row] of Object.entries(KILLED_BY)) {
    it(`LESSON_BUG=${bug} fails ${row}`, { timeout: 120_000 }, () => {
      const { code, report } = score(bug);
      const failed = report.rows.filter((r) => r.tier === "core" && r.status === "failed");
      expect(failed.length, `no core row fails with LESSON_BUG=${bug}`).toBeGreaterThan(0);
      expect(failed.map((r) => r.id)).toContain(row);
      expect(code).toBe(1);
    });
  }
});
