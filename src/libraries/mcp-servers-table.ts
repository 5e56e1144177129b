import { formatPercent } from "../judge/scoring.js";
import type { ReportRow } from "../report/report.js";
import { markdownCell, markdownText } from "../report/reporters/inert.js";
import type { ScoredMcpServer } from "./mcp-servers.js";

// docs/mcp-servers.md: the real MCP servers measured from outside, as `npm run mcp-servers` wrote
// it. Deterministic (no timings, dates or paths), so CI regenerates it and compares byte for byte.
// Every text a server wrote is shown inert (reporters/inert.ts): a server's words are not ours.

const SECTIONS = ["TestRegisterRules", "TestDefinitionsSorted", "TestCallNeverPanics"] as const;
const EXAMPLE_CHARS = 240;

/** What one check of a row said, when it failed: the class of the answer, its text and the rule that classed it. */
interface Said {
  answer?: string;
  text?: string;
  rule?: string;
}

export function mcpServersMarkdown(servers: ScoredMcpServer[]): string {
  const out: string[] = [
    "# Real MCP servers, measured from outside",
    "",
    "<!-- Written by `npm run mcp-servers` (tool-conformance mcp-servers --write docs/mcp-servers.md); CI checks it is current. -->",
    "",
    "Each server below is an npm package pinned in `implementations/mcp/package.json` (and its lockfile), scored as",
    '`tool-conformance score --mcp "COMMAND" --sandbox bwrap` scores any server: no adapter, **only invalid arguments sent**',
    "(each proven invalid by the reference against the tool's own `inputSchema`), the server in the sandbox with no network",
    "and an empty `/tmp`. [docs/mcp.md](mcp.md) says how each answer is classed and which of the seed's rules each row checks.",
    "",
    `| server | version | kind | protocol | tools | ran on invalid arguments | ${SECTIONS.join(" | ")} | total |`,
    `| --- | --- | --- | --- | --- | --- | ${SECTIONS.map(() => "---").join(" | ")} | --- |`,
  ];
  for (const server of servers) {
    const { report } = server;
    const sections = SECTIONS.map((name) => {
      const tally = report.summary.scores.sections[name]?.total;
      return tally ? `${formatPercent(tally.percent)} (${tally.passed}/${tally.rows})` : "–";
    });
    const tools = toolsOf(report.rows);
    const ran = toolsThatRan(report.rows);
    const total = report.summary.scores.total;
    out.push(`| ${server.entry.name} | ${server.version} | ${server.entry.kind} | ${markdownCell(report.header.subject.implementation.language)} | ${tools.size} | ${ran.size} of ${tools.size} | ${sections.join(" | ")} | **${formatPercent(total.percent)}** |`);
  }
  for (const server of servers) out.push("", ...serverSection(server));
  return `${out.join("\n")}\n`;
}

/** One server's section: its diagnosis, the forms of answer seen, one example per deviation. */
export function serverSection({ entry, version, report }: ScoredMcpServer): string[] {
  const out = [`## ${entry.name} ${version}`, "", `\`${entry.command}\``, ""];
  const failed = failedChecks(report);
  if (report.summary.stopped) return [...out, `Not scored: ${markdownText(report.summary.stopped.cause)}`];
  out.push("**Diagnosis.**", "", ...(report.diagnosis.lines.length > 0 ? report.diagnosis.lines.map((line) => `${line.startsWith("  ") ? "  " : ""}- ${markdownText(line)}`) : ["- nothing to diagnose"]), "");
  const ran = [...toolsThatRan(report.rows)].sort();
  if (ran.length > 0) out.push(`**Ran on invalid arguments** (${ran.length}): ${ran.map((tool) => markdownText(tool)).join(", ")}.`, "");
  // the forms of answer seen, from the rule that classed each failing check; a passed row was refused as the seed asks
  const forms = new Map<string, number>();
  const passed = report.rows.filter((row) => row.status === "passed" && row.id.startsWith("mcp/")).length;
  if (passed > 0) forms.set("refused, naming what is wrong (passed)", passed);
  for (const row of report.rows) {
    const said = new Set(failed(row).map((c) => saidOf(c.actual)?.rule).filter((r): r is string => r !== undefined));
    for (const rule of said) forms.set(rule, (forms.get(rule) ?? 0) + 1);
  }
  out.push("| answer seen | rows |", "| --- | --- |", ...[...forms].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([form, n]) => `| ${markdownCell(form)} | ${n} |`), "");
  // one example per deviation: the first row failing each check
  const examples = new Map<string, ReportRow>();
  for (const row of report.rows) for (const check of failed(row)) if (!examples.has(check.what)) examples.set(check.what, row);
  if (examples.size > 0) {
    out.push("| deviation | rows | example: the call | its answer |", "| --- | --- | --- | --- |");
    for (const [what, row] of examples) {
      const count = report.rows.filter((r) => failed(r).some((c) => c.what === what)).length;
      const check = failed(row).find((c) => c.what === what)!;
      const said = saidOf(check.actual);
      const call = row.repro?.steps?.[0] ?? row.id;
      const answer = said?.text !== undefined ? `${said.answer ?? ""}: ${compact(said.text)}` : JSON.stringify(check.actual ?? null);
      out.push(`| ${markdownCell(what)} | ${count} | ${markdownCell(clip(call))} | ${markdownCell(clip(answer))} |`);
    }
    out.push("");
  }
  const notes = report.summary.flags?.filter((flag) => flag.startsWith("mcp: ") && !flag.startsWith("mcp: protocol version")) ?? [];
  if (notes.length > 0) out.push(...notes.map((note) => `- ${markdownText(note.slice(5))}`), "");
  while (out.at(-1) === "") out.pop();
  return out;
}

/** A row's failed checks of the tiers scored (a core row's catalog checks are not its score). */
function failedChecks(report: ScoredMcpServer["report"]): (row: ReportRow) => ReportRow["checks"] {
  const tiers = new Set<string>(report.header.tiers);
  return (row) => row.checks.filter((c) => !c.pass && tiers.has(c.tier));
}

/** A text with its JSON parts written compactly, so that an example reads on one line. */
export function compact(text: string): string {
  return text.replace(/[[{][\s\S]*[\]}]/, (json) => {
    try {
      return JSON.stringify(JSON.parse(json));
    } catch {
      return json;
    }
  });
}

/** The tools a server listed, from its rows' ids (`mcp/TOOL/...`). */
function toolsOf(rows: ReportRow[]): Set<string> {
  return new Set(rows.filter((row) => row.id.startsWith("mcp/")).map((row) => row.id.split("/")[1]!));
}

/** The tools that ran on at least one invalid call (answered "ran" or "ran, then failed"). */
export function toolsThatRan(rows: ReportRow[]): Set<string> {
  const ran = rows.filter((row) => row.id.startsWith("mcp/") && row.checks.some((c) => saidOf(c.actual)?.answer?.startsWith("ran")));
  return new Set(ran.map((row) => row.id.split("/")[1]!));
}

export function saidOf(actual: unknown): Said | undefined {
  return typeof actual === "object" && actual !== null && !Array.isArray(actual) ? (actual as Said) : undefined;
}

export function clip(text: string): string {
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS)}…` : text;
}
