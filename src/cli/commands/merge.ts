import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { classTable, forTheClass, shortStatus, statusText, toCsv, toMarkdown, withoutDuplicates, type ClassInput, type ClassTable } from "../../report/class-table.js";
import { classView, viewHtml, viewMarkdown } from "../../report/class-view.js";
import { readKeyFile } from "../../report/format-report.js";
import { verifyReportFile } from "../../report/read-report.js";
import { withWeighting } from "../../report/build-report.js";
import { writeFileAtomic } from "../../report/directory.js";
import { type Report } from "../../report/report.js";
import { noWorkflowCommands, oneLine } from "../../report/reporters/text.js";
import { formatPercent } from "../../judge/scoring.js";
import { describeWeighting, type Weighting } from "../../judge/weighting.js";
import { addScoringOptions, scoringGiven, weightingFrom, type ScoringFlags } from "../scoring-options.js";
import { EXIT, UsageError } from "../errors.js";
import { writeFailure } from "../arguments.js";

// `tool-conformance merge REPORT...`: the class table. A grader scores each submission wherever
// it runs (a CI matrix, a Kubernetes Job array, a loop), collects the report.jsonl files, and
// merges them here: one line per submission, a score per section (and per part), the total, the
// top diagnosis. Reports are untrusted (a submission's helper may outlive its run and rewrite
// them): each is read whole and checked, its scores recomputed from its rows (readReport), its
// signature verified with --key. A report that fails costs its own line only: score 0 and the
// reason, the other lines merged, exit 1.

interface MergeFlags extends ScoringFlags {
  out: string;
  key?: string;
  submissions?: string;
  similarity?: string;
}

export function register(program: Command): void {
  const command = program
    .command("merge")
    .description(
      "merge report.jsonl files (one per submission) into a class table and a class view: class.csv, class.md and class.html under --out (the table also on stdout): the score distribution, every mistake with every student who shows it, the rules and rows most students fail, failures no known mistake explains by rule, and with --submissions the pairs of submissions alike by content. Every score is recomputed from the report's rows. A report that is missing, unreadable, cut off, incomplete (its run did not finish), edited so that its summary does not follow from its rows, or with --key unsigned or badly signed, gets a line with score 0 and the reason in its status; the others are merged. Exit 0 every report merged, 1 some refused (one line each on stderr), 2 usage error",
    )
    .argument("<reports...>", "report.jsonl files written by score --reporter json")
    .option("--out <dir>", "folder for class.csv and class.md", "reports")
    .option("--key <file>", "the key file score --key signed the reports with: every report must carry a valid HMAC-SHA256 signature made with it")
    .option("--submissions <dir>", "the folder holding one subfolder per submission, named as the reports' labels (grade's layout): pairs of submissions alike by content are listed for you to look at")
    .option("--similarity <share>", "with --submissions, list pairs at least this alike, from 0 to 1 (default 0.8); identical ones always");
  addScoringOptions(command, "every submission")
    .action((paths: string[], options: MergeFlags) => {
      // a bad key file, weights file or submissions folder stops everything (exit 2), before anything is written
      const key = options.key === undefined ? undefined : readKeyFile(options.key);
      const weighting = scoringGiven(options) ? weightingFrom(options) : undefined;
      const threshold = options.similarity === undefined ? undefined : Number(options.similarity);
      if (threshold !== undefined && (!Number.isFinite(threshold) || threshold < 0 || threshold > 1 || options.similarity!.trim() === "")) throw new UsageError(`--similarity: ${JSON.stringify(options.similarity)} is not a share from 0 to 1`);
      if (options.submissions !== undefined && (!existsSync(options.submissions) || !statSync(options.submissions).isDirectory())) throw new UsageError(`--submissions ${options.submissions}: no such folder`);
      // each report is read, checked, then kept only as the class needs it: a class of bloated reports merges in bounded memory
      const inputs = withoutDuplicates(paths.map((path) => forTheClass(verifyReportFile(path, key ? { key } : {}))));
      const table = classTable(inputs, weighting);
      const csv = join(options.out, "class.csv");
      const md = join(options.out, "class.md");
      const html = join(options.out, "class.html");
      const view = classViewOf(table, inputs, weighting, options.submissions, threshold);
      const classMarkdown = toMarkdown(table) + noWorkflowCommands(viewMarkdown(view));
      try {
        writeFileAtomic(csv, toCsv(table));
        writeFileAtomic(md, classMarkdown);
        writeFileAtomic(html, classHtml(table, view, weighting));
      } catch (error) {
        const reason = writeFailure(error);
        throw new UsageError(`cannot write the class table under --out ${options.out}: ${reason}`);
      }
      process.stdout.write(classMarkdown);
      const say = (line: string) => process.stderr.write(noWorkflowCommands(oneLine(line)) + "\n");
      const refused = table.lines.filter((line) => line.status === "refused");
      for (const line of refused) say(`tool-conformance: ${line.report}: ${line.reason} (score 0 in the class table)`);
      for (const line of table.lines.filter((l) => l.status === "stopped")) say(`tool-conformance: note: ${line.report}: the run stopped: ${line.reason}`);
      const accepted = inputs.flatMap((input) => (input.ok ? [input.report] : []));
      const settings = new Set(accepted.map(settingsKey));
      if (settings.size > 1) say(`tool-conformance: note: these reports were scored with different settings (${[...settings].join(" | ")}); their scores are not comparable`);
      if (weighting) say(`tool-conformance: note: every report scored again by ${describeWeighting(weighting)}`);
      process.stderr.write(`wrote ${csv}\nwrote ${md}\nwrote ${html}\n`);
      if (refused.length > 0) say(`tool-conformance: ${refused.length} of ${table.lines.length} report${table.lines.length === 1 ? "" : "s"} refused`);
      process.exitCode = refused.length > 0 ? EXIT.failed : EXIT.ok;
    });
}


/** The class view of a table's accepted reports (scored as the table scores them). */
function classViewOf(table: ClassTable, given: readonly ClassInput[], weighting: Weighting | undefined, submissions: string | undefined, threshold: number | undefined) {
  const students = given.flatMap((input, i) => ("report" in input ? [{ label: table.lines[i]!.label, report: weighting ? withWeighting(input.report, weighting) : input.report, percent: table.lines[i]!.total }] : []));
  // a submission's folder is named as its report's label (grade's layout), whatever the table shows
  const folders = given.flatMap((input) => ("report" in input ? [input.report.header.subject.label] : []));
  const view = classView(students.map((s, i) => ({ ...s, label: submissions !== undefined ? folders[i]! : s.label })), { ...(submissions !== undefined ? { submissions } : {}), ...(threshold !== undefined ? { threshold } : {}) });
  return view;
}

/** class.html: the table and the class view on one page. */
function classHtml(table: ClassTable, view: ReturnType<typeof classView>, weighting: Weighting | undefined): string {
  const percent = (p: number | undefined) => (p === undefined ? "·" : formatPercent(p));
  const lines = table.lines.map((l) => ({ label: l.label, cells: [...l.sections, ...l.parts].map(percent), total: l.total, status: shortStatus(l), statusFull: statusText(l), diagnosis: l.diagnosis }));
  const note = `${table.lines.length} reports; ${weighting ? `scored by ${describeWeighting(weighting)}` : "each scored as its report says"}.`;
  return viewHtml([...table.sections, ...table.parts.map((p) => `part ${p}`)], lines, view, note);
}

function settingsKey(report: Report): string {
  const h = report.header;
  return `profile ${h.profile}, level ${h.level}, tiers ${h.tiers.join("+")}${h.filters.ids?.length ? `, filter ${h.filters.ids.join(" ")}` : ""}`;
}
