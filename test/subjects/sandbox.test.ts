import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { parseSize } from "../../src/subjects/sandbox/index.js";
import { parseDuration } from "../../src/cli/arguments.js";
import { FIXTURES, killAll, MAIN, newToken, NODE, NODE_BINDS, cleanUp, requireBwrap, score, scoreInBackground, statuses, submission, survivors, waitForProcesses } from "../helpers/hostile-helpers.js";

// --sandbox bwrap: what a subject sees and what it can do, observed from inside by a probe
// fixture and from outside by the processes left on the machine; the two cheats of issue #9
// (replaying the grader's corpus, running the grader's own reference adapter) work under
// --sandbox none and fail under bwrap.

const VALIDATE_TYPE = ["--filter", "validate/type/*", "--jobs", "1", "--timeout", "3000"];
const CORPUS = join(PACKAGE_ROOT, "conformance", "corpus");
const DIST_MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const NODE_MODULES = join(PACKAGE_ROOT, "node_modules");

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error("the sandbox tests run the CLI: run npm run build first");
  requireBwrap();
});
afterAll(cleanUp);

describe("what a subject sees under --sandbox bwrap", () => {
  it("its folder, the runtimes, a private /tmp, its own caps and environment; nothing of the harness, no network, no other process", () => {
    const dir = submission();
    const out = join(dir, "reports");
    const args = ["--sandbox", "bwrap", "--writable", ...NODE_BINDS, "--memory", "256M", "--max-processes", "32", "--cpu-seconds", "30", "--max-file-size", "8M", "--out", out, "--reporter", "json", "--min-score", "0", ...VALIDATE_TYPE];
    const spawned = spawnSync(NODE, [MAIN, "score", "--subject", `${NODE} probe.mjs ${newToken()} ${PACKAGE_ROOT} ${CORPUS} ${DIST_MAIN} ${NODE_MODULES} ${join(out, "report.jsonl")}`, "--submission", dir, "--no-progress", "--no-diagnosis", ...args], {
      encoding: "utf8",
      env: { ...process.env, TC_HARNESS_SECRET: "visible" },
    });
    expect(spawned.status, spawned.stderr).toBe(0);
    const seen = JSON.parse(readFileSync(join(dir, "seen.json"), "utf8"));
    expect(seen.cwd).toBe(dir);
    // only PATH, HOME and LANG (and what the shell itself sets)
    expect(Object.keys(seen.env).filter((name) => !["PWD", "SHLVL", "_"].includes(name)).sort()).toEqual(["HOME", "LANG", "PATH"]);
    expect(seen.env.HOME).toBe("/tmp");
    expect(seen.env.PATH).toBe("/usr/local/bin:/usr/bin:/bin");
    for (const path of [PACKAGE_ROOT, CORPUS, DIST_MAIN, NODE_MODULES, join(out, "report.jsonl")]) expect(seen.exists[path], path).toBe(false);
    // the report the harness is writing is there on the host, hidden only inside
    expect(existsSync(join(out, "report.jsonl"))).toBe(true);
    expect(seen.network.filter((name: string) => name !== "lo")).toEqual([]);
    // its own pid namespace: bwrap's init, the shell, node; nothing of the machine, not the harness
    expect(seen.processes.length).toBeLessThan(10);
    expect(seen.processes.filter((cmdline: string) => cmdline.includes(`${MAIN} score`))).toEqual([]);
    expect(seen.writable).toEqual({ tmp: true, root: false, usr: false });
    expect(seen.limits["Max data size"]).toBe(String(256 * 1024 * 1024));
    expect(seen.limits["Max processes"]).toBe("32");
    expect(seen.limits["Max cpu time"]).toBe("30");
    expect(seen.limits["Max file size"]).toBe(String(8 * 1024 * 1024));
    expect(seen.limits["Max core file size"]).toBe("0");
  });

  it("the same probe under --sandbox none sees the harness, its environment and the machine (so the checks above can fail)", () => {
    const dir = submission();
    const spawned = spawnSync(NODE, [MAIN, "score", "--subject", `${NODE} probe.mjs ${newToken()} ${PACKAGE_ROOT} ${CORPUS}`, "--submission", dir, "--out", "-", "--min-score", "0", "--no-diagnosis", ...VALIDATE_TYPE], {
      encoding: "utf8",
      env: { ...process.env, TC_HARNESS_SECRET: "visible" },
    });
    expect(spawned.status, spawned.stderr).toBe(0);
    const seen = JSON.parse(readFileSync(join(dir, "seen.json"), "utf8"));
    expect(seen.env.TC_HARNESS_SECRET).toBe("visible");
    expect(seen.exists[PACKAGE_ROOT]).toBe(true);
    expect(seen.exists[CORPUS]).toBe(true);
    expect(seen.processes.filter((cmdline: string) => cmdline.includes(`${MAIN} score`)).length).toBeGreaterThan(0);
  });

  it("the submission folder is read-only unless --writable: the probe cannot write seen.json and cannot start", () => {
    const dir = submission();
    const run = score(dir, `${NODE} probe.mjs ${newToken()}`, ["--sandbox", "bwrap", ...NODE_BINDS, ...VALIDATE_TYPE]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/EROFS|read-only file system/);
    expect(existsSync(join(dir, "seen.json"))).toBe(false);
    // a whole report all the same: every row errored with the cause
    expect(run.report!.summary.stopped?.cause).toMatch(/could not start/);
    expect(statuses(run.report!)).toEqual({ errored: 30 });
  });
});

describe("the two cheats", () => {
  it("(a) replaying the grader's corpus: found and replayed under none; not found under bwrap, every row errored", () => {
    const dir = submission();
    const none = score(dir, `${NODE} cheat-corpus.mjs ${newToken()}`, ["--min-score", "0", ...VALIDATE_TYPE]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.report!.summary.scores.total.passed).toBeGreaterThanOrEqual(27);
    const boxed = score(dir, `${NODE} cheat-corpus.mjs ${newToken()}`, ["--sandbox", "bwrap", ...NODE_BINDS, "--min-score", "0", ...VALIDATE_TYPE]);
    expect(boxed.code, boxed.stderr).toBe(0);
    expect(boxed.report!.summary.scores.total.passed).toBe(0);
    expect(boxed.report!.rows.every((row) => row.status === "errored" && /cheat: no corpus found/.test(row.error ?? ""))).toBe(true);
  });

  it("(b) running the grader's own reference adapter: 100% under none; cannot start under bwrap", () => {
    const dir = submission();
    const none = score(dir, `${NODE} cheat-reference.mjs`, VALIDATE_TYPE);
    expect(none.code, none.stderr).toBe(0);
    expect(none.report!.summary.scores.total.percent).toBe(100);
    const boxed = score(dir, `${NODE} cheat-reference.mjs`, ["--sandbox", "bwrap", ...NODE_BINDS, ...VALIDATE_TYPE]);
    expect(boxed.code).toBe(3);
    expect(boxed.report!.summary.stopped?.cause).toMatch(/no tool-conformance found to run/);
    expect(boxed.report!.summary.scores.total.passed).toBe(0);
  });

  it("(b) the reference adapter named by its path: cannot start under bwrap", () => {
    const dir = submission();
    const boxed = score(dir, `${NODE} ${DIST_MAIN} adapter`, ["--sandbox", "bwrap", ...NODE_BINDS, ...VALIDATE_TYPE]);
    expect(boxed.code).toBe(3);
    expect(boxed.report!.summary.stopped?.cause).toMatch(/Cannot find module|MODULE_NOT_FOUND/);
    expect(boxed.report!.summary.scores.total.passed).toBe(0);
  });
});

describe("processes", () => {
  it("a harness killed with SIGKILL takes the subject and its detached grandchild with it", async () => {
    const dir = submission();
    const token = newToken();
    const harness = scoreInBackground(dir, `${NODE} hang.mjs ${token}`, ["--sandbox", "bwrap", ...NODE_BINDS, ...VALIDATE_TYPE, "--timeout", "60000"]);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => harness.on("exit", (_code, signal) => resolve(signal)));
    const grandchild = await waitForProcesses(token, "grandchild", 1);
    expect(grandchild.length, "the grandchild started").toBe(1);
    harness.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    expect(await survivors(token)).toEqual([]);
  });

  it("a detached grandchild is gone after a run under bwrap", async () => {
    const dir = submission();
    const token = newToken();
    const run = score(dir, `${NODE} grandchild.mjs ${token}`, ["--sandbox", "bwrap", ...NODE_BINDS, "--min-score", "0", ...VALIDATE_TYPE]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.rows).toHaveLength(30);
    expect(await survivors(token)).toEqual([]);
  });

  it("under none, the same grandchild outlives the run (the documented limit; this shows the check sees it)", async () => {
    const dir = submission();
    const token = newToken();
    try {
      const run = score(dir, `${NODE} grandchild.mjs ${token}`, ["--min-score", "0", ...VALIDATE_TYPE]);
      expect(run.code, run.stderr).toBe(0);
      expect((await survivors(token, 200)).map((p) => p.cmdline.includes("grandchild"))).toEqual([true]);
    } finally {
      killAll(token);
    }
  });
});

describe("usage errors: one line, exit 2", () => {
  const cli = (args: string[], env: NodeJS.ProcessEnv = process.env) => spawnSync(NODE, [MAIN, "score", ...args], { encoding: "utf8", env });
  const oneLine = (stderr: string) => {
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
  };

  it("bwrap not installed", () => {
    const result = cli(["--subject", "true", "--sandbox", "bwrap", "--submission", submission()], { ...process.env, PATH: "/nonexistent" });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/bubblewrap \(bwrap\) is not installed or not on PATH/);
    oneLine(result.stderr);
  });

  it("a submission folder that holds the harness, or is inside it", () => {
    for (const dir of [PACKAGE_ROOT, FIXTURES]) {
      const result = cli(["--subject", "true", "--sandbox", "bwrap", "--submission", dir]);
      expect(result.status, dir).toBe(2);
      expect(result.stderr).toMatch(/inside this tool's own folder/);
      oneLine(result.stderr);
    }
  });

  it("caps without the sandbox, and the sandbox around an in-process subject", () => {
    const caps = cli(["--subject", "true", "--memory", "1G"]);
    expect(caps.status).toBe(2);
    expect(caps.stderr).toMatch(/--memory applies under --sandbox bwrap only/);
    oneLine(caps.stderr);
    const inProcess = cli(["reference", "--sandbox", "bwrap"]);
    expect(inProcess.status).toBe(2);
    expect(inProcess.stderr).toMatch(/cannot be sandboxed/);
    const badSize = cli(["--subject", "true", "--sandbox", "bwrap", "--memory", "lots"]);
    expect(badSize.status).toBe(2);
    expect(badSize.stderr).toMatch(/--memory: "lots" is not a size/);
  });

  it("sizes and durations", () => {
    expect(parseSize("512M")).toBe(512 * 1024 * 1024);
    expect(parseSize("2g")).toBe(2 * 1024 ** 3);
    expect(parseSize("64KiB")).toBe(64 * 1024);
    expect(parseSize("1000")).toBe(1000);
    expect(parseSize("0")).toBeUndefined();
    expect(parseSize("-1M")).toBeUndefined();
    expect(parseDuration("60s", "--budget")).toBe(60_000);
    expect(parseDuration("2m", "--budget")).toBe(120_000);
    expect(parseDuration("1500ms", "--budget")).toBe(1500);
    expect(parseDuration("90", "--budget")).toBe(90_000);
    expect(() => parseDuration("soon", "--budget")).toThrow(/--budget: "soon" is not a duration/);
  });
});
