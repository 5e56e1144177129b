import { pitfallLabel } from "../diagnosis.js";
import type { Report } from "../report.js";
import { LEVELS } from "../rows.js";
import { formatPercent, type Tally } from "../scoring.js";
import { countsLine, differences, failingRows, optionsOf, reasonOf, sectionsOf, settingsLine, subjectLine, tiersOf } from "./common.js";

// Markdown fit for a CI job summary ($GITHUB_STEP_SUMMARY, GitLab, a PR comment): the headline,
// a table per section and tier, the levels, the diagnosis, and the failing rows folded under
// <details> with expected against actual. Bounded, so a bad run cannot flood the summary.

export interface MarkdownOptions {
  /** Failing rows shown with their detail (default 50). */
  maxFailures?: number;
}

export function renderMarkdown(report: Report, options: MarkdownOptions = {}): string {
  const max = options.maxFailures ?? 50;
  const scores = report.summary.scores;
  const t = scores.total;
  const tiers = tiersOf(report);
  const icon = (tally: Tally) => (tally.passed === tally.rows ? "✅" : tally.passed === 0 ? "❌" : "⚠️");
  const cell = (tally: Tally | undefined) => (tally ? `${tally.passed}/${tally.rows}` : "·");
  const out: string[] = [];

  out.push(`## ${icon(t)} tool-conformance: ${inline(subjectLine(report))}: ${formatPercent(t.percent)}`);
  out.push("");
  out.push(`${inline(settingsLine(report))}. ${countsLine(t)}.`);
  out.push("");
  out.push(`| section | ${tiers.join(" | ")} | total | score |`);
  out.push(`| --- | ${tiers.map(() => "---:").join(" | ")} | ---: | ---: |`);
  for (const section of sectionsOf(report)) {
    const s = scores.sections[section]!;
    out.push(`| ${icon(s.total)} ${section} | ${tiers.map((tier) => cell(s.tiers[tier])).join(" | ")} | ${cell(s.total)} | ${formatPercent(s.total.percent)} |`);
  }
  out.push(`| **total** | ${tiers.map((tier) => `**${cell(scores.byTier[tier])}**`).join(" | ")} | **${cell(t)}** | **${formatPercent(t.percent)}** |`);
  out.push("");
  out.push(`| level | ${LEVELS.join(" | ")} |`);
  out.push(`| --- | ${LEVELS.map(() => "---:").join(" | ")} |`);
  out.push(`| score | ${LEVELS.map((level) => `${formatPercent(scores.byLevel[level].percent)}${level === scores.level ? " (scored)" : ""}`).join(" | ")} |`);
  out.push("");

  out.push("### Diagnosis");
  out.push("");
  const d = report.diagnosis;
  if (!d.available) out.push(inline(d.lines[0] ?? "no diagnosis: the mutants' fingerprints were not available"));
  else if (d.failing === 0) out.push("No failures: nothing to diagnose.");
  else {
    for (const m of d.matches) out.push(`- **${m.id}** (${pitfallLabel(m.pitfall)}, ${inline(m.title)}): ${inline(m.symptom)}. _${inline(m.detail)}_`);
    if (d.matches.length === 0 || d.unexplained.length > 0) out.push(`- ${inline(d.lines[d.lines.length - 1]!)}`);
  }
  out.push("");

  const failing = failingRows(report);
  if (failing.length > 0) {
    const options_ = optionsOf(report);
    out.push(`### Failing rows (${failing.length})`);
    out.push("");
    out.push("| row | section | tier | status | why |");
    out.push("| --- | --- | --- | --- | --- |");
    for (const row of failing.slice(0, max)) {
      out.push(`| \`${cellText(row.id)}\` | ${row.section} | ${row.tier} | ${row.status} | ${cellText(reasonOf(row, options_))} |`);
    }
    if (failing.length > max) out.push(`| … | | | | ${failing.length - max} more rows in report.jsonl |`);
    out.push("");
    for (const row of failing.slice(0, max)) {
      out.push(`<details><summary><code>${html(row.id)}</code>: ${row.status}</summary>`);
      out.push("");
      if (row.status === "failed") {
        for (const diff of differences(row, options_)) {
          out.push(`${inline(diff.what)}`);
          out.push("");
          out.push("expected:");
          out.push(...fence(diff.expected));
          out.push("actual:");
          out.push(...fence(diff.actual));
        }
      } else {
        out.push(inline(reasonOf(row, options_)));
        out.push("");
        if (row.stderr) out.push("subject stderr:", ...fence(row.stderr));
      }
      out.push("</details>");
      out.push("");
    }
  }
  return out.join("\n") + "\n";
}

/** A fenced code block that no content can close early. */
function fence(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const bar = "`".repeat(longest + 1);
  return [bar, text, bar, ""];
}

/** Text inside a table cell: no pipe, no newline, no HTML. */
function cellText(text: string): string {
  return html(text).replace(/\|/g, "\\|").replace(/\r?\n/g, " ⏎ ");
}

/** Text in a paragraph: HTML and Markdown punctuation neutralised. */
function inline(text: string): string {
  return html(text).replace(/([\\`*_[\]#|])/g, "\\$1");
}

function html(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
