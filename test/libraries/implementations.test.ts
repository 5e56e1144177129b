import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";

// `tool-conformance implementations`: the real libraries and frameworks of implementations/, scored
// through their adapters. The committed docs/implementations.md must be what they score now (a
// change of the corpus, the diagnosis or an adapter shows in it); a bad list, a library not
// installed and a version other than the pinned one are said plainly and never make a table.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const work = mkdtempSync(join(tmpdir(), "tc-implementations-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(args: string[], timeout = 60_000) {
  const result = spawnSync(process.execPath, [MAIN, ...args], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A list of one implementation: the reference's own adapter, with the given fields. */
function list(fields: Record<string, string>): string {
  const file = join(work, `list-${Math.random().toString(36).slice(2)}.json`);
  const entry = { name: "ref", title: "The reference", language: "TypeScript", package: "tool-conformance", version: "0.1.0", source: "this package", folder: "ref", start: `${process.execPath} ${MAIN} adapter`, ...fields };
  writeFileSync(file, JSON.stringify({ implementations: [entry] }));
  return file;
}

describe("implementations", () => {
  it("docs/implementations.md is what the listed implementations score now (npm run implementations rewrites it)", () => {
    const { code, stderr } = cli(["implementations", "--check", "docs/implementations.md", "--no-progress", "--out", join(work, "reports")], 900_000);
    expect(stderr).toContain("docs/implementations.md is current");
    expect(code).toBe(0);
    // every listed implementation was scored, none with a problem
    const listed = JSON.parse(readFileSync(join(PACKAGE_ROOT, "implementations", "implementations.json"), "utf8")).implementations as { title: string }[];
    expect(stderr.match(/^\s+core \d/gm)?.length).toBe(listed.length);
  }, 900_000);

  it("scores one implementation with --only and prints its section, its report kept under --out", () => {
    const file = list({});
    const { code, stdout } = cli(["implementations", "--list", file, "--only", "ref", "--no-progress", "--out", join(work, "one")]);
    expect(code).toBe(0);
    expect(stdout).toContain("| [The reference](#the-reference) | TypeScript | 0.1.0 | 100% | 100% | 100% | none |  |");
    expect(stdout).toContain("Every row passes.");
    expect(readFileSync(join(work, "one", "ref", "report.jsonl"), "utf8")).toContain('"kind":"summary"');
  }, 120_000);

  it("a version other than the pinned one is not scored as it: exit 1, and --write writes nothing", () => {
    const out = join(work, "table.md");
    const { code, stderr } = cli(["implementations", "--list", list({ version: "9.9.9" }), "--write", out, "--no-progress", "--out", join(work, "pinned")], 120_000);
    expect(code).toBe(1);
    expect(stderr).toContain("version 0.1.0 answered, the list pins 9.9.9");
    expect(stderr).toContain(`${out} not written`);
  }, 120_000);

  it("a library not installed is said with how to install it", () => {
    const { code, stderr } = cli(["implementations", "--list", list({ requires: "exit 1", install: "apt-get install nothing-here" }), "--no-progress", "--out", join(work, "missing")]);
    expect(code).toBe(1);
    expect(stderr).toContain("not installed (`exit 1` failed): apt-get install nothing-here");
  });

  it("a failed build is said with the end of its output", () => {
    const { code, stderr } = cli(["implementations", "--list", list({ build: "echo cannot find the compiler >&2; exit 4" }), "--no-progress", "--out", join(work, "build")]);
    expect(code).toBe(1);
    expect(stderr).toContain("the build failed (exit 4): cannot find the compiler");
  });

  it("a list that is not one is refused with its place and the format's file: exit 2", () => {
    const bad = join(work, "bad.json");
    writeFileSync(bad, JSON.stringify({ implementations: [{ name: "Has Space", title: "x" }] }));
    const { code, stderr } = cli(["implementations", "--list", bad]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--list .*bad\.json: \$\.implementations\[0\]/);
    expect(stderr).toContain("conformance/implementations.schema.json");
    expect(cli(["implementations", "--list", join(work, "nowhere.json")]).stderr).toContain("no such file");
    expect(cli(["implementations", "--list", list({}), "--only", "nope"]).stderr).toContain("--only nope: not in");
    expect(cli(["implementations", "--list", list({}), "--only", "ref", "--write", join(work, "x.md")]).code).toBe(2);
  });
});
