import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { rowsForProfile, SECTIONS, type ProfileName, type Row } from "../../src/corpus/rows.js";
import { selectRows } from "../../src/run/runner.js";

// Every number and command output the documents show that the code can produce, produced now:
// `npm run docs` writes them into their places, and test/project/docs.test.ts fails when a committed
// document differs from what this writes. A place is a block between two markers,
// `<!-- docs:NAME:start -->` and `<!-- docs:NAME:end -->`; the same NAME may stand in several
// places. Timings differ from run to run: they are compared as placeholders (see sameButTimings).

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");

/** What the command prints, stdout and stderr interleaved as a user sees them, without colour. */
function run(command: string): string {
  const result = spawnSync("sh", ["-c", `${command} 2>&1`], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", GITHUB_STEP_SUMMARY: "", CI: "" }, timeout: 120_000 });
  if (result.error) throw result.error;
  return result.stdout.trimEnd();
}

const cli = (args: string) => run(`node ${JSON.stringify(MAIN)} ${args}`);
const fence = (text: string) => `\`\`\`\n${text}\n\`\`\``;

const PYTHON_SUBJECT = "python3 conformance/adapters/python/adapter.py test/fixtures/python-impl/toolreg.py";
const LESSON_SUBJECT = "python3 conformance/adapters/python-lesson/adapter.py test/fixtures/python-lesson/registry.py";

/** The last line of a run that says its score. */
const scoreLine = (output: string) => output.split("\n").find((line) => line.startsWith("score "))!;

/** The generated text of every block, by name. */
export function generatedBlocks(): Record<string, string> {
  const corpus = loadCorpus();
  const count = (profile: ProfileName, core: boolean) => (core ? selectRows(corpus, { profile, tiers: ["core"] }).rows.length : rowsForProfile(corpus, profile).length);

  const demo = cli("score");
  const python = cli(`score --subject ${JSON.stringify(PYTHON_SUBJECT)} --tier core --reporter terminal --reporter junit --reporter gradescope --reporter markdown --out reports/`);
  const s03 = cli("score mutant:s03").split("\n");
  const diagnosis = s03.slice(s03.indexOf("diagnosis"), s03.findIndex((line, i) => i > s03.indexOf("diagnosis") && line.trim() === ""));
  const matrix = cli("mutants").split("\n");
  const head = matrix.findIndex((line) => line.startsWith("mutant  pitfall"));
  const shown = ["s01", "s03", "s10", "s12", "s19", "s23"];
  const lesson = scoreLine(cli(`score --profile lesson --subject ${JSON.stringify(LESSON_SUBJECT)}`));
  const coerced = cli(`score --profile lesson --subject ${JSON.stringify(`LESSON_BUG=coerce-numbers ${LESSON_SUBJECT}`)} --min-score 0`);
  const coercedFailing = /(\d+) failed/.exec(scoreLine(coerced))![1]!;
  const coercedNamed = /your failures match (s\d+)/.exec(coerced)?.[1] ?? "no pitfall";

  const validators = generatedValidators();
  const firstTable = validators.split("\n\n").find((part) => part.startsWith("| section"))!;

  return {
    "corpus-rows": String(corpus.length),
    "corpus-table": corpusTable(corpus),
    "ag02-rows": String(count("ag02", false)),
    "ag02-core": String(count("ag02", true)),
    "lesson-rows": String(count("lesson", false)),
    "lesson-core": String(count("lesson", true)),
    demo: fence(demo),
    "python-score": fence(python),
    "python-score-line": scoreLine(python),
    "s03-diagnosis": fence(diagnosis.join("\n")),
    "fuzz-s05": fence(cli("fuzz mutant:s05 --seed 42").split("\n").slice(1).join("\n")),
    "kill-matrix": fence([matrix[head]!, ...matrix.slice(head, matrix.indexOf("", head)).filter((line) => shown.some((id) => line.startsWith(`${id} `))), "…"].join("\n")),
    "ag02-mutants": String(matrix.slice(head + 2, matrix.indexOf("", head)).length),
    "matrix-row-runs": ((matrix.slice(head + 2, matrix.indexOf("", head)).length + 1) * count("ag02", false)).toLocaleString("en-US"),
    // the matrix and each mutant's one-line verdict; the full output lists every fingerprint
    "kill-matrix-summary": fence([...matrix.slice(0, matrix.indexOf("", head) + 1), ...matrix.filter((line) => /^s\d+ .*: killed by /.test(line)), "", matrix.at(-1)!].join("\n")),
    "kill-matrix-full": fence(matrix.join("\n")),
    "lesson-example": [
      "```sh",
      "tool-conformance score --profile lesson \\",
      `  --subject "${LESSON_SUBJECT}"`,
      `# ${lesson}`,
      `LESSON_BUG=coerce-numbers tool-conformance score --profile lesson --subject "…same…"   # "42" passes a number schema: ${coercedFailing} core rows fail, ${coercedNamed} named`,
      "tool-conformance score --profile lesson     # the demo: the reference and the lesson's mutants",
      "```",
    ].join("\n"),
    "validators-table": firstTable,
    // the headline of docs/implementations.md, which `npm run implementations` writes (test/libraries/implementations.test.ts checks it is current)
    "implementations-table-docs": implementationsHeadline("implementations.md"),
    "implementations-headline": implementationsAtAGlance(),
  };
}

/** The corpus by section and tier, both profiles' rows together (the count docs/corpus.md opens with). */
function corpusTable(corpus: readonly Row[]): string {
  const tiers = ["core", "catalog", "hardening", "extension"] as const;
  const count = (section: string | undefined, tier: string | undefined) => corpus.filter((row) => (section === undefined || row.section === section) && (tier === undefined || row.tier === tier)).length;
  const line = (label: string, section: string | undefined) => `| ${label} | ${tiers.map((tier) => count(section, tier)).join(" | ")} | ${count(section, undefined)} |`;
  return ["| section | core | catalog | hardening | extension | rows |", "| --- | ---: | ---: | ---: | ---: | ---: |", ...SECTIONS.map((section) => line(section, section)), line("**all**", undefined)].join("\n");
}

/** The first table of docs/implementations.md, its links pointing into that file from `from`. */
export function implementationsHeadline(from: string): string {
  const text = readFileSync(join(PACKAGE_ROOT, "docs", "implementations.md"), "utf8");
  const table = text.split("\n\n").find((part) => part.startsWith("| implementation"))!;
  return table.replaceAll("](#", `](${from}#`);
}

/** The README's narrow copy of that table: what fits a screen (name, language, core, the pitfalls named by id). */
export function implementationsAtAGlance(): string {
  const rows = implementationsHeadline("docs/implementations.md").split("\n").slice(2).map((line) => line.split(" | "));
  const named = (cell: string) => [...cell.matchAll(/\((s\d+):/g)].map((m) => m[1]).join(", ") || "none";
  return [
    "| implementation | language | core | pitfalls named |",
    "| --- | --- | ---: | --- |",
    ...rows.map((cells) => `${cells[0]} | ${cells[1]} | ${cells[3]} | ${named(cells[6] ?? "")} |`),
  ].join("\n");
}

/** docs/validators.md as `validators --format markdown` writes it now. */
export function generatedValidators(): string {
  const dir = mkdtempSync(join(tmpdir(), "tc-docs-"));
  try {
    // a generous cutoff: a slow row under load must not turn errored in a committed page (a hung one stays hung)
    cli(`validators --format markdown --timeout 10000 --out ${JSON.stringify(join(dir, "validators.md"))}`);
    return readFileSync(join(dir, "validators.md"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The documents that hold blocks. */
export const DOCUMENTS = ["README.md", "mutants/README.md", "docs/cli.md", "docs/corpus.md", "docs/real-code.md", "docs/scoring.md", "docs/grading.md", "docs/fuzzing.md", "docs/semantics.md"];

const MARKER = /<!-- docs:([a-z0-9-]+):start -->([\s\S]*?)<!-- docs:\1:end -->/g;

/** Every block of a document: its name and what stands between its markers. */
export function blocksOf(text: string): { name: string; body: string }[] {
  return [...text.matchAll(MARKER)].map((m) => ({ name: m[1]!, body: m[2]! }));
}

/** The document with every block replaced by its generated text (a block alone on its lines keeps them). */
export function withBlocks(text: string, blocks: Record<string, string>): string {
  return text.replace(MARKER, (whole, name: string, body: string) => {
    const value = blocks[name];
    if (value === undefined) return whole;
    const own = body.startsWith("\n");
    return `<!-- docs:${name}:start -->${own ? `\n${value}\n` : value}<!-- docs:${name}:end -->`;
  });
}

/** Two texts alike but for timings (`7.76 s`, `350 ms`, `(234/s)`), which differ from run to run. */
export function sameButTimings(a: string, b: string): boolean {
  const mask = (text: string) => text.replace(/\b\d+(\.\d+)? ?(s|ms)\b/g, "T").replace(/\(\d[\d,]*\/s\)/g, "(R/s)");
  return mask(a) === mask(b);
}
