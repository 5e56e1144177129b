import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { requireBwrap } from "../helpers/hostile-helpers.js";
import { needs } from "../helpers/machine.mjs";

// A Go class graded as docs/grading.md's Go recipe says, the recipe's lines run as a teacher types
// them (tool-conformance on the PATH, ~ a home of its own): the submissions of test/fixtures/go-class
// (go-impl, written from the seed, with each student's change laid over it), built by the Go kit in
// the bwrap sandbox with --runtime go and the race detector, keyed, with fresh cases and the default
// weights; then merge and report. What each student is told is checked against what their code does.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures");
const machine = needs("go", "gcc", "bwrap", "openssl");

const root = mkdtempSync(join(tmpdir(), "tc-go-class-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** submissions/NAME: go-impl under go/ (or at the top when the student has a go.mod there), the student's files over it. */
function makeClass(): string[] {
  const names = readdirSync(join(FIXTURES, "go-class"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  for (const name of names) {
    const own = join(FIXTURES, "go-class", name);
    const dir = join(root, "submissions", name);
    const module = existsSync(join(own, "go.mod")) ? dir : join(dir, "go");
    cpSync(join(FIXTURES, "go-impl"), module, { recursive: true, filter: (src) => !src.endsWith("_test.go") });
    cpSync(own, dir, { recursive: true });
  }
  return names;
}

/** The recipe's shell block, as docs/grading.md gives it. */
function recipe(): string {
  const doc = readFileSync(join(PACKAGE_ROOT, "docs", "grading.md"), "utf8");
  const section = doc.slice(doc.indexOf("### A Go class"));
  return /```sh\n([\s\S]*?)```/.exec(section)![1]!;
}

interface Run {
  codes: { command: string; code: number }[];
  stderr: string;
  ms: number;
}

/** Runs the recipe in ROOT with HOME=ROOT/home and tool-conformance a shell function; each call's exit code recorded. */
function runRecipe(): Run {
  const home = join(root, "home");
  mkdirSync(home, { recursive: true });
  symlinkSync(join(PACKAGE_ROOT, "conformance"), join(root, "conformance"));
  const codes = join(root, "codes");
  const script = `tool-conformance() { NO_COLOR=1 node ${JSON.stringify(MAIN)} "$@"; rc=$?; echo "$1 $rc" >> ${JSON.stringify(codes)}; return $rc; }\n${recipe()}`;
  const started = Date.now();
  const run = spawnSync("bash", ["-c", script], { cwd: root, encoding: "utf8", env: { ...process.env, HOME: home }, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw run.error;
  const lines = existsSync(codes) ? readFileSync(codes, "utf8").trim().split("\n") : [];
  return { codes: lines.map((l) => ({ command: l.split(" ")[0]!, code: Number(l.split(" ")[1]) })), stderr: run.stderr, ms: Date.now() - started };
}

/** class.csv's lines by label: its cells by column name. */
function classCsv(file: string): Map<string, Record<string, string>> {
  const [head, ...lines] = readFileSync(file, "utf8").trimEnd().split("\r\n");
  const columns = head!.split(",");
  const cells = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, columns.length).map((m) => m[1]!.replace(/^"|"$/g, "").replaceAll('""', '"'));
  return new Map(lines.map((line) => {
    const values = cells(line);
    return [values[0]!, Object.fromEntries(columns.map((c, i) => [c, values[i]!]))];
  }));
}

type Line = Record<string, unknown> & { kind: string };
const reportOf = (name: string): Line[] => readFileSync(join(root, "grades", name, "report.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Line);
const summaryOf = (name: string) => reportOf(name).find((l) => l.kind === "summary") as unknown as { weighted?: { percent: number }; scores: { total: { percent: number } }; ms: number };
const diagnosisOf = (name: string) => reportOf(name).find((l) => l.kind === "diagnosis") as unknown as { lines: string[]; matches: { id: string }[] };
const rowsOf = (name: string) => reportOf(name).filter((l) => l.kind === "row") as unknown as { id: string; status: string; part?: string; repro?: { rerun?: string }; checks: { note?: string }[] }[];

describe("a Go class, graded with docs/grading.md's Go recipe", () => {
  it.skipIf(machine.lacking)(`builds every student but the syntax error, names each one's fault, one number each ${machine.tag}`, { timeout: 900_000 }, () => {
    requireBwrap();
    const names = makeClass();
    const run = runRecipe();
    // grade exits 1: dave's build failed (the docs' exit codes); merge and each report 0
    expect(run.codes.find((c) => c.command === "grade"), run.stderr).toEqual({ command: "grade", code: 1 });
    expect(run.stderr).toContain("1 of 7 builds failed (score 0, the build's log in its report): dave");
    expect(run.codes.filter((c) => c.command !== "grade").every((c) => c.code === 0), JSON.stringify(run.codes)).toBe(true);
    expect(run.codes.filter((c) => c.command === "report")).toHaveLength(names.length);

    // every build but dave's succeeded, with the race detector, and no bind beyond the kit
    for (const name of names) {
      const log = readFileSync(join(root, "grades", name, "build.log"), "utf8");
      expect(log, name).toContain("go build -race");
      expect(log, name).not.toContain("WITHOUT the race detector");
      expect(log, name).not.toContain("is not in GOROOT");
      if (name === "dave") expect(log).toMatch(/syntax error|expected/);
      else expect(log, name).toContain("(exit code 0,");
    }

    const table = classCsv(join(root, "grades", "class.csv"));
    expect([...table.keys()]).toEqual(names);
    expect(table.get("alice")).toMatchObject({ total: "100", status: "ok", diagnosis: "no failures" });
    expect(table.get("bob")).toMatchObject({ total: "100", status: "ok" });
    expect(table.get("carol")!.diagnosis).toContain("s18 (pitfall 2, string length in UTF-8 bytes)");
    // a failed build is the student's 0% with no "errored rows"
    expect(table.get("dave")).toMatchObject({ total: "0", errored: "0" });
    expect(table.get("dave")!.status).toMatch(/^stopped: the build failed: exit code 1/);
    // the loop is the student's: its rows fail as hangs, named so, quickly
    expect(table.get("erin")!.status).toMatch(/^hung on \d+ rows \(no answer in time\)$/);
    expect(diagnosisOf("erin").lines.join("\n")).toMatch(/your code did not answer in 5000 ms on these inputs \(it hangs or loops\)/);
    expect(diagnosisOf("erin").lines.join("\n")).not.toContain("fix the adapter");
    expect(rowsOf("erin").filter((r) => r.id.startsWith("validate/pattern/") && r.status === "failed").length).toBeGreaterThan(3);
    expect(summaryOf("erin").ms).toBeLessThan(60_000);
    // a panic in Register, and a registry with no lock caught by the race build
    expect(table.get("frank")!.status).toMatch(/crashed on \d+ rows/);
    expect(table.get("grace")!.status).toMatch(/^data race on \d+ rows?$/);
    expect(rowsOf("grace").some((r) => r.id.startsWith("call/concurrent/") && r.status === "failed")).toBe(true);

    // one number per student: the progress line, class.csv, class.md, class.html, summary.md and report.html
    const classMd = readFileSync(join(root, "class", "class.md"), "utf8");
    const classHtml = readFileSync(join(root, "class", "class.html"), "utf8");
    for (const name of names) {
      const summary = summaryOf(name);
      const percent = summary.weighted?.percent ?? summary.scores.total.percent;
      const shown = `${percent}%`;
      expect(table.get(name)!.total, name).toBe(String(percent));
      expect(run.stderr, name).toMatch(new RegExp(`^\\[\\d/7\\] ${name} +${shown.replace(".", "\\.")}  `, "m"));
      // the name as the table shows a student's text (plain, or inert in a code span)
      const line = classMd.split("\n").find((l) => l.startsWith(`| ${name} |`) || l.startsWith(`| \`${name}\` |`));
      expect(line, name).toContain(`**${shown}**`);
      expect(classHtml, name).toContain(`<strong>${shown}</strong>`);
      expect(readFileSync(join(root, "grades", name, "summary.md"), "utf8").split("\n")[0], name).toContain(`: ${shown}`);
      expect(readFileSync(join(root, "grades", name, "report.html"), "utf8"), name).toContain(shown);
    }
    // carol's rows passed are labelled as rows, never beside the score as if they made it
    expect(readFileSync(join(root, "grades", "carol", "summary.md"), "utf8")).toContain("| **all rows** |");

    // a Go student's rerun line builds the adapter first, from their own folder
    const failing = rowsOf("carol").find((r) => r.status === "failed" && r.part === undefined)!;
    expect(failing.repro?.rerun).toMatch(/^sh build\.sh && tool-conformance score --subject 'env GORACE=halt_on_error=1 \.\/adapter' /);
    // and it runs there: carol's own folder with the kit's two files (the Go adapter's README says where they are)
    const own = join(root, "carol-at-home");
    cpSync(join(root, "submissions", "carol"), own, { recursive: true });
    for (const file of ["build.sh", "main.go"]) cpSync(join(root, "home", "go-kit", file), join(own, file));
    const rerun = spawnSync("bash", ["-c", `tool-conformance() { NO_COLOR=1 node ${JSON.stringify(MAIN)} "$@"; }\n${failing.repro!.rerun!}`], { cwd: own, encoding: "utf8", env: { ...process.env, HOME: join(root, "home"), GOFLAGS: "" }, timeout: 300_000 });
    expect(rerun.status, rerun.stderr).toBe(1);
    expect(rerun.stdout).toContain(`✗ ${failing.id} `);
    expect(rerun.stdout).toMatch(/^score 0% \(0 passed, 1 failed of 1 rows/m);

    // the rules most students fail count failed rows of students who ran: never dave's errored rows
    const rules = classMd.slice(classMd.indexOf("## Rules most students fail"), classMd.indexOf("## Failures no known mistake"));
    expect(rules).not.toContain("dave");
    expect(rules).not.toMatch(/keywords .* on |register "/);
  });
});
