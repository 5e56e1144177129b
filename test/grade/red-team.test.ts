import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { harnessFailure } from "../../src/grade/grade.js";
import { csvCell } from "../../src/report/reporters/inert.js";
import { parseTemplate } from "../../src/grade/template.js";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import type { Body } from "../../src/subjects/protocol.js";
import { rowsForProfile } from "../../src/corpus/rows.js";
import { runRow } from "../../src/run/run-row.js";
import { inProcessSubject } from "../../src/subjects/in-process.js";
import { flagsOf, type Report } from "../../src/report/report.js";
import { readKeyFile } from "../../src/report/format-report.js";
import { readReport, verifyReportFile } from "../../src/report/read-report.js";
import { SUBJECT_TEXT_CAPS } from "../../src/report/build-report.js";
import { cgroupSupport } from "../../src/subjects/sandbox/index.js";
import { formatPercent } from "../../src/judge/scoring.js";
import { seedFromKey } from "../../src/fuzz/fresh.js";
import { MAIN, NODE, NODE_BINDS, requireBwrap } from "../helpers/hostile-helpers.js";

// The red team of issue #20: submissions written to cheat or to harm, graded as the README's recipe
// says (CI runs this as root), each asserting the promise of docs/sandbox.md it attacks. Resource
// attacks are bounded (a few seconds, a few hundred MiB).

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "red-team");
const HONEST = join(PACKAGE_ROOT, "test", "fixtures", "python-impl", "toolreg.py");
const ADAPTER = join(PACKAGE_ROOT, "conformance", "adapters", "python", "adapter.py");
const FEW = ["--filter", "validate/type/*", "--jobs", "1", "--timeout", "5000"];
const ROOT = process.getuid?.() === 0;

const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error("the red-team tests run the CLI: run npm run build first");
  requireBwrap();
});

/** A request's text with its keys sorted, as the table cheat (table.py) writes its keys. */
function canonical(value: unknown): string {
  const sorted = (v: unknown): unknown => (Array.isArray(v) ? v.map(sorted) : typeof v === "object" && v !== null ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v);
  return JSON.stringify(sorted(value));
}

function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** The table cheat's table: every request the shipped corpus sends, with the public reference's answer. */
async function recordTable(): Promise<string> {
  const answers: Record<string, unknown> = {};
  const byCmd: Record<string, unknown> = {};
  const session = await inProcessSubject("reference").open("ag02");
  const record = async (body: Body) => {
    const reply = await session.send(body);
    answers[canonical(body)] ??= reply;
    byCmd[body.cmd] ??= reply;
    return reply;
  };
  await record({ cmd: "start", version: 1, profile: "ag02" } as Body);
  for (const row of rowsForProfile(loadCorpus(), "ag02")) await runRow(row, record, "ag02").catch(() => undefined);
  return JSON.stringify({ answers, byCmd });
}

/** A submission folder holding the red-team fixtures. */
function submission(): string {
  const dir = join(scratchDir("tc-red-"), "submission");
  cpSync(FIXTURES, dir, { recursive: true });
  return dir;
}

/** A grader's kit folder: the Python adapter, shown to the sandbox with --sandbox-bind. */
function kit(): string {
  const dir = join(scratchDir("tc-red-kit-"), "kit");
  mkdirSync(dir);
  copyFileSync(ADAPTER, join(dir, "adapter.py"));
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  out: string;
  report: Report | undefined;
}

function score(dir: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Run {
  const out = scratchDir("tc-red-out-");
  const result = spawnSync(NODE, [MAIN, "score", "--subject", command, "--submission", dir, "--out", out, "--no-progress", "--no-diagnosis", "--sandbox", "bwrap", ...NODE_BINDS, ...(args.includes("--reporter") ? [] : ["--reporter", "json"]), ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 90_000,
  });
  let report: Report | undefined;
  try {
    report = readReport(join(out, "report.jsonl"));
  } catch {
    report = undefined;
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, out, report };
}

/** Every file a run wrote, as text, by name. */
function outputs(out: string): Record<string, string> {
  return Object.fromEntries(readdirSync(out).map((name) => [name, readFileSync(join(out, name), "utf8")]));
}

/** Lines a GitHub Actions runner would obey as a workflow command. */
const workflowLines = (text: string) => text.split(/\r?\n|\r/).filter((line) => /^\s*::/.test(line) || line.includes("##["));

describe("the grader unharmed: the subject's uid and its text", () => {
  it("a subject cannot read /etc/shadow, whoever runs the grader; its name, answers and stderr are capped and no output obeys its ::error lines", { timeout: 90_000 }, () => {
    const dir = submission();
    const run = score(dir, `${NODE} text-attack.mjs`, [...FEW, "--min-score", "0", "--reporter", "json,markdown,html,junit,gradescope"]);
    expect(run.code, run.stderr).toBe(0);
    const report = run.report!;
    const name = report.header.subject.implementation.name;
    // not root, and root's secrets closed to it
    const uid = Number(/^uid=(\d+)/.exec(name)?.[1]);
    expect(uid).toBeGreaterThan(0);
    expect(name).toMatch(/shadow=unreadable \(EACCES\)/);
    if (ROOT) {
      const shadow = readFileSync("/etc/shadow", "utf8");
      const first = shadow.split("\n")[0]!;
      for (const [file, text] of Object.entries(outputs(run.out))) expect(text.includes(first), file).toBe(false);
      expect(run.stderr).toMatch(/runs as uid \d+ \(not root, no capability\)/);
    }
    // capped: the 100 KB name, 0.8 MB a reply
    expect(name.length).toBeLessThanOrEqual(SUBJECT_TEXT_CAPS.handshake + 40);
    const sizes = Object.fromEntries(readdirSync(run.out).map((file) => [file, statSync(join(run.out, file)).size]));
    expect(sizes["report.jsonl"]).toBeLessThan(2 * 1024 * 1024);
    for (const row of report.rows) expect(JSON.stringify(row.checks).length).toBeLessThan(SUBJECT_TEXT_CAPS.row + 4096);
    // neutralised in every output, and in what score printed
    for (const [file, text] of Object.entries({ ...outputs(run.out), stdout: run.stdout, stderr: run.stderr })) expect(workflowLines(text), file).toEqual([]);
    // the attack is there, shown harmlessly
    expect(outputs(run.out)["summary.md"]).toContain("error file=x::owned by the subject");
  });

  it("the same subject under --sandbox none shows what the caps remove (so the checks above can fail)", { timeout: 60_000 }, () => {
    const dir = submission();
    const out = scratchDir("tc-red-out-");
    const result = spawnSync(NODE, [MAIN, "score", "--subject", `${NODE} text-attack.mjs`, "--submission", dir, "--out", out, "--no-progress", "--no-diagnosis", "--reporter", "json", "--min-score", "0", ...FEW], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const name = readReport(join(out, "report.jsonl")).header.subject.implementation.name;
    // the uid is the grader's, and as root /etc/shadow is read
    expect(name).toMatch(new RegExp(`^uid=${process.getuid?.()} `));
    if (ROOT) expect(name).not.toMatch(/unreadable/);
  });
});

describe("neighbours unharmed: processes and memory", () => {
  const support = cgroupSupport();

  for (const cgroups of [true, false]) {
    it(`a fork bomb gets --max-processes and no more (${cgroups ? `pids cgroup ${support.version}` : "no cgroup: RLIMIT_NPROC of its own uid"})`, { timeout: 60_000 }, () => {
      if (cgroups && support.version === "none") return void expect(support.reason).toBeTruthy();
      if (!cgroups && !ROOT) return; // unprivileged: RLIMIT_NPROC of the grader's user, covered by test/subjects/hostile-subjects.test.ts
      const dir = submission();
      const run = score(dir, "python3 fork-bomb.py", [...FEW, "--max-processes", "16"], cgroups ? {} : { TOOL_CONFORMANCE_NO_CGROUPS: "1" });
      expect(run.code).toBe(3);
      const stderr = run.report!.summary.stopped?.stderr ?? "";
      const forked = Number(/forked (\d+)/.exec(stderr)?.[1]);
      expect(stderr).toMatch(/fork failed: \[Errno 11\] Resource temporarily unavailable/);
      expect(forked).toBeGreaterThan(0);
      expect(forked).toBeLessThanOrEqual(16);
      expect(run.stderr).toMatch(cgroups ? /16 processes \(pids cgroup v[12]\)/ : /16 processes \(RLIMIT_NPROC of its own uid\)/);
    });
  }

  it("shared memory is counted: 384 MiB of shared mappings under --memory 128M is killed (memory cgroup), held without one", { timeout: 60_000 }, () => {
    if (support.version === "none") return void expect(support.reason).toBeTruthy();
    const dir = submission();
    const capped = score(dir, "python3 shared-memory.py 384", [...FEW, "--memory", "128M"]);
    expect(capped.code).toBe(3);
    expect(capped.report!.summary.stopped?.stderr ?? "").not.toMatch(/held/);
    expect(capped.report!.summary.stopped?.cause).toMatch(/killed by SIGKILL/);
    expect(capped.stderr).toMatch(/memory 128 MiB for the whole sandbox, shared memory and tmpfs included \(memory cgroup v[12]\)/);
    // RLIMIT_DATA alone does not see it: the documented gap without cgroups
    const uncapped = score(dir, "python3 shared-memory.py 384", [...FEW, "--memory", "128M"], { TOOL_CONFORMANCE_NO_CGROUPS: "1" });
    expect(uncapped.report!.summary.stopped?.stderr).toMatch(/held 384 MiB/);
  });

  it("each sandbox has a CPU share of its own (a cpu cgroup, where one is writable) and its processes are the OOM killer's first choice", { timeout: 60_000 }, async () => {
    const dir = submission();
    const out = scratchDir("tc-red-out-");
    const marker = `37.${process.pid % 1000}`;
    const child = spawn(NODE, [MAIN, "score", "--subject", `sleep ${marker}`, "--submission", dir, "--out", out, "--no-progress", "--sandbox", "bwrap", ...NODE_BINDS, ...FEW], { stdio: ["ignore", "ignore", "pipe"] });
    let said = "";
    child.stderr.on("data", (chunk: Buffer) => (said += chunk.toString()));
    try {
      let pid: number | undefined;
      for (let waited = 0; pid === undefined && waited < 20_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        pid = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number).find((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, "utf8") === `sleep\0${marker}\0`;
          } catch {
            return false;
          }
        });
      }
      expect(pid, said).toBeDefined();
      expect(readFileSync(`/proc/${pid}/oom_score_adj`, "utf8").trim()).toBe("1000");
      const groups = readFileSync(`/proc/${pid}/cgroup`, "utf8");
      if (support.cpu) {
        expect(groups).toMatch(support.version === "v1" ? /^\d+:[\w,]*\bcpu\b[\w,]*:.*\/tool-conformance-\d+-\d+$/m : /^0::.*\/tool-conformance-\d+-\d+$/m);
        expect(said).toMatch(new RegExp(`an equal CPU share \\(cpu cgroup ${support.version}\\)`));
      } else expect(said).toMatch(/no CPU share of its own/);
      expect(said).toMatch(/first in line for the OOM killer/);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("a class with a fork bomb and a memory hog: the honest neighbours score what they score alone", { timeout: 120_000 }, () => {
    const root = scratchDir("tc-red-class-");
    const subs = join(root, "submissions");
    const bomb = readFileSync(join(FIXTURES, "fork-bomb.py"), "utf8").replace("sys.exit(1)", "");
    const memory = readFileSync(join(FIXTURES, "shared-memory.py"), "utf8").replace("want = int(sys.argv[1])", "want = 384").replace("sys.exit(1)", "");
    const honest = readFileSync(HONEST, "utf8");
    const sources: Record<string, string> = { a: honest, bomb: `${bomb}\n${honest}`, c: honest, hog: `${memory}\n${honest}`, e: honest };
    for (const [name, source] of Object.entries(sources)) {
      mkdirSync(join(subs, name), { recursive: true });
      writeFileSync(join(subs, name, "toolreg.py"), source);
    }
    // a file only its owner may read: graded from a copy that is the sandbox uid's own
    chmodSync(join(subs, "e", "toolreg.py"), 0o600);
    const tools = kit();
    const out = join(root, "grades");
    const result = spawnSync(NODE, [MAIN, "grade", subs, "--subject", `python3 ${join(tools, "adapter.py")} toolreg.py`, "--out", out, "--parallel", "5", "--sandbox", "bwrap", "--sandbox-bind", tools, ...NODE_BINDS, "--max-processes", "16", "--memory", "256M", "--filter", "validate/type/*"], { encoding: "utf8", timeout: 110_000 });
    expect(result.status, result.stderr).toBe(0);
    const csv = readFileSync(join(out, "class.csv"), "utf8");
    for (const name of ["a", "c", "e"]) expect(csv, name).toMatch(new RegExp(`^${name},100,.*,ok,`, "m"));
  });
});

describe("no borrowed answers", () => {
  it("--runtime python3: a Python subject sees its runtime and no node, no copy of this tool, not even one inside a bound folder", { timeout: 60_000 }, () => {
    const dir = submission();
    const tools = kit();
    // another copy of this tool, found by its package.json name, inside a folder the grader shows
    const copy = join(tools, "lib", "node_modules", "renamed-copy");
    mkdirSync(join(copy, "dist"), { recursive: true });
    writeFileSync(join(copy, "package.json"), JSON.stringify({ name: "tool-conformance", version: "9.9.9" }));
    writeFileSync(join(copy, "dist", "reference.js"), "// the reference\n");
    const probe = score(dir, `python3 probe.py /usr/bin/node ${NODE} ${join(copy, "package.json")} ${join(tools, "adapter.py")} /usr/lib/node_modules`, [...FEW, "--runtime", "python3", "--sandbox-bind", tools]);
    expect(probe.code).toBe(3);
    const seen = JSON.parse(/SEEN (\{.*\})/.exec(probe.report!.summary.stopped?.stderr ?? "")![1]!);
    expect(seen.node).toBeNull();
    expect(seen.paths).toEqual({ "/usr/bin/node": false, [NODE]: false, [join(copy, "package.json")]: false, [join(tools, "adapter.py")]: true, "/usr/lib/node_modules": false });
    expect(probe.stderr).toMatch(/only the runtimes python3 of \/usr/);
    // and the honest Python submission still scores everything under it
    writeFileSync(join(dir, "toolreg.py"), readFileSync(HONEST, "utf8"));
    const honest = score(dir, `python3 ${join(tools, "adapter.py")} toolreg.py`, [...FEW, "--runtime", "python3", "--sandbox-bind", tools, "--reporter", "json"]);
    expect(honest.code, honest.stderr).toBe(0);
    expect(honest.report!.summary.scores.total.percent).toBe(100);
    // without --runtime, the same probe finds node (so the check above can fail)
    const whole = score(dir, `python3 probe.py ${NODE}`, [...FEW]);
    expect(JSON.parse(/SEEN (\{.*\})/.exec(whole.report!.summary.stopped?.stderr ?? "")![1]!).paths[NODE]).toBe(true);
  });

  it("a submission carrying this tool's files is flagged in its own signed report, the class table and merge; an honest one is not", { timeout: 90_000 }, () => {
    const root = scratchDir("tc-red-carry-");
    const subs = join(root, "submissions");
    for (const name of ["carrier", "honest"]) {
      mkdirSync(join(subs, name), { recursive: true });
      writeFileSync(join(subs, name, "toolreg.py"), readFileSync(HONEST, "utf8"));
    }
    // vendored under another name: the built CLI and a corpus file, byte for byte
    const vendored = join(subs, "carrier", "vendor", "helper");
    mkdirSync(join(vendored, "cli"), { recursive: true });
    copyFileSync(join(PACKAGE_ROOT, "dist", "cli", "main.js"), join(vendored, "cli", "m.js"));
    const corpusFile = readdirSync(join(PACKAGE_ROOT, "conformance", "corpus"), { recursive: true, withFileTypes: true }).find((e) => e.isFile() && statSync(join(e.parentPath, e.name)).size > 1024)!;
    copyFileSync(join(corpusFile.parentPath, corpusFile.name), join(vendored, "data.bin"));
    const out = join(root, "grades");
    const keyFile = join(root, "grading.key");
    writeFileSync(keyFile, "5a".repeat(32) + "\n");
    const result = spawnSync(NODE, [MAIN, "grade", subs, "--subject", `python3 ${ADAPTER} toolreg.py`, "--out", out, "--filter", "validate/type/*", "--key", keyFile, "--reporter", "markdown"], { encoding: "utf8", timeout: 80_000 });
    expect(result.status, result.stderr).toBe(0);
    const csv = readFileSync(join(out, "class.csv"), "utf8");
    expect(csv).toMatch(/^carrier,.*FLAGGED: carries 2 files of tool-conformance \(/m);
    expect(csv.match(/FLAGGED/g)).toHaveLength(1);
    expect(csv).not.toMatch(/^honest,.*FLAGGED/m);
    expect(result.stderr).toMatch(/carrier .*FLAGGED/);
    // in the student's own report, signed: every reader sees it, and merge (the distributed templates' end) too
    const verified = verifyReportFile(join(out, "carrier", "report.jsonl"), { key: readKeyFile(keyFile) });
    expect(verified.ok && verified.report.summary.flags).toEqual([expect.stringMatching(/^FLAGGED: carries 2 files of tool-conformance/)]);
    expect(readFileSync(join(out, "carrier", "summary.md"), "utf8")).toMatch(/^> \*\*FLAGGED:\*\* `carries 2 files/m);
    expect(readFileSync(join(out, "honest", "summary.md"), "utf8")).not.toContain("FLAGGED");
    const merged = spawnSync(NODE, [MAIN, "merge", join(out, "carrier", "report.jsonl"), join(out, "honest", "report.jsonl"), "--key", keyFile, "--out", join(root, "merged")], { encoding: "utf8", timeout: 30_000 });
    expect(merged.status, merged.stderr).toBe(0);
    const mergedCsv = readFileSync(join(root, "merged", "class.csv"), "utf8");
    expect(mergedCsv).toMatch(/^carrier,.*FLAGGED: carries 2 files/m);
    expect(mergedCsv).not.toMatch(/^honest,.*FLAGGED/m);
  });

  it("a table of the public reference's answers passes the corpus, not the fresh cases of a keyed seed: its report is flagged", { timeout: 120_000 }, async () => {
    // the table: every request the corpus sends, with the reference's answer (what a student could record)
    const dir = submission();
    writeFileSync(join(dir, "table.json"), await recordTable());
    const keyFile = join(scratchDir("tc-red-key-"), "grading.key");
    writeFileSync(keyFile, "7e".repeat(32) + "\n");
    const run = score(dir, "python3 table.py", ["--runtime", "python3", "--fresh", "100", "--key", keyFile, "--min-score", "0", "--jobs", "1", "--reporter", "json,markdown"]);
    expect(run.code, run.stderr).toBe(0);
    const parts = run.report!.summary.scores.byPart;
    expect(parts.corpus!.percent).toBeGreaterThan(95);
    expect(parts.corpus!.percent - parts.fresh!.percent).toBeGreaterThanOrEqual(25);
    expect(flagsOf(run.report!)).toContainEqual(expect.stringMatching(/^FLAGGED: fresh part [\d.]+% far below corpus part [\d.]+%$/));
    expect(readFileSync(join(run.out, "summary.md"), "utf8")).toMatch(/^> \*\*FLAGGED:\*\* `fresh part/m);
  });

  it("--fresh with --key: the seed comes from the key, the same for every run, and no output shows it", { timeout: 90_000 }, () => {
    const dir = submission();
    const keyFile = join(scratchDir("tc-red-key-"), "grading.key");
    writeFileSync(keyFile, "6f".repeat(32) + "\n");
    const seed = seedFromKey(new Uint8Array(Buffer.from("6f".repeat(32), "hex")));
    const args = ["--fresh", "5", "--key", keyFile, "--min-score", "0", "--reporter", "json,markdown,html,junit,gradescope", "--filter", "validate/type/*", "--filter", "fresh/*", "--jobs", "1"];
    const one = score(dir, `${NODE} text-attack.mjs`, args);
    const two = score(dir, `${NODE} text-attack.mjs`, args);
    expect(one.code, one.stderr).toBe(0);
    const fresh = (run: Run) => run.report!.rows.filter((row) => row.part === "fresh").map((row) => row.id);
    expect(fresh(one)).toHaveLength(5);
    expect(fresh(two)).toEqual(fresh(one));
    for (const [file, text] of Object.entries({ ...outputs(one.out), stderr: one.stderr, stdout: one.stdout })) expect(text.includes(String(seed)), file).toBe(false);
  });
});

describe("templates and harness failures", () => {
  it("placeholders inside a nested shell or a command substitution are refused, in one line saying how to write it", () => {
    for (const build of [`sh -c 'cd {name} && make'`, `make NAME="$(basename {dir})"`, "echo `ls {dir}`", `bash -lc "make {name}"`, `eval make {name}`]) {
      const result = spawnSync(NODE, [MAIN, "grade", scratchDir("tc-red-subs-"), "--subject", "true", "--build", build], { encoding: "utf8" });
      expect(result.status, build).toBe(2);
      expect(result.stderr.trim().split("\n"), build).toHaveLength(1);
      expect(result.stderr).toMatch(/stands inside a nested shell .* pass it as an argument instead, e\.g\. sh -c 'cd "\$1" && make' sh \{(dir|name)\}/);
    }
    // the safe spellings pass
    for (const build of [`sh -c 'cd "$1" && make' sh {dir}`, `make -C {dir} NAME={name}`, `echo "$(date)" {dir}`]) expect(() => parseTemplate(build, "--build"), build).not.toThrow();
  });

  it("a report spoilt on the grader's side (spawn EAGAIN) is not the student's score: set aside and graded again; the same words from the subject are its own", () => {
    const report = { summary: { stopped: { cause: `could not start "python3 adapter.py": spawn /usr/bin/bwrap EAGAIN`, graderFault: "spawn /usr/bin/bwrap EAGAIN" } }, rows: [] } as unknown as Report;
    expect(harnessFailure(report)).toBe("spawn /usr/bin/bwrap EAGAIN");
    const row = { summary: {}, rows: [{ error: "no reply", graderFault: "the sandbox exited with code 1 before the subject ran" }] } as unknown as Report;
    expect(harnessFailure(row)).toBe("the sandbox exited with code 1 before the subject ran");
    const said = { summary: { stopped: { cause: `could not start: spawn /usr/bin/bwrap EAGAIN; bwrap: Can't fork` } }, rows: [{ error: "RuntimeError: spawn /bin/sh EAGAIN" }] } as unknown as Report;
    expect(harnessFailure(said)).toBeUndefined();
  });
});


describe("the grader's disk", () => {
  it("a build that fills the disk writes into a copy capped by --build-disk and --build-files, never into the submission, and nothing is left after", { timeout: 90_000 }, () => {
    const root = scratchDir("tc-red-disk-");
    const subs = join(root, "submissions");
    mkdirSync(join(subs, "filler"), { recursive: true });
    writeFileSync(join(subs, "filler", "toolreg.py"), readFileSync(HONEST, "utf8"));
    copyFileSync(join(FIXTURES, "fill.py"), join(subs, "filler", "fill.py"));
    const tools = kit();
    const out = join(root, "grades");
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith("tool-conformance-build-")).length;
    const result = spawnSync(NODE, [MAIN, "grade", subs, "--subject", `python3 ${join(tools, "adapter.py")} toolreg.py`, "--build", "python3 fill.py", "--out", out, "--sandbox", "bwrap", "--sandbox-bind", tools, ...NODE_BINDS, "--build-disk", "16M", "--build-files", "500", "--filter", "validate/type/*"], { encoding: "utf8", timeout: 80_000 });
    expect(result.status, result.stderr).toBe(0);
    const log = readFileSync(join(out, "filler", "build.log"), "utf8");
    if (ROOT) {
      expect(result.stderr).toMatch(/each submission is built and scored in a copy of its folder, capped at 16M and 500 files \(tmpfs\)/);
      const [, mib, files] = /wrote (\d+) MiB, then (\d+) empty files/.exec(log)!.map(Number);
      expect(mib).toBeLessThanOrEqual(16);
      expect(files).toBeLessThanOrEqual(500);
      expect(log).toMatch(/No space left on device/);
    } else {
      expect(result.stderr).toMatch(/NOT capped in size/);
    }
    // the submission itself is untouched, and the copy is gone
    expect(readdirSync(join(subs, "filler")).sort()).toEqual(["fill.py", "toolreg.py"]);
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith("tool-conformance-build-")).length).toBeLessThanOrEqual(before);
    expect(readFileSync(join(out, "class.csv"), "utf8")).toMatch(/^filler,100,.*,ok,/m);
  });
});

describe("bloated reports", () => {
  it("three submissions answering 0.8 MB of errors to every row: reports of a few MB, grade holds the class in a 96 MB heap, merge a class of 90 in 64 MB", { timeout: 180_000 }, () => {
    const root = scratchDir("tc-red-bloat-");
    const subs = join(root, "submissions");
    const names = ["b1", "b2", "b3"];
    for (const name of names) {
      mkdirSync(join(subs, name), { recursive: true });
      for (const file of ["serve.mjs", "text-attack.mjs"]) copyFileSync(join(FIXTURES, file), join(subs, name, file));
    }
    const out = join(root, "grades");
    // 53 rows at about 0.8 MB a reply: about 42 MB a report without the caps
    const rows = ["validate/type/*", "validate/enum/*"].flatMap((f) => ["--filter", f]);
    const result = spawnSync(NODE, ["--max-old-space-size=96", MAIN, "grade", subs, "--subject", `${NODE} text-attack.mjs`, "--out", out, "--parallel", "2", "--sandbox", "bwrap", ...NODE_BINDS, "--no-diagnosis", ...rows], { encoding: "utf8", timeout: 170_000 });
    expect(result.status, result.stderr).toBe(0);
    for (const name of names) expect(statSync(join(out, name, "report.jsonl")).size, name).toBeLessThan(SUBJECT_TEXT_CAPS.report + 2 * 1024 * 1024);
    const merged = spawnSync(NODE, ["--max-old-space-size=96", MAIN, "merge", ...names.map((name) => join(out, name, "report.jsonl")), "--out", join(root, "merged")], { encoding: "utf8" });
    expect(merged.status, merged.stderr).toBe(0);
    // a class of 90 such reports (each copied thirty times; the copies are refused as duplicates, after being read) merges in the same heap
    const many = names.flatMap((name) =>
      Array.from({ length: 30 }, (_, i) => {
        const copy = join(root, "copies", `${name}-${i}`, "report.jsonl");
        mkdirSync(join(copy, ".."), { recursive: true });
        copyFileSync(join(out, name, "report.jsonl"), copy);
        return copy;
      }),
    );
    const class30 = spawnSync(NODE, ["--max-old-space-size=64", MAIN, "merge", ...many, "--out", join(root, "merged30")], { encoding: "utf8" });
    expect(class30.stderr).not.toMatch(/heap out of memory/);
    expect(class30.status, class30.stderr).toBe(1);
    expect(class30.stderr).toMatch(/87 of 90 reports refused/);
  });
});

describe("the GitHub Actions template, run here", () => {
  it("its jobs' scripts, run as the runner would (list, one score job per submission, merge): a hostile submission cannot touch its classmates nor read the key; the class table shows everyone's own score", { timeout: 240_000 }, () => {
    const workflow = YAML.parse(readFileSync(join(PACKAGE_ROOT, "conformance", "grading", "github-actions.yml"), "utf8"));
    const stepOf = (job: string, which: (step: { id?: string; name?: string }) => boolean) => (workflow.jobs[job].steps as { id?: string; name?: string; run: string; env?: Record<string, string> }[]).find(which)!;
    const root = scratchDir("tc-red-gha-");
    const repo = join(root, "repo");
    const keyText = "5a".repeat(32);
    // the repository: submissions, and what `npm install` would put in node_modules
    const honest = readFileSync(HONEST, "utf8");
    const mallory = readFileSync(join(FIXTURES, "mallory.py"), "utf8").replace("@CLASS@", join(root, "jobs", "alice", "runner-temp", "grades")).replace("@KEY@", join(root, "jobs", "alice", "runner-temp", "grading.key"));
    for (const [name, source] of Object.entries({ alice: honest, bob: honest, mallory: `${mallory}\n${honest}` })) {
      mkdirSync(join(repo, "submissions", name), { recursive: true });
      writeFileSync(join(repo, "submissions", name, "toolreg.py"), source);
    }
    // sudo: the runner's user may use it; here the test already is that user (root in CI)
    const bin = join(root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "sudo"), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
    const workspace = (dir: string) => {
      cpSync(repo, dir, { recursive: true });
      mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
      symlinkSync(PACKAGE_ROOT, join(dir, "node_modules", "tool-conformance"));
      // as npm links a bin: an executable that node runs too
      writeFileSync(join(dir, "node_modules", ".bin", "tool-conformance"), `#!/usr/bin/env node\nimport(${JSON.stringify(MAIN)});\n`, { mode: 0o755 });
    };
    const bash = (script: string, cwd: string, env: Record<string, string>) =>
      spawnSync("bash", ["-e", "-c", script], { cwd, encoding: "utf8", timeout: 120_000, env: { PATH: `${bin}:${process.env.PATH}`, HOME: root, ...workflow.env, ...env } });
    // job "list": the batches, one submission each
    const listDir = join(root, "jobs", "list");
    workspace(listDir);
    const outputs = join(root, "list-outputs");
    writeFileSync(outputs, "");
    const listed = bash(stepOf("list", (s) => s.id === "list").run, listDir, { SUBMISSIONS: "submissions", PER_JOB: "1", GITHUB_OUTPUT: outputs });
    expect(listed.status, listed.stderr).toBe(0);
    const said = Object.fromEntries(readFileSync(outputs, "utf8").trim().split("\n").map((line) => [line.slice(0, line.indexOf("=")), JSON.parse(line.slice(line.indexOf("=") + 1))]));
    expect(said.batches).toEqual([["alice"], ["bob"], ["mallory"]]);
    // job "score", once per batch, each on a runner of its own; mallory's before bob's
    const artifacts = join(root, "artifacts");
    for (const names of [["alice"], ["mallory"], ["bob"]]) {
      const dir = join(root, "jobs", names[0]!);
      workspace(join(dir, "workspace"));
      mkdirSync(join(dir, "runner-temp"));
      const job = bash(stepOf("score", (s) => s.name === "build and score, sandboxed").run, join(dir, "workspace"), { SUBMISSIONS: "submissions", NAMES: JSON.stringify(names), GRADING_KEY: keyText, RUNNER_TEMP: join(dir, "runner-temp"), GITHUB_WORKSPACE: join(dir, "workspace"), GRADE_OPTIONS: "" });
      expect(job.status, `${job.stdout}\n${job.stderr}`).toBe(0);
      // the key is gone from the runner once graded; the artifact holds the reports only
      expect(existsSync(join(dir, "runner-temp", "grading.key"))).toBe(false);
      cpSync(join(dir, "workspace", "reports"), artifacts, { recursive: true });
    }
    expect(readFileSync(join(artifacts, "alice", "report.jsonl"), "utf8")).not.toContain("mallory");
    expect(readFileSync(join(root, "jobs", "bob", "workspace", "submissions", "bob", "toolreg.py"), "utf8")).toBe(honest);
    // job "merge": the class table, every report checked against the key
    const mergeDir = join(root, "jobs", "merge");
    workspace(mergeDir);
    cpSync(artifacts, join(mergeDir, "reports"), { recursive: true });
    mkdirSync(join(root, "jobs", "merge-temp"));
    const summary = join(root, "step-summary.md");
    const merged = bash(stepOf("merge", (s) => s.name === "class table").run, mergeDir, { NAMES: JSON.stringify(said.names), GRADING_KEY: keyText, RUNNER_TEMP: join(root, "jobs", "merge-temp"), GITHUB_STEP_SUMMARY: summary });
    expect(merged.status, merged.stderr).toBe(0);
    // the whole corpus (the template has no filter): every honest registry scores what the Python fixture scores alone
    const csv = readFileSync(join(mergeDir, "class", "class.csv"), "utf8");
    const totals = ["alice", "bob", "mallory"].map((name) => new RegExp(`^${name},.*?,([\\d.]+),\\d+,\\d+,0,ok,`, "m").exec(csv)?.[1]);
    spawnSync(NODE, [MAIN, "score", "--subject", `python3 ${ADAPTER} ${join(repo, "submissions", "alice", "toolreg.py")}`, "--min-score", "0", "--reporter", "json", "--out", join(root, "alone"), "--no-progress"], { encoding: "utf8", timeout: 60_000 });
    const aloneTotal = formatPercent(readReport(join(root, "alone", "report.jsonl")).summary.scores.total.percent).replace("%", "");
    expect(totals, csv).toEqual([aloneTotal, aloneTotal, aloneTotal]);
    expect(readFileSync(summary, "utf8")).toMatch(/\| `mallory` \|/);
  });
});

describe("the Kubernetes template, run here", () => {
  it("its container script grades each submission sandboxed and signed: a hostile one cannot touch its classmates' reports or submissions, nor read the key; merge --key shows everyone's own score", { timeout: 240_000 }, () => {
    const job = YAML.parse(readFileSync(join(PACKAGE_ROOT, "conformance", "grading", "kubernetes-indexed-job.yaml"), "utf8"));
    const container = job.spec.template.spec.containers[0];
    const script: string = container.args[0];
    const env = Object.fromEntries((container.env as { name: string; value: string }[]).map((e) => [e.name, e.value]));
    // read-only submissions, a writable reports folder, the key from a Secret: as the template mounts them
    expect(container.volumeMounts).toEqual(expect.arrayContaining([expect.objectContaining({ mountPath: "/class/submissions", readOnly: true }), expect.objectContaining({ mountPath: "/secrets", readOnly: true })]));
    const root = scratchDir("tc-red-k8s-");
    const classDir = join(root, "class");
    const keyFile = join(root, "secrets", "grading.key");
    mkdirSync(join(root, "secrets"));
    writeFileSync(keyFile, "5a".repeat(32) + "\n", { mode: 0o400 });
    const honest = readFileSync(HONEST, "utf8");
    const mallory = readFileSync(join(FIXTURES, "mallory.py"), "utf8").replace("@CLASS@", classDir).replace("@KEY@", keyFile);
    for (const [name, source] of Object.entries({ alice: honest, bob: honest, mallory: `${mallory}\n${honest}` })) {
      mkdirSync(join(classDir, "submissions", name), { recursive: true });
      writeFileSync(join(classDir, "submissions", name, "toolreg.py"), source);
    }
    mkdirSync(join(classDir, "reports"));
    const bin = join(root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "tool-conformance"), `#!/bin/sh\nexec ${NODE} ${MAIN} "$@"\n`, { mode: 0o755 });
    const run = (index: number) =>
      spawnSync("bash", ["-c", script], {
        encoding: "utf8",
        timeout: 100_000,
        env: { PATH: process.env.PATH, HOME: root, ...env, JOB_COMPLETION_INDEX: String(index), CLASS_DIR: classDir, KEY_FILE: keyFile, TC_BIN: join(bin, "tool-conformance"), GRADE_OPTIONS: "--filter validate/type/* --runtime python3", ADAPTERS: join(PACKAGE_ROOT, "conformance", "adapters") },
      });
    // alice first; mallory (index 2) before bob is graded
    const bobBefore = readFileSync(join(classDir, "submissions", "bob", "toolreg.py"), "utf8");
    for (const index of [0, 2, 1]) {
      const pod = run(index);
      expect(pod.status, `${pod.stdout}\n${pod.stderr}`).toBe(0);
    }
    expect(readFileSync(join(classDir, "submissions", "bob", "toolreg.py"), "utf8")).toBe(bobBefore);
    expect(readFileSync(join(classDir, "reports", "alice", "report.jsonl"), "utf8")).not.toContain("mallory");
    expect(readFileSync(keyFile, "utf8")).toBe("5a".repeat(32) + "\n");
    const merged = spawnSync(NODE, [MAIN, "merge", ...["alice", "bob", "mallory"].map((name) => join(classDir, "reports", name, "report.jsonl")), "--key", keyFile, "--out", join(root, "table")], { encoding: "utf8" });
    expect(merged.status, merged.stderr).toBe(0);
    const csv = readFileSync(join(root, "table", "class.csv"), "utf8");
    for (const name of ["alice", "bob", "mallory"]) expect(csv, name).toMatch(new RegExp(`^${name},100,.*,ok,`, "m"));
  });
});

// Issue #29: a grade a student cannot inflate. Each attack is replayed as the student made it.
describe("a grade a student cannot inflate", () => {
  /** The honest Python registry with `required` and `additionalProperties: false` left out (s06 and s07 at once). */
  const lazy = () =>
    readFileSync(HONEST, "utf8")
      .replace(/errors\.append\(ValidationError\(path, "missing required property %s" % quote\(name\)\)\)/, "pass")
      .replace(/errors\.append\(ValidationError\(path, "unexpected property %s" % quote\(name\)\)\)/, "pass");
  const keyOf = (hex: string) => {
    const file = join(scratchDir("tc-red-key-"), "grading.key");
    writeFileSync(file, hex.repeat(32) + "\n");
    return file;
  };
  const graded = ["--runtime", "python3", "--fresh", "200", "--min-score", "0", "--jobs", "2"];

  it("a table of the reference's answers in front of a registry that passes 90% of fresh cases is flagged, by pitfall; the same weak registry alone and the honest one are not", { timeout: 300_000 }, async () => {
    const key = keyOf("3c");
    const cheat = submission();
    writeFileSync(join(cheat, "table.json"), await recordTable());
    writeFileSync(join(cheat, "lazy.py"), lazy());
    copyFileSync(ADAPTER, join(cheat, "adapter.py"));
    const run = score(cheat, "python3 table-fallback.py", [...graded, "--key", key, "--reporter", "json"]);
    expect(run.code, run.stderr).toBe(0);
    const parts = run.report!.summary.scores.byPart;
    expect(parts.corpus!.percent).toBeGreaterThan(95);
    // the total gap alone would not flag it: the fallback is good
    expect(parts.corpus!.percent - parts.fresh!.percent).toBeLessThan(25);
    expect(flagsOf(run.report!)).toEqual([expect.stringMatching(/^FLAGGED: corpus rows passed where generated cases of the same pitfall fail \((s06|s07): all \d+ corpus rows passed, \d+ of \d+ generated cases failed/)]);
    // honest classmates: the weak registry alone (its own 90%-something), the honest one
    for (const [name, code] of [["lazy", lazy()], ["honest", readFileSync(HONEST, "utf8")]] as const) {
      const dir = submission();
      writeFileSync(join(dir, "toolreg.py"), code);
      copyFileSync(ADAPTER, join(dir, "adapter.py"));
      const alone = score(dir, "python3 adapter.py toolreg.py", [...graded, "--key", key, "--reporter", "json"]);
      expect(alone.code, alone.stderr).toBe(0);
      expect(flagsOf(alone.report!), name).toEqual([]);
      if (name === "lazy") expect(alone.report!.summary.scores.byPart.corpus!.percent).toBeLessThan(100);
    }
  });

  it("the secret cases stay secret: a subject that packs each generated request into its answer and its stderr finds it in no output, and each attempt gets cases of its own", { timeout: 180_000 }, async () => {
    const key = keyOf("4d");
    const dir = submission();
    writeFileSync(join(dir, "table.json"), await recordTable());
    const run = score(dir, "python3 leak.py", [...graded, "--key", key, "--reporter", "json,markdown,html,junit,gradescope"]);
    expect(run.code, run.stderr).toBe(0);
    const fresh = run.report!.rows.filter((row) => row.part === "fresh");
    expect(fresh.length).toBe(200);
    expect(fresh.filter((row) => row.status !== "passed").length).toBeGreaterThan(100);
    for (const [file, text] of Object.entries({ ...outputs(run.out), stderr: run.stderr, stdout: run.stdout })) expect(text.includes("LEAK:"), file).toBe(false);
    // a failing generated case shows its status, rule and why, never what it sent
    const failing = fresh.find((row) => row.status === "failed")!;
    expect(failing.secret).toBe(true);
    expect(failing.repro).toEqual({ why: expect.stringMatching(/^A case generated for this run/) });
    expect(failing.rule).not.toMatch(/ on /);
    // the next version of the submission is scored on other cases: a case copied out never comes back
    const ids = (attempt: string) => {
      const again = score(dir, "python3 leak.py", [...graded, "--key", key, "--attempt", attempt, "--filter", "fresh/*", "--no-diagnosis"]);
      return again.report!.rows.map((row) => row.id);
    };
    const first = ids("a".repeat(64));
    expect(ids("a".repeat(64))).toEqual(first);
    const second = ids("b".repeat(64));
    expect(second.filter((id) => first.includes(id)).length).toBeLessThan(10);
  });

  /** Markdown a renderer would make live, outside code spans and fences: images, links, autolinks, mentions, headings, HTML. */
  function liveMarkdown(text: string): string[] {
    let rest = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "");
    rest = rest.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, "");
    return [...rest.matchAll(/!\[|\]\(|https?:\/\/|www\.|@everyone|<img|<a |^\s*#{1,6} .*Regrade/gim)].map((m) => m[0]);
  }

  it("student text renders inert: Markdown, mentions and URLs on a subject's stderr and in a submission's name stay text in class.md and summary.md, from grade and merge; CSV cells never start a formula", { timeout: 120_000 }, () => {
    const root = scratchDir("tc-red-md-");
    const subs = join(root, "submissions");
    const name = "@everyone www.evil.example";
    mkdirSync(join(subs, name), { recursive: true });
    writeFileSync(join(subs, name, "md.py"), [
      "import sys",
      "sys.stderr.write('![x](https://evil.example/x.png)\\n# Regrade here: your score was mis-recorded\\n[Regrade here](https://evil.example/regrade) @everyone https://evil.example\\nError: ![y](https://evil.example/y.png) [click](https://evil.example) @everyone\\n')",
      "sys.exit(1)",
    ].join("\n"));
    const out = join(root, "grades");
    const key = keyOf("5e");
    const result = spawnSync(NODE, [MAIN, "grade", subs, "--subject", "python3 md.py", "--out", out, "--filter", "validate/type/*", "--key", key, "--reporter", "markdown"], { encoding: "utf8", timeout: 80_000 });
    expect(result.status, result.stderr).not.toBe(2);
    const classMd = readFileSync(join(out, "class.md"), "utf8");
    expect(classMd).toContain("evil.example"); // the text is there, as text
    expect(liveMarkdown(classMd)).toEqual([]);
    const summary = readFileSync(join(out, name, "summary.md"), "utf8");
    expect(summary).toContain("evil.example");
    expect(liveMarkdown(summary)).toEqual([]);
    const merged = spawnSync(NODE, [MAIN, "merge", join(out, name, "report.jsonl"), "--key", key, "--out", join(root, "merged")], { encoding: "utf8", timeout: 30_000 });
    expect(merged.status, merged.stderr).toBe(0);
    expect(liveMarkdown(readFileSync(join(root, "merged", "class.md"), "utf8"))).toEqual([]);
    // the checker itself sees live Markdown where there is some
    expect(liveMarkdown("![x](https://a.example/x.png) @everyone")).toHaveLength(4);
    // a spreadsheet reads no formula in the class table, however the text starts
    expect(readFileSync(join(out, "class.csv"), "utf8")).toMatch(/^'@everyone www\.evil\.example,/m);
    for (const text of ["=1+1", " =1+1", "\u3000=HYPERLINK(\"x\")", "＝1+1", "＋1", "－1", "＠x", "\t=1", "-x"]) expect(csvCell(text).replace(/^"/, ""), text).toMatch(/^'/);
    for (const text of ["-3.5", "42", "plain", "a=b"]) expect(csvCell(text), text).toBe(text);
  });

  it("a student cannot make the grader blame itself: an honest registry whose fifth new_registry raises 'spawn /bin/sh EAGAIN' is graded as it answered; a sandbox that truly fails is set aside", { timeout: 120_000 }, () => {
    const root = scratchDir("tc-red-eagain-");
    const subs = join(root, "submissions");
    mkdirSync(join(subs, "eagain"), { recursive: true });
    const honest = readFileSync(HONEST, "utf8");
    // the fifth registry the harness asks for raises the grader's own words
    writeFileSync(join(subs, "eagain", "toolreg.py"), `${honest}\n_made = [0]\n_real_new_registry = new_registry\ndef new_registry(*args, **kwargs):\n    _made[0] += 1\n    if _made[0] == 5:\n        raise RuntimeError("spawn /bin/sh EAGAIN")\n    return _real_new_registry(*args, **kwargs)\n`);
    copyFileSync(ADAPTER, join(subs, "eagain", "adapter.py"));
    const out = join(root, "grades");
    const args = ["--subject", "python3 adapter.py toolreg.py", "--out", out, "--filter", "TestRegisterRules", "--sandbox", "bwrap", "--runtime", "python3"];
    const result = spawnSync(NODE, [MAIN, "grade", subs, ...args], { encoding: "utf8", timeout: 100_000 });
    const csv = readFileSync(join(out, "class.csv"), "utf8");
    expect(csv, result.stderr).not.toMatch(/grader failed/);
    const report = readReport(join(out, "eagain", "report.jsonl"));
    expect(report.rows.some((row) => row.status === "errored" && /EAGAIN/.test(row.error ?? ""))).toBe(true);
    expect(harnessFailure(report)).toBeUndefined();
    // a bwrap that exits before it runs anything (as bwrap does when it cannot fork): the grader's failure
    const bin = join(root, "bin");
    mkdirSync(bin);
    const real = spawnSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).stdout.trim();
    writeFileSync(join(bin, "bwrap"), `#!/bin/sh\ncase " $* " in *" --json-status-fd "*) echo "bwrap: Can't fork: Resource temporarily unavailable" >&2; exit 1;; esac\nexec ${real} "$@"\n`);
    chmodSync(join(bin, "bwrap"), 0o755);
    const out2 = join(root, "grades-2");
    const failing = spawnSync(NODE, [MAIN, "grade", subs, ...args.map((a) => (a === out ? out2 : a))], { encoding: "utf8", timeout: 100_000, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    expect(readFileSync(join(out2, "class.csv"), "utf8"), failing.stderr).toMatch(/not graded: the grader failed \(the sandbox exited with code 1 before the subject ran\)/);
  });

  it("only stdin, stdout and stderr cross into the sandbox: a root-only log the grader's shell left open on fd 200 cannot be written from inside", { timeout: 60_000 }, () => {
    const root = scratchDir("tc-red-fd-");
    const log = join(root, "grader.log");
    writeFileSync(log, "");
    chmodSync(log, 0o600);
    const dir = submission();
    writeFileSync(join(dir, "fds.py"), [
      "import os, sys",
      "for fd in (20, 100, 200, 251):",
      "    try:",
      "        os.write(fd, b'WRITTEN-FROM-INSIDE-THE-SANDBOX uid=%d\\n' % os.getuid())",
      "        sys.stderr.write('fd %d open\\n' % fd)",
      "    except OSError:",
      "        pass",
      "sys.exit(1)",
    ].join("\n"));
    const command = `exec 200>>'${log}' 20>>'${log}' 100>>'${log}' 251>>'${log}'; exec ${JSON.stringify(NODE)} ${JSON.stringify(MAIN)} score --subject 'python3 fds.py' --submission '${dir}' --out '${join(root, "out")}' --sandbox bwrap --runtime python3 --reporter json --no-progress --min-score 0`;
    const result = spawnSync("bash", ["-c", command], { encoding: "utf8", timeout: 50_000 });
    expect(result.status, result.stderr).not.toBeNull();
    expect(readFileSync(log, "utf8")).toBe("");
    expect(JSON.stringify(readReport(join(root, "out", "report.jsonl")).summary)).not.toMatch(/fd \d+ open/);
  });
});

