import { styleText } from "node:util";
import type { Report } from "../report.js";
import { LEVELS } from "../rows.js";
import { formatPercent, type Tally } from "../scoring.js";
import { countsLine, differences, failingRows, optionsOf, sectionsOf, settingsLine, subjectLine, tiersOf } from "./common.js";

// The terminal summary: the score per section and tier, per level, the failing rows with
// expected against actual, and the diagnosis. Colors only on a terminal without NO_COLOR.

type Style = Parameters<typeof styleText>[0];
export type Paint = (style: Style, text: string) => string;

/** Colors when the stream is a terminal and NO_COLOR is unset or empty. */
export function paintFor(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): Paint {
  const on = stream.isTTY === true && !env.NO_COLOR;
  // we decide ourselves (the stream may be stderr); newer Node would otherwise check stdout again
  return on ? (style, text) => styleText(style, text, { validateStream: false }) : (_style, text) => text;
}

export interface TerminalOptions {
  paint?: Paint;
  /** Failing rows shown in full; the rest are counted (default 20). */
  maxFailures?: number;
}

export function renderTerminal(report: Report, options: TerminalOptions = {}): string {
  const paint = options.paint ?? paintFor();
  const max = options.maxFailures ?? 20;
  const scores = report.summary.scores;
  const tiers = tiersOf(report);
  const out: string[] = [];
  const colorOf = (t: Tally): "green" | "red" | "yellow" => (t.passed === t.rows ? "green" : t.passed === 0 ? "red" : "yellow");
  const cell = (t: Tally | undefined, width: number) => {
    if (!t) return paint("dim", "·".padEnd(width));
    const text = `${t.passed}/${t.rows}`.padEnd(width);
    return paint(colorOf(t), text);
  };

  out.push(`${paint("bold", "tool-conformance")} ${report.header.tool.version} · ${subjectLine(report)}`);
  out.push(paint("dim", `${settingsLine(report)} · ${(report.summary.ms / 1000).toFixed(2)} s`));
  out.push("");

  const nameWidth = Math.max(7, ...sectionsOf(report).map((s) => s.length)) + 2;
  const width = 11;
  out.push(paint("dim", `  ${"section".padEnd(nameWidth)}${tiers.map((t) => t.padEnd(width)).join("")}${"total".padEnd(width)}score`));
  for (const section of sectionsOf(report)) {
    const s = scores.sections[section]!;
    out.push(`  ${section.padEnd(nameWidth)}${tiers.map((t) => cell(s.tiers[t], width)).join("")}${cell(s.total, width)}${paint(colorOf(s.total), formatPercent(s.total.percent))}`);
  }
  out.push(
    `  ${paint("bold", "total".padEnd(nameWidth))}${tiers.map((t) => cell(scores.byTier[t], width)).join("")}${cell(scores.total, width)}${paint(["bold", colorOf(scores.total)], formatPercent(scores.total.percent))}`,
  );
  out.push(paint("dim", `  by level: ${LEVELS.map((level) => `${level} ${formatPercent(scores.byLevel[level].percent)}`).join(" · ")}`));
  out.push("");

  const failing = failingRows(report);
  const options_ = optionsOf(report);
  if (failing.length > 0) {
    out.push(paint("bold", `failing rows (${failing.length})`));
    for (const row of failing.slice(0, max)) {
      const mark = row.status === "errored" ? paint("magenta", "!") : row.status === "skipped" ? paint("dim", "-") : paint("red", "✗");
      out.push(`  ${mark} ${paint("bold", row.id)} ${paint("dim", `[${row.tier} · ${row.rule}${row.pitfalls.length ? ` · guards ${row.pitfalls.join(", ")}` : ""}]`)}`);
      if (row.status === "errored") {
        out.push(`      ${paint("magenta", "errored:")} ${row.error ?? "no reply"}`);
        if (row.stderr) out.push(...indent(`stderr: ${row.stderr.trimEnd()}`, 6).map((line) => paint("dim", line)));
        continue;
      }
      if (row.status === "skipped") {
        out.push(`      ${paint("dim", `not answerable: ${row.error ?? "skipped"}`)}`);
        continue;
      }
      for (const d of differences(row, options_).slice(0, 2)) {
        out.push(`      ${paint("dim", d.what)}`);
        out.push(...labelled("expected", d.expected, paint("green", "expected"), 8));
        out.push(...labelled("actual", d.actual, paint("red", "actual  "), 8));
      }
    }
    if (failing.length > max) out.push(paint("dim", `  … and ${failing.length - max} more (all of them in report.jsonl, junit.xml or report.html: --reporter)`));
    out.push("");
  }

  out.push(paint("bold", "diagnosis"));
  out.push(...renderDiagnosis(report, paint));
  out.push("");
  const t = scores.total;
  out.push(
    `${paint("bold", "score")} ${paint(["bold", colorOf(t)], formatPercent(t.percent))} ${paint("dim", `(${countsLine(t)} of ${t.rows} rows, level ${scores.level}, tiers ${scores.tiers.join("+")})`)}`,
  );
  return out.join("\n") + "\n";
}

export function renderDiagnosis(report: Report, paint: Paint): string[] {
  const d = report.diagnosis;
  if (!d.available) return [`  ${paint("dim", d.lines[0] ?? "no diagnosis: the mutants' fingerprints were not available")}`];
  if (d.failing === 0) return [`  ${paint("green", "no failures: nothing to diagnose")}`];
  if (d.matches.length === 0) return d.lines.map((line) => `  ${paint("yellow", line)}`);
  const lines: string[] = [];
  for (const m of d.matches) {
    lines.push(`  ${paint("cyan", "→")} ${m.sentence}`);
    lines.push(`    ${paint("dim", m.detail)}`);
  }
  if (d.unexplained.length > 0) lines.push(`  ${paint("yellow", d.lines[d.lines.length - 1]!)}`);
  return lines;
}

function indent(text: string, n: number): string[] {
  return text.split("\n").map((line) => `${" ".repeat(n)}${line}`);
}

/** "expected  line1\n          line2": the label, then the value's lines aligned after it. */
function labelled(label: string, value: string, painted: string, n: number): string[] {
  const lines = value.split("\n");
  const pad = " ".repeat(n + Math.max(label.length, 8) + 1);
  return lines.map((line, i) => (i === 0 ? `${" ".repeat(n)}${painted} ${line}` : `${pad}${line}`));
}
