import type { Level, Row, Tier } from "../corpus/rows.js";
import { firstFailure } from "../run/outcome.js";
import { noWorkflowCommands } from "../report/reporters/text.js";
import { paintFor } from "../report/reporters/terminal.js";
import type { Known } from "./files.js";
import type { Finding, FuzzOutcome } from "./fuzz.js";

// fuzz's outcome in words: each finding with its minimal case, ready corpus row and replay command.

export function knownLine(known: Known, keys: string[]): string {
  if (known.rows.length === 0) return `${known.rules.length} rule${known.rules.length === 1 ? "" : "s"} set aside`;
  const still = keys.length > 0 ? `, set aside: ${keys.join(" ")}` : "";
  return `${known.rows.length} row${known.rows.length === 1 ? "" : "s"}; the subject still fails ${keys.length} key${keys.length === 1 ? "" : "s"}${still}`;
}

/** The outcome in words: nothing found, or each finding: the case, what differed, how to replay it, and the row. */
export function describe(outcome: FuzzOutcome, scoring: { level: Level; tiers: Tier[]; maxFindings: number }, replay: (finding: Finding) => string): string {
  const paint = paintFor(process.stdout);
  const seconds = (outcome.ms / 1000).toFixed(1);
  const rate = Math.round(outcome.cases / Math.max(outcome.ms / 1000, 0.001));
  // which limit ended the search: --runs (default 10000) often ends it well before --time
  const stop = { runs: " (stopped at --runs, before --time)", time: " (stopped by --time)", findings: ` (stopped at --max-findings ${scoring.maxFindings})`, replay: " (a replay)" }[outcome.stopped];
  const aside = outcome.setAside.map(({ key, cases }) => `  set aside (--ignore, --known): ${key} in ${cases} case${cases === 1 ? "" : "s"}`);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (outcome.findings.length === 0) {
    const none = outcome.setAside.length > 0 ? "no new disagreement" : "no disagreement";
    return [`${paint("green", "✓")} ${none} with the reference in ${plural(outcome.cases, "case")}, ${seconds} s (${rate}/s)${stop}`, ...aside, ""].join("\n");
  }
  const lines = [`${paint("red", "✗")} ${plural(outcome.findings.length, "distinct disagreement")} with the reference in ${plural(outcome.cases, "case")}, ${seconds} s (${rate}/s)${stop}`];
  if (aside.length > 0) lines.push(...aside);
  for (const [i, f] of outcome.findings.entries()) {
    const more = f.seen > 1 ? `, and ${plural(f.seen - 1, "more case")} since` : "";
    lines.push("", `${paint("bold", `${i + 1}. ${f.key}`)}: after ${plural(f.after, "case")}${more}; shrunk in ${f.shrinks} steps to:`, "");
    lines.push(...caseLines(f.row).map((line) => `    ${line}`), "");
    if (f.status === "errored") lines.push(`  errored: ${f.error ?? "(no reason)"}`);
    else if (f.status === "passed") lines.push("  (the subject passes this case when it is run again: its answers change from run to run)");
    else {
      const check = firstFailure({ checks: f.checks } as Parameters<typeof firstFailure>[0], scoring);
      if (check) {
        lines.push(`  ${check.what}`);
        lines.push(`    expected: ${JSON.stringify(check.expected)}`);
        lines.push(`    actual:   ${JSON.stringify(check.actual)}`);
        if (check.note) lines.push(`    (${check.note})`);
      }
    }
    lines.push("", `  replay: ${replay(f)}`, "", `  as a corpus row (write its "why", then add it under conformance/corpus/${f.row.section}/ or pass it with --save):`, "");
    lines.push(`  ${JSON.stringify(f.row)}`);
  }
  if (outcome.stopped !== "replay") lines.push("", `  to look beyond ${outcome.findings.length > 1 ? "these" : "it"}: --ignore KEY (--ignore ${outcome.findings[0]!.key}), or --save FILE now and --known FILE next time`);
  lines.push("");
  return noWorkflowCommands(lines.join("\n")) + "\n";
}

/** The case in a few readable lines. */
export function caseLines(row: Row): string[] {
  if (row.kind === "validate") return [`schema:   ${JSON.stringify(row.schema)}`, `argument: ${typeof row.instance === "string" ? row.instance : JSON.stringify(row.instance)}`];
  if (row.kind === "compile") return [`schema:   ${JSON.stringify(row.schema)} (the reference refuses it)`];
  return row.steps.map((step, i) => {
    const n = `${i + 1}.`;
    switch (step.op) {
      case "register":
        return `${n} register ${JSON.stringify(step.tool.name)} parameters ${step.tool.parametersText ?? "(none)"} ${JSON.stringify(step.tool.behavior)}`;
      case "call":
        return `${n} call ${JSON.stringify(step.call.name)} with ${JSON.stringify(step.call.arguments)}`;
      default:
        return `${n} ${step.op}`;
    }
  });
}
