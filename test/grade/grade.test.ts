import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseTemplate } from "../../src/grade/template.js";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { requireBwrap } from "../helpers/hostile-helpers.js";
import { shellQuote } from "../../src/report/reporters/text.js";

// `tool-conformance grade` as a teacher runs it (npm test builds dist/ first), on classes made
// here from copies of the Python fixture: honest ones, one whose build fails, one that cannot
// start, one that crashes on every row, one that hangs. A few rows each (--filter) keep it quick.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "grade");
const HONEST = join(PACKAGE_ROOT, "test", "fixtures", "python-impl", "toolreg.py");
const SUBJECT = `python3 ${shellQuote(join(PACKAGE_ROOT, "conformance", "adapters", "python", "adapter.py"))} {dir}/toolreg.py`;
const FEW_ROWS = ["--filter", "validate/type/*"];

type Kind = "honest" | "broken-build" | "cannot-start" | "crash" | "hang" | "kills-its-scorer" | "block-once" | "writes-its-folder";

const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A class: SUBMISSIONS/NAME/ for each entry, each with toolreg.py and build.sh as its kind says. */
function makeClass(kinds: Record<string, Kind>): { subs: string; out: string } {
  const root = mkdtempSync(join(tmpdir(), "tc-grade-"));
  scratch.push(root);
  const subs = join(root, "submissions");
  for (const [name, kind] of Object.entries(kinds)) {
    const dir = join(subs, name);
    mkdirSync(dir, { recursive: true });
    const honest = readFileSync(HONEST, "utf8");
    const source =
      kind === "broken-build" ? `${honest}\ndef broken(:\n` : kind === "cannot-start" || kind === "kills-its-scorer" ? readFileSync(join(FIXTURES, `${kind}.py`), "utf8") : kind === "crash" ? honest + readFileSync(join(FIXTURES, "crash-on-every-row.py"), "utf8") : kind === "hang" ? "import time\ntime.sleep(600)\n" : kind === "writes-its-folder" ? `open("written-by-subject", "w").write("x")\n${honest}` : honest;
    writeFileSync(join(dir, "toolreg.py"), source);
    copyFileSync(join(FIXTURES, kind === "block-once" ? "block-once.sh" : "build.sh"), join(dir, "build.sh"));
  }
  return { subs, out: join(root, "grades") };
}

function grade(subs: string, out: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, "grade", subs, "--subject", SUBJECT, "--build", "sh build.sh", "--out", out, ...FEW_ROWS, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The class table's lines by label: its CSV cells by column name. */
function classCsv(out: string): Map<string, Record<string, string>> {
  const [head, ...lines] = readFileSync(join(out, "class.csv"), "utf8").trimEnd().split("\r\n");
  const columns = head!.split(",");
  const cells = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, columns.length).map((m) => m[1]!.replace(/^"|"$/g, "").replaceAll('""', '"'));
  return new Map(lines.map((line) => {
    const values = cells(line);
    return [values[0]!, Object.fromEntries(columns.map((c, i) => [c, values[i]!]))];
  }));
}

/** How many times a submission's build ran (build.sh appends a line each time). */
const builds = (subs: string, name: string) => (existsSync(join(subs, name, ".builds")) ? readFileSync(join(subs, name, ".builds"), "utf8").split("\n").filter(Boolean).length : 0);

const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);

describe("grade: a line for every submission", () => {
  it("scores the honest one, and gives each failure score 0 and its reason", { timeout: 120_000 }, () => {
    const { subs, out } = makeClass({ alice: "honest", bob: "broken-build", carol: "cannot-start", dave: "crash", erin: "hang", frank: "kills-its-scorer" });
    // long enough for dave's twenty restarts on a loaded machine
    const { code, stdout, stderr } = grade(subs, out, "--score-timeout", "30s");
    // frank (its score run killed) has no report: exit 1; bob (a failed build), carol, dave and erin have whole reports of score 0
    expect(code, stderr).toBe(1);
    const table = classCsv(out);
    expect([...table.keys()]).toEqual(["alice", "bob", "carol", "dave", "erin", "frank"]);
    expect(table.get("alice")).toMatchObject({ total: "100", status: "ok" });
    // a failed build is the student's 0%, with the build's log in the report
    // a failed build: nothing ran, so no row is "errored" (that would blame the adapter)
    expect(table.get("bob")).toMatchObject({ total: "0", rows: "30", errored: "0", status: "stopped: the build failed: exit code 1 (build.log); nothing was scored", report: join(out, "bob", "report.jsonl") });
    const bobReport = readFileSync(join(out, "bob", "report.jsonl"), "utf8");
    expect(bobReport).toContain('"stopped":{"cause":"the build failed: exit code 1 (build.log); nothing was scored","stderr":"');
    expect(bobReport.split("\n").find((l) => l.includes('"kind":"summary"'))).toContain("SyntaxError");
    // every row says the build failed (not the placeholder subject's exit), with no rerun line a student cannot use
    const bobRows = bobReport.split("\n").filter((l) => l.includes('"kind":"row"')).map((l) => JSON.parse(l) as { error?: string; repro?: { rerun?: string } });
    expect(bobRows).toHaveLength(30);
    for (const row of bobRows) expect(row).toMatchObject({ error: "the build failed: exit code 1 (build.log); nothing was scored" });
    expect(bobRows.filter((row) => row.repro?.rerun !== undefined)).toEqual([]);
    expect(bobReport).toContain('"log":"build.log"');
    expect(bobReport).not.toContain("exit 1'");
    // class.csv points at no report that is not there
    for (const [name, line] of table) expect(existsSync(line.report!), name).toBe(true);
    expect(readFileSync(join(out, "bob", "build.log"), "utf8")).toMatch(/SyntaxError[\s\S]*\(exit code 1, \d+\.\d s\)\n$/);
    expect(table.get("carol")).toMatchObject({ total: "0", errored: "30" });
    expect(table.get("carol")!.status).toMatch(/^stopped: could not start .*No module named 'no_such_module_in_this_submission'/);
    expect(table.get("dave"), JSON.stringify(table.get("dave"))).toMatchObject({ total: "0", errored: "30" });
    expect(table.get("dave")!.status).toMatch(/^stopped: the subject keeps failing: gave up after \d+ restarts/);
    // erin hangs at import: the handshake's own limit stops her before the score timeout, with a whole report of score 0
    expect(table.get("erin"), JSON.stringify(table.get("erin"))).toMatchObject({ total: "0", rows: "30", errored: "30" });
    expect(table.get("erin")!.status).toMatch(/^stopped: could not start .*no reply to "start"/);
    expect(table.get("frank")).toMatchObject({ total: "0", rows: "0" });
    expect(table.get("frank")!.status).toMatch(/^no report \(incomplete\b.*\); score killed by SIGKILL/);
    // each submission's folder holds its report (or not) and its logs
    expect(existsSync(join(out, "alice", "report.jsonl"))).toBe(true);
    expect(existsSync(join(out, "erin", "report.jsonl"))).toBe(true);
    // stdout is the Markdown table, as written
    expect(readFileSync(join(out, "class.md"), "utf8")).toBe(stdout);
    // one progress line per submission, each counted once
    const progress = stderr.split("\n").filter((line) => /^\[\d\/6\] /.test(line));
    expect(progress.map((line) => line.slice(0, 5)).sort()).toEqual(["[1/6]", "[2/6]", "[3/6]", "[4/6]", "[5/6]", "[6/6]"]);
    for (const name of ["alice", "bob", "carol", "dave", "erin", "frank"]) expect(progress.filter((line) => line.includes(` ${name} `)).length, name).toBe(1);
    expect(stderr).toMatch(/^\[\d\/6\] alice +100% +\d+\.\d s$/m);
    expect(stderr).toMatch(/^tool-conformance: 1 submission has no report \(score 0 in the class table\): no report; run the same command again to retry it$/m);
    // nothing of the hanging submission outlives the grade
    expect(spawnSync("pgrep", ["-f", join(subs, "erin")]).status).toBe(1);
  });
});

describe("grade: resumable", () => {
  it("--fresh with --key and no --seed: every submission the same generated cases, from a seed printed nowhere; with neither, refused", { timeout: 120_000 }, () => {
    const { subs, out } = makeClass({ a: "honest", b: "honest" });
    const keyFile = join(out, "..", "grading.key");
    writeFileSync(keyFile, "3c".repeat(32) + "\n");
    const run = grade(subs, out, "--key", keyFile, "--fresh", "4", "--filter", "fresh/*");
    expect(run.code, run.stderr).toBe(0);
    const freshIds = (name: string) => readFileSync(join(out, name, "report.jsonl"), "utf8").split("\n").filter((l) => l.includes('"part":"fresh"')).map((l) => (JSON.parse(l) as { id: string }).id);
    expect(freshIds("a")).toHaveLength(4);
    expect(freshIds("b")).toEqual(freshIds("a"));
    expect(run.stderr + run.stdout).not.toMatch(/seed/i);
    const refused = grade(subs, join(out, "..", "other"), "--fresh", "4");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^tool-conformance: --fresh needs --key \(its seed is derived from the key and never printed\) or --seed with grade/m);
  });

  it("keeps what is graded, redoes a deleted report and the failures; --force and new settings redo all", { timeout: 120_000 }, () => {
    const { subs, out } = makeClass({ a: "honest", b: "honest", c: "broken-build" });
    // c's build fails on every run: exit 1 (grading.md), kept or not
    const first = grade(subs, out);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain("1 of 3 builds failed (score 0, the build's log in its report): c");
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([1, 1, 1]);
    const reportA = readFileSync(join(out, "a", "report.jsonl"), "utf8");
    const mtimeA = statSync(join(out, "a", "report.jsonl")).mtimeMs;

    rmSync(join(out, "b", "report.jsonl"));
    const again = grade(subs, out);
    expect(again.code).toBe(1);
    // only b (its report gone) ran again; c's failed build is its result, kept while its files are the same
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([1, 2, 1]);
    expect(readFileSync(join(out, "a", "report.jsonl"), "utf8")).toBe(reportA);
    expect(statSync(join(out, "a", "report.jsonl")).mtimeMs).toBe(mtimeA);
    expect(again.stderr).toMatch(/^\[\d\/3\] a +100% +\(kept: graded by an earlier run\)$/m);
    expect(again.stderr).toMatch(/^\[\d\/3\] b +100% +\d+\.\d s$/m);
    expect([...classCsv(out).keys()]).toEqual(["a", "b", "c"]);

    // a cut-off report is not kept
    writeFileSync(join(out, "a", "report.jsonl"), reportA.slice(0, reportA.length >> 1));
    expect(grade(subs, out).code).toBe(1);
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([2, 2, 1]);

    expect(grade(subs, out, "--force").code).toBe(1);
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([3, 3, 2]);

    // other scoring settings: nothing kept, and they reach score
    expect(grade(subs, out, "--level", "verdict").code).toBe(1);
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([4, 4, 3]);
    expect(JSON.parse(readFileSync(join(out, "a", "report.jsonl"), "utf8").split("\n")[0]!)).toMatchObject({ kind: "header", level: "verdict", subject: { label: "a" } });
  });

  it("regrades exactly what changed: a submission's files, --only NAME; reporters added to a rerun are rendered from the kept reports", { timeout: 120_000 }, () => {
    const { subs, out } = makeClass({ a: "honest", b: "honest", c: "broken-build" });
    expect(grade(subs, out).code).toBe(1);
    // the student fixes the build: c alone is graded again, and now passes
    writeFileSync(join(subs, "c", "toolreg.py"), readFileSync(HONEST, "utf8"));
    const fixed = grade(subs, out, "--reporter", "markdown,html");
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([1, 1, 2]);
    expect(classCsv(out).get("c")).toMatchObject({ total: "100" });
    // a and b kept, their new reports rendered from report.jsonl
    expect(fixed.stderr).toMatch(/^\[\d\/3\] a +100% +\(kept: graded by an earlier run\)$/m);
    for (const name of ["a", "b", "c"]) for (const file of ["summary.md", "report.html"]) expect(existsSync(join(out, name, file)), `${name}/${file}`).toBe(true);
    // --only: those named are graded again whatever they hold, the others keep theirs
    expect(grade(subs, out, "--only", "b").code).toBe(0);
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([1, 2, 2]);
    // a weighting is a setting that changes a score: nothing kept, and it reaches score
    expect(grade(subs, out, "--scoring", "tests").code).toBe(0);
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([2, 3, 3]);
    expect(JSON.parse(readFileSync(join(out, "a", "report.jsonl"), "utf8").split("\n")[0]!)).toHaveProperty("scoring");
  });

  it("a grade killed mid-run (SIGKILL) leaves nothing running, and a rerun finishes the class", { timeout: 120_000 }, async () => {
    const { subs, out } = makeClass({ a: "honest", b: "block-once", c: "honest" });
    const child = spawn(process.execPath, [MAIN, "grade", subs, "--subject", SUBJECT, "--build", "sh build.sh", "--out", out, "--parallel", "1", ...FEW_ROWS], { stdio: "ignore" });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    // b's build blocks until the grader is gone: a (graded first, one at a time) is done by then
    await until(() => existsSync(join(subs, "b", ".blocked")), 60_000);
    child.kill("SIGKILL");
    await exited;
    const buildPid = Number(readFileSync(join(subs, "b", ".build-pid"), "utf8"));
    await until(() => !alive(buildPid), 15_000);
    expect(existsSync(join(out, "c", "report.jsonl"))).toBe(false);

    const rerun = grade(subs, out, "--parallel", "1");
    expect(rerun.code, rerun.stderr).toBe(0);
    expect([builds(subs, "a"), builds(subs, "b"), builds(subs, "c")]).toEqual([1, 2, 1]);
    expect(rerun.stderr).toMatch(/^\[1\/3\] a +100% +\(kept: graded by an earlier run\)$/m);
    const table = classCsv(out);
    expect([...table.values()].map((line) => [line.label, line.total, line.status])).toEqual([
      ["a", "100", "ok"],
      ["b", "100", "ok"],
      ["c", "100", "ok"],
    ]);
  });
});

describe("grade: --sandbox bwrap", () => {
  it("builds with the submission's folder writable, scores it read-only, and nothing escapes", { timeout: 60_000 }, () => {
    requireBwrap();
    const { subs, out } = makeClass({ a: "honest", b: "writes-its-folder" });
    // the sandbox hides this package's folder: the adapter comes from a folder of the grader's, shown read-only
    const kit = join(subs, "..", "kit");
    mkdirSync(kit);
    copyFileSync(join(PACKAGE_ROOT, "conformance", "adapters", "python", "adapter.py"), join(kit, "adapter.py"));
    const build = "sh build.sh; touch {dir}/../escaped-from-build 2>/dev/null; true";
    const result = spawnSync(process.execPath, [MAIN, "grade", subs, "--subject", `python3 ${shellQuote(join(kit, "adapter.py"))} toolreg.py`, "--build", build, "--out", out, ...FEW_ROWS, "--sandbox", "bwrap", "--sandbox-bind", kit], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    // the build wrote in a copy of its folder (the one scored), and nowhere else: not in the submission itself
    expect(builds(subs, "a")).toBe(0);
    expect(existsSync(join(subs, "escaped-from-build"))).toBe(false);
    expect(readFileSync(join(out, "a", "build.log"), "utf8")).toMatch(/^\(in a copy of .*, bwrap sandbox, started /m);
    const table = classCsv(out);
    expect(table.get("a")).toMatchObject({ total: "100", status: "ok" });
    // scoring: the folder is read-only to the subject
    expect(table.get("b")!.status).toMatch(/^stopped: could not start .*Read-only file system: 'written-by-subject'/);
    expect(existsSync(join(subs, "b", "written-by-subject"))).toBe(false);
  });
});

describe("grade: placeholders", () => {
  it("{dir} and {name} reach the shell exactly, bare or quoted, whatever the folder is called", { timeout: 60_000 }, () => {
    const name = `it's "odd" $HOME -x`;
    const { subs, out } = makeClass({ [name]: "honest" });
    const build = `printf '%s\\n' {name} "{dir}" '{name}' "{{literal}}" > .seen && sh build.sh`;
    const result = spawnSync(process.execPath, [MAIN, "grade", subs, "--subject", SUBJECT, "--build", build, "--out", out, ...FEW_ROWS], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(join(subs, name, ".seen"), "utf8")).toBe(`${name}\n${join(subs, name)}\n${name}\n{literal}\n`);
    expect(classCsv(out).get(name)).toMatchObject({ total: "100", status: "ok" });
  });

  it("templates: quoted for where they stand; unknown placeholders and open quotes refused", () => {
    const values = { dir: "/x/it's $a", name: "n" };
    const run = (template: string) => spawnSync("/bin/sh", ["-c", `printf '%s|' ${parseTemplate(template, "--subject").fill(values)}`], { encoding: "utf8" }).stdout;
    expect(run(`{dir} "{dir}" '{dir}' {dir}/f`)).toBe(`/x/it's $a|/x/it's $a|/x/it's $a|/x/it's $a/f|`);
    expect(parseTemplate("echo ${HOME} {{name}}", "--build").fill(values)).toBe("echo ${HOME} {name}");
    expect(parseTemplate("a {name}", "--subject").uses).toEqual(["name"]);
    expect(() => parseTemplate("run {folder}", "--subject")).toThrow("--subject: unknown placeholder {folder} (known: {dir}, {name}; write {{ and }} for literal braces)");
    expect(() => parseTemplate("run '{dir}", "--build")).toThrow("--build: a single quote is not closed");
  });
});

describe("grade: usage errors (exit 2, one line)", () => {
  const { subs, out } = makeClass({ a: "honest" });
  const empty = mkdtempSync(join(tmpdir(), "tc-grade-empty-"));
  scratch.push(empty);
  const cases: [string, string[], RegExp][] = [
    ["a missing folder", [join(empty, "nope"), "--subject", SUBJECT], /: no such folder$/m],
    ["an empty folder", [empty, "--subject", SUBJECT], /: no submission in it \(each submission is a subfolder; hidden ones are skipped\)$/m],
    ["an unknown placeholder", [subs, "--subject", "python3 x.py {folder}"], /^tool-conformance: --subject: unknown placeholder \{folder\}/],
    ["--out inside the submissions", [subs, "--subject", SUBJECT, "--out", join(subs, "grades")], /is inside .*: its folder would be taken for a submission/],
    ["a bad scoring option, as score says it", [subs, "--subject", SUBJECT, "--tier", "gold"], /^tool-conformance: --tier: "gold" is not a tier/],
    ["a bad duration", [subs, "--subject", SUBJECT, "--build-timeout", "soon"], /--build-timeout: "soon" is not a duration/],
    ["no --subject", [subs], /required option '--subject <command>' not specified/],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const result = spawnSync(process.execPath, [MAIN, "grade", ...args, ...(args.includes("--out") ? [] : ["--out", out])], { encoding: "utf8" });
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split("\n").filter((l) => !l.startsWith("(run with --help")).length).toBe(1);
      noStack(result.stderr);
      expect(existsSync(join(out, "a"))).toBe(false);
    });
  }
});

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
