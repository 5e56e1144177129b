import { clipText, noWorkflowCommands, oneLine } from "../../report/reporters/text.js";
import { paintFor } from "../../report/reporters/terminal.js";
import type { McpFinding, McpFuzzOutcome } from "./fuzz-mcp.js";

// fuzz --mcp's outcome in words: what each tool did with the invalid calls it got, then each
// finding with its shrunk arguments, the reference's proof that they are invalid, the server's
// answer (its text, as received, made visible) and the call that shows it again.

const STOPS: Record<McpFuzzOutcome["stopped"], string> = {
  runs: " (stopped at --runs, before --time)",
  time: " (stopped by --time)",
  findings: " (stopped at --max-findings)",
  interrupted: " (interrupted)",
  exhausted: " (nothing more to draw: every tool's draws repeat or are valid)",
  gone: " (stopped: the server could not be started again)",
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
/** Server text on one line, every invisible character shown, at most 300 characters. */
const shown = (text: string) => clipText(oneLine(text), 300);

export function describeMcp(outcome: McpFuzzOutcome, replay: string): string {
  const paint = paintFor(process.stdout);
  const seconds = (outcome.ms / 1000).toFixed(1);
  const width = Math.max(...outcome.tools.map((t) => t.tool.length), 4);
  const lines = outcome.tools.map((t) => {
    const name = shown(t.tool).padEnd(width);
    if (t.skipped) return `  ${name}  no call: ${t.skipped}`;
    const verdicts = Object.entries(t.verdicts).sort(([, a], [, b]) => b - a).map(([verdict, n]) => `${n} ${verdict}`);
    return `  ${name}  ${plural(t.sent, "invalid call")}: ${verdicts.join(", ")}${t.dropped.length ? ` · not judged: ${t.dropped.length} keyword${t.dropped.length === 1 ? "" : "s"} outside the subset` : ""}`;
  });
  const head =
    outcome.findings.length === 0
      ? `${paint("green", "✓")} no tool ran on the ${plural(outcome.cases, "invalid call")} sent, ${seconds} s${STOPS[outcome.stopped]}`
      : `${paint("red", "✗")} ${plural(outcome.findings.length, "finding")}: a tool ran, crashed or hung on arguments the reference proves invalid; ${plural(outcome.cases, "invalid call")}, ${seconds} s${STOPS[outcome.stopped]}`;
  const out = [head, "", ...lines];
  for (const { tool, key, cases } of outcome.setAside) out.push(`  set aside (--ignore): ${shown(tool)} ${key} in ${plural(cases, "call")}`);
  for (const [i, f] of outcome.findings.entries()) out.push("", ...findingLines(i + 1, f, paint));
  for (const note of outcome.notes) out.push("", `  note: ${shown(note)}`);
  out.push("", `  replay the run: ${replay}`);
  if (outcome.findings.length > 0) out.push(`  to look beyond ${outcome.findings.length > 1 ? "these" : "it"}: --ignore KEY (--ignore ${outcome.findings[0]!.key}, or --ignore mcp/ran for every tool that ran)`);
  return noWorkflowCommands(out.join("\n")) + "\n\n";
}

function findingLines(n: number, f: McpFinding, paint: ReturnType<typeof paintFor>): string[] {
  const what = f.symptom === "ran" ? "ran on invalid arguments" : f.symptom === "crashed" ? "crashed the server on invalid arguments" : "hung on invalid arguments";
  const more = f.seen > 1 ? `, and ${plural(f.seen - 1, "more call")} since` : "";
  const call = JSON.stringify({ name: f.tool, arguments: f.arguments });
  const row = (label: string, text: string) => `     ${label.padEnd(10)} ${text}`;
  return [
    `${paint("bold", `${n}. ${shown(f.tool)} ${what}`)} · ${f.key}`,
    row("arguments", shown(JSON.stringify(f.arguments))),
    ...f.errors.map((error, i) => row(i === 0 ? "invalid" : "", shown(error))),
    row("answer", `${f.answer.verdict} (${f.answer.rule}): ${shown(f.answer.text)}`),
    ...(f.answer.observed?.startsWith("ran") ? [row("observed", shown(f.answer.observed))] : []),
    row("found", `after ${plural(f.after, "call")}${more}; shrunk in ${plural(f.shrinks, "step")} from ${shown(JSON.stringify(f.found))}`),
    row("send it", `tools/call ${shown(call)}`),
  ];
}
