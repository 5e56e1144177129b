import { dirname } from "node:path";
import { Option, type Command } from "commander";
import { readKeyFile } from "../../report/format-report.js";
import { withWeighting } from "../../report/build-report.js";
import { type Report } from "../../report/report.js";
import { renderGithubActions } from "../../report/reporters/github-actions.js";
import { VISIBILITIES, type Visibility } from "../../report/reporters/gradescope.js";
import { writeReportFiles } from "../../report/write-reports.js";
import { paintFor, renderTerminal } from "../../report/reporters/terminal.js";
import { describeWeighting } from "../../judge/weighting.js";
import { UsageError } from "../errors.js";
import { addScoringOptions, scoringGiven, weightingFrom, type ScoringFlags } from "../scoring-options.js";
import { readReportOrExplain, writeFailure } from "../arguments.js";

// `tool-conformance report REPORT.jsonl --reporter html,…`: any reporter rendered from a report
// already written, without scoring again: the report is read as every reader reads it (whole, its
// scores recomputed from its rows, with --key its signature checked), optionally scored again under
// another weighting, and rendered.

export const RENDERERS = ["terminal", "html", "markdown", "gradescope", "junit", "github-actions"] as const;

interface ReportFlags extends ScoringFlags {
  reporter: string[];
  out?: string;
  key?: string;
  gradescopePer: "section" | "row";
  gradescopeVisibility?: Visibility;
  gradescopeStdoutVisibility?: Visibility;
  gradescopePoints?: string;
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

export function register(program: Command): void {
  const command = program
    .command("report")
    .description(
      "render reports from an existing report.jsonl, without scoring again: html, markdown, gradescope, junit (files under --out, default the report's folder), terminal and github-actions (stdout). The report is checked as every reader checks it (whole, scores recomputed from its rows; with --key, its signature). --scoring, --weights and --fresh-weight score it again under another weighting. Exit 0 written, 2 a refused report or a usage error",
    )
    .argument("<report>", "a report.jsonl written by score --reporter json")
    .option("--reporter <name>", `what to render, repeatable or comma-separated: ${RENDERERS.join(", ")} (default: terminal)`, collect, [])
    .option("--out <dir>", "folder for the files (default: the report's own folder)")
    .option("--key <file>", "the key the report was signed with (score --key): it must carry a valid signature made with it")
    .addOption(new Option("--gradescope-per <unit>", "one Gradescope test per section or per row").choices(["section", "row"]).default("section"))
    .addOption(new Option("--gradescope-visibility <when>", "Gradescope test visibility").choices(VISIBILITIES))
    .addOption(new Option("--gradescope-stdout-visibility <when>", "Gradescope stdout visibility").choices(VISIBILITIES))
    .option("--gradescope-points <n>", "points the whole run is worth on Gradescope (default 100)");
  addScoringOptions(command).action(async (path: string, flags: ReportFlags) => {
    await reportCommand(path, flags);
  });
}

async function reportCommand(path: string, flags: ReportFlags): Promise<void> {
  const asked = flags.reporter.length === 0 ? ["terminal"] : flags.reporter;
  for (const name of asked) {
    if (name === "json") throw new UsageError("--reporter json: the report is already report.jsonl; name the reports to render from it (html, markdown, gradescope, junit, terminal, github-actions)");
    if (!(RENDERERS as readonly string[]).includes(name)) throw new UsageError(`--reporter: ${JSON.stringify(name)} is not a reporter (${RENDERERS.join(", ")})`);
  }
  const reporters = RENDERERS.filter((r) => asked.includes(r));
  const points = flags.gradescopePoints === undefined ? undefined : Number(flags.gradescopePoints);
  if (points !== undefined && (!Number.isFinite(points) || points <= 0)) throw new UsageError(`--gradescope-points: ${JSON.stringify(flags.gradescopePoints)} is not a positive number`);
  const key = flags.key === undefined ? undefined : readKeyFile(flags.key);
  const rescored = scoringGiven(flags) ? weightingFrom(flags) : undefined;
  let report: Report = readReportOrExplain(path, key ? { key } : {});
  if (rescored) report = withWeighting(report, rescored);
  if (flags.gradescopePer === "row" && reporters.includes("gradescope") && report.header.scoring && report.summary.weighted && !(report.header.scoring.sections === "rows" && report.header.scoring.whole === 0)) {
    throw new UsageError("--gradescope-per row gives each row its points, which a weighting by tests cannot: use --gradescope-per section");
  }
  const out = flags.out ?? dirname(path);
  const reportFile = path;
  let written: string[];
  try {
    const gradescope = { per: flags.gradescopePer, ...(points !== undefined ? { points } : {}), ...(flags.gradescopeVisibility ? { visibility: flags.gradescopeVisibility } : {}), ...(flags.gradescopeStdoutVisibility ? { stdoutVisibility: flags.gradescopeStdoutVisibility } : {}) };
    written = await writeReportFiles(report, reporters, { out, reportFile, gradescope });
  } catch (error) {
    throw new UsageError(`cannot write the reports under --out ${out}: ${writeFailure(error)}`);
  }
  if (reporters.includes("terminal")) process.stdout.write(renderTerminal(report, { paint: paintFor(process.stdout), files: [reportFile] }));
  if (reporters.includes("github-actions")) process.stdout.write(renderGithubActions(report));
  const err = paintFor(process.stderr);
  // without --key nothing vouches for the report's origin: said, so that a loop over a class never verifies nothing silently
  if (!key) process.stderr.write(`${err("dim", "not verified:")} ${report.signature ? "the report is signed, but no --key was given to check it" : "the report is not signed"}; with --key, an edited or foreign report is refused\n`);
  if (rescored) process.stderr.write(`${err("dim", "scored again by")} ${describeWeighting(rescored)}\n`);
  for (const file of written) process.stderr.write(`${err("dim", "wrote")} ${file}\n`);
}
