import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, describe, expect, it, test } from "vitest";
import YAML from "yaml";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";
import { MAIN } from "../helpers/cli-helpers.js";
import { needs } from "../helpers/machine.mjs";

// The GitHub Actions job docs/mcp.md gives an MCP server's author, taken from the document and run
// here as the runner would run it: each `run:` step in order, in bash -eo pipefail, in the
// repository's folder, with the fixture server in place of the author's. The installs are stubbed
// (sudo, apt-get and npm shims record what they were asked): the machine has bubblewrap and strace,
// and this package stands for the one npm would install. Without a baseline the job passes; with
// the baseline committed it passes again; each planted regression fails it, and the annotation and
// the step summary say which row and why.

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "mcp");
const sandboxed = needs("bwrap", "strace");
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

/** The first ```yaml block after the recipe's heading in docs/mcp.md. */
function recipeText(): string {
  const doc = readFileSync(join(PACKAGE_ROOT, "docs", "mcp.md"), "utf8");
  const at = doc.indexOf("## A CI gate for your server (GitHub Actions)");
  expect(at, "docs/mcp.md has the recipe's section").toBeGreaterThan(0);
  const block = /```yaml\n([\s\S]*?)\n```/.exec(doc.slice(at));
  expect(block, "the section holds a yaml block").not.toBeNull();
  return block![1]!;
}

const workflow = () => YAML.parse(recipeText()) as Workflow;
const steps = () => Object.values(workflow().jobs)[0]!.steps;

describe("the MCP CI recipe of docs/mcp.md", () => {
  it("is a valid GitHub workflow (SchemaStore's schema): checkout, setup-node, the run: steps, the reports uploaded always", () => {
    const schema = JSON.parse(readFileSync(join(PACKAGE_ROOT, "test", "fixtures", "schemas", "github-workflow.json"), "utf8")) as Record<string, unknown>;
    const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
    expect(validate(workflow()) ? [] : validate.errors).toEqual([]);
    expect(steps().map((step) => step.uses ?? step.name)).toEqual(["actions/checkout@v4", "actions/setup-node@v4", "install the server", "install bubblewrap and strace", "install tool-conformance", "score the server in the sandbox, against the baseline", "actions/upload-artifact@v4"]);
    expect(steps().at(-1)).toMatchObject({ if: "always()", with: { path: "reports/" } });
  });

  it("uses only options tool-conformance score has", () => {
    const script = steps().find((step) => step.run?.includes(" score "))!.run!.replace(/\\\n\s*/g, " ");
    const call = /tool-conformance" +score (.*)$/m.exec(script)![1]!;
    const options = new Set([...`${call} ${script}`.matchAll(/(?:^|[\s(])(--[a-z][a-z-]*)/g)].map((m) => m[1]!));
    expect([...options]).toEqual(expect.arrayContaining(["--mcp", "--mcp-run", "--sandbox", "--submission", "--sandbox-bind", "--baseline", "--min-score", "--reporter", "--out", "--label"]));
    const help = spawnSync(process.execPath, [MAIN, "score", "--help"], { encoding: "utf8" }).stdout;
    for (const option of options) expect(help, option).toMatch(new RegExp(`(^|\\s)${option}\\b`, "m"));
    expect(call).toMatch(/--reporter \S*github-actions/);
  });

  test.skipIf(sandboxed.lacking)(`its run: steps, here, with the fixture server: pass without a baseline and on it, fail on each planted regression, the annotation and the step summary saying why ${sandboxed.tag}`, { timeout: 180_000 }, () => {
    const root = mkdtempSync(join(tmpdir(), "tc-recipe-"));
    dirs.push(root);
    // the repository: the fixture server (no dependencies), readable by the sandbox's own uid
    const repo = join(root, "repo");
    mkdirSync(repo);
    for (const file of ["accept-server.mjs", "runs.mjs"]) copyFileSync(join(FIXTURES, file), join(repo, file));
    chmodSync(root, 0o755);
    chmodSync(repo, 0o755);
    // the runner's installs, stubbed: each shim records its call; npm's install puts this package where npm would
    const bin = join(root, "bin");
    mkdirSync(bin);
    const log = join(root, "shims.log");
    writeFileSync(join(bin, "sudo"), '#!/bin/sh\necho "sudo $1" >> "$SHIM_LOG"\nexec "$@"\n', { mode: 0o755 });
    writeFileSync(join(bin, "apt-get"), '#!/bin/sh\necho "apt-get $*" >> "$SHIM_LOG"\n', { mode: 0o755 });
    writeFileSync(
      join(bin, "npm"),
      [
        "#!/bin/sh",
        'echo "npm $*" >> "$SHIM_LOG"',
        '[ "$1" = install ] || exit 0',
        'prefix=""; while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix="$2"; shift; done',
        'mkdir -p "$prefix/node_modules/.bin"',
        `printf '#!/bin/sh\\nexec node %s "$@"\\n' ${JSON.stringify(MAIN)} > "$prefix/node_modules/.bin/tool-conformance"`,
        'chmod +x "$prefix/node_modules/.bin/tool-conformance"',
      ].join("\n") + "\n",
      { mode: 0o755 },
    );
    const runnerTemp = join(root, "runner-temp");
    mkdirSync(runnerTemp);
    const env = workflow().env;
    let n = 0;
    /** The job's run: steps (only the scoring step once installed), the author's server replaced by the fixture's MODE. */
    const job = (mode: string, only?: string) => {
      const summary = join(root, `step-summary-${++n}.md`);
      writeFileSync(summary, "");
      const results = steps()
        .filter((step) => step.run !== undefined && (only === undefined || step.name === only))
        .map((step) => {
          const result = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run!], {
            cwd: repo,
            encoding: "utf8",
            timeout: 120_000,
            env: { PATH: `${bin}:${process.env.PATH}`, HOME: root, LANG: "C.UTF-8", ...env, SERVER: `$NODE accept-server.mjs ${mode}`, RUN_TOOLS: "get_weather", RUNNER_TEMP: runnerTemp, GITHUB_WORKSPACE: repo, GITHUB_STEP_SUMMARY: summary, SHIM_LOG: log },
          });
          return { name: step.name!, code: result.status, stdout: result.stdout, stderr: result.stderr };
        });
      const score = results.at(-1)!;
      return { results, score, summary: readFileSync(summary, "utf8"), annotations: score.stdout.split("\n").filter((line) => line.startsWith("::")) };
    };
    const scoreStep = "score the server in the sandbox, against the baseline";

    // the first run: every step, no baseline yet; the gate is the baseline alone, so it passes
    const first = job("strict");
    for (const step of first.results) expect(step.code, `${step.name}\n${step.stdout}\n${step.stderr}`).toBe(0);
    expect(readFileSync(log, "utf8").split("\n")).toEqual(expect.arrayContaining(["npm ci", "npm run build --if-present", "sudo apt-get", "apt-get install -y -qq --no-install-recommends bubblewrap strace", `npm install --prefix ${runnerTemp}/tc --no-save ${env.TOOL_CONFORMANCE}`, "sudo env"]));
    expect(first.score.stderr).toMatch(/^bwrap sandbox: sees /m);
    expect(first.summary).toContain("### Tools (3), worst first");
    expect(first.summary).toContain("#### The contract tools/list advertises, linted");
    expect(first.annotations.filter((line) => line.startsWith("::error"))).toEqual([]);
    const accepted = readReport(join(repo, "reports", "report.jsonl"));
    expect(accepted.summary.scores.total.percent).toBe(100);
    // the label is the author's command, not the runner's path to node
    expect(accepted.header.subject.label).toBe("node accept-server.mjs strict");
    expect(accepted.rows.map((row) => row.id)).toContain("mcp-accept/get_weather/integer-3.0/days");

    // the baseline committed, as the recipe says: the same server passes against it
    mkdirSync(join(repo, ".tool-conformance"));
    copyFileSync(join(repo, "reports", "report.jsonl"), join(repo, env.BASELINE!));
    const baseline = readFileSync(join(repo, env.BASELINE!), "utf8");
    const again = job("strict", scoreStep);
    expect(again.score.code, again.score.stderr).toBe(0);
    expect(again.score.stderr).toMatch(/baseline \.tool-conformance\/report\.jsonl: no regression \(\d+ rows compared\)/);

    // planted: an unknown property let through, on every tool
    const lax = job("lax", scoreStep);
    expect(lax.score.code, lax.score.stderr).toBe(1);
    const gate = lax.annotations.find((line) => line.startsWith("::error title=tool-conformance%3A the gate failed::"));
    expect(lax.annotations[0], "the gate's annotation comes first").toBe(gate);
    expect(gate).toContain("3 rows passed in the baseline .tool-conformance/report.jsonl and fail now%0A%0Apassed in the baseline, not now:%0A");
    expect(gate).toContain('✗ mcp/get_weather/extra-property: the tool ran on {"city":"a","tool_conformance_extra":"x"}: its inputSchema refuses it (additionalProperties: false), so it should have been refused before running');
    expect(lax.summary).toMatch(/> \*\*The gate failed:\*\* 3 rows passed in the baseline `?\.tool-conformance\/report\.jsonl`? and fail now\./);
    expect(lax.summary).toContain("Rows that passed in the baseline and fail now:\n\n- `mcp/delete_everything/extra-property`\n- `mcp/get_weather/extra-property`\n- `mcp/lookup/extra-property`");

    // planted: a valid 3.0 refused (RUN_TOOLS names get_weather): stricter than its own schema
    const strict = job("integer-text", scoreStep);
    expect(strict.score.code, strict.score.stderr).toBe(1);
    expect(strict.annotations[0]).toMatch(/^::error title=tool-conformance%3A the gate failed::1 row passed in the baseline \.tool-conformance\/report\.jsonl and fails now%0A/);
    expect(strict.annotations[0]).toContain("✗ mcp-accept/get_weather/integer-3.0/days: a valid call on {\"city\":\"a\",\"days\":3.0} was refused: the tool is stricter than its own schema");
    expect(strict.summary).toContain("- `mcp-accept/get_weather/integer-3.0/days`");
    expect(strict.summary).toContain("stricter than its own schema: 1 valid call its inputSchema accepts was refused");
    // the baseline is never rewritten by a run
    expect(readFileSync(join(repo, env.BASELINE!), "utf8")).toBe(baseline);
    expect(existsSync(join(repo, "reports", "junit.xml"))).toBe(true);
  });
});
