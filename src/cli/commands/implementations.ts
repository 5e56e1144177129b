import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { readImplementationList } from "../../libraries/implementations-list.js";
import { scoreImplementation, type ImplementationScore } from "../../libraries/score-implementation.js";
import { implementationsMarkdown } from "../../libraries/implementations-table.js";
import { makeDirectory } from "../../report/directory.js";
import { writeFileAtomic } from "../../report/directory.js";
import { writeReport } from "../../report/format-report.js";
import { renderMarkdown } from "../../report/reporters/markdown.js";
import { paintFor } from "../../report/reporters/terminal.js";
import { formatPercent } from "../../judge/scoring.js";
import { positiveInt } from "../arguments.js";
import { EXIT, UsageError } from "../errors.js";
import { writeFailure } from "../arguments.js";

// `tool-conformance implementations`: score every real library and framework of a list
// (implementations/implementations.json) the way a user scores it, and write or check the public
// table (docs/implementations.md).

interface ImplementationsFlags {
  list: string;
  only: string[];
  write?: string;
  check?: string;
  out: string;
  jobs?: string;
  progress: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

export function register(program: Command): void {
  program
    .command("implementations")
    .description(
      "score the real libraries and frameworks listed in implementations/implementations.json (Python jsonschema, Go gojsonschema, LangChain, the MCP SDK, …) through their adapters, every tier, and write or check the public table docs/implementations.md: scores by section and tier, the pitfalls named, every rule each departs from with an example. Exit 0 every implementation scored (and with --check the table current), 1 one could not be scored or the table is stale, 2 usage error",
    )
    .option("--list <file>", "the list of implementations (its format: conformance/implementations.schema.json)", join("implementations", "implementations.json"))
    .option("--only <name>", "only this implementation (its name in the list); repeatable", collect, [])
    .option("--write <file>", "write the table (Markdown) to this file, e.g. docs/implementations.md")
    .option("--check <file>", "exit 1 when this file is not the table the scores give now (CI: the committed table is stale)")
    .option("--out <dir>", "folder for each implementation's report.jsonl and summary.md, one subfolder each", join("reports", "implementations"))
    .option("--jobs <n>", "sessions in parallel for each implementation (default: the number of cores)")
    .option("--no-progress", "no progress bar")
    .action(async (flags: ImplementationsFlags) => {
      process.exitCode = await implementationsCommand(flags);
    });
}

async function implementationsCommand(flags: ImplementationsFlags): Promise<number> {
  const list = readImplementationList(flags.list);
  const jobs = positiveInt(flags.jobs, "--jobs", 64);
  const unknown = flags.only.filter((name) => !list.implementations.some((i) => i.name === name));
  if (unknown.length > 0) throw new UsageError(`--only ${unknown.join(", ")}: not in ${flags.list} (listed: ${list.implementations.map((i) => i.name).join(", ")})`);
  if (flags.only.length > 0 && (flags.write !== undefined || flags.check !== undefined)) throw new UsageError("--write and --check need every implementation: leave out --only");
  const chosen = flags.only.length > 0 ? list.implementations.filter((i) => flags.only.includes(i.name)) : list.implementations;
  const err = paintFor(process.stderr);
  const scored: ImplementationScore[] = [];
  for (const [n, implementation] of chosen.entries()) {
    process.stderr.write(`${err("bold", `[${n + 1}/${chosen.length}]`)} ${implementation.title} ${err("dim", `(${implementation.package} ${implementation.version})`)}\n`);
    const result = await scoreImplementation(list, implementation, { ...(jobs !== undefined ? { jobs } : {}), progress: flags.progress ? "auto" : false });
    scored.push(result);
    if (result.report) writeReports(join(flags.out, implementation.name), result);
    const core = result.report?.summary.scores.byTier.core;
    if (result.problem) process.stderr.write(`  ${err("red", "✗")} ${result.problem}\n`);
    else process.stderr.write(`  core ${core ? formatPercent(core.percent) : "–"} · ${result.report!.diagnosis.lines[0] ?? ""}\n`);
  }
  const markdown = implementationsMarkdown(scored);
  const failed = scored.some((s) => s.problem !== undefined);
  if (flags.write !== undefined) {
    if (failed) {
      process.stderr.write(`tool-conformance: ${flags.write} not written: an implementation could not be scored (above)\n`);
      return EXIT.failed;
    }
    try {
      writeFileAtomic(flags.write, markdown);
    } catch (error) {
      throw new UsageError(`cannot write ${flags.write}: ${writeFailure(error)}`);
    }
    process.stderr.write(`${err("dim", "wrote")} ${flags.write}\n`);
  }
  if (flags.check !== undefined) {
    const stale = staleness(flags.check, markdown);
    if (stale) {
      process.stderr.write(`tool-conformance: ${flags.check} is stale: ${stale}; regenerate it with npm run implementations\n`);
      return EXIT.failed;
    }
    process.stderr.write(`${flags.check} is current\n`);
  }
  if (flags.write === undefined && flags.check === undefined) process.stdout.write(markdown);
  return failed ? EXIT.failed : EXIT.ok;
}

/** Each implementation's report.jsonl and summary.md, for a closer look at its rows. */
function writeReports(dir: string, { report }: ImplementationScore): void {
  try {
    makeDirectory(dir);
    writeReport(join(dir, "report.jsonl"), report!);
    writeFileAtomic(join(dir, "summary.md"), renderMarkdown(report!, { reportFile: join(dir, "report.jsonl") }));
  } catch (error) {
    throw new UsageError(`cannot write the reports under ${dir}: ${writeFailure(error)}`);
  }
}

/** Undefined when the file holds exactly `expected`; else the first line that differs, in words. */
function staleness(file: string, expected: string): string | undefined {
  let actual: string;
  try {
    actual = readFileSync(file, "utf8");
  } catch {
    return "it cannot be read";
  }
  if (actual === expected) return undefined;
  const a = actual.split("\n");
  const e = expected.split("\n");
  const i = e.findIndex((line, index) => line !== a[index]);
  const at = i === -1 ? e.length : i;
  return `line ${at + 1} reads ${JSON.stringify((a[at] ?? "(end of file)").slice(0, 160))} where the scores now give ${JSON.stringify((e[at] ?? "(end of file)").slice(0, 160))}`;
}
