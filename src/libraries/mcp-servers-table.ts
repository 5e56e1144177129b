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
  observed?: string;
}

/** The page's columns, in order; a row's cells are read back by them (mcp-servers-page.ts). */
export const COLUMNS = ["server", "version", "SDK or framework", "kind", "protocol", "tools", "probed / not probed", "ran on invalid arguments", ...SECTIONS, "total"] as const;

/** The whole page: the header, one table row a server, one section a server, in the list's order. */
export function mcpServersMarkdown(servers: ScoredMcpServer[], listed = servers.length): string {
  const out = [...pageHeader(listed), ...servers.map(tableRow)];
  for (const server of servers) out.push("", ...censusSection(server));
  return `${out.join("\n")}\n`;
}

/** What the page says before its first row: how it is made, which servers and why, how to run it in parts. */
export function pageHeader(listed: number): string[] {
  return [
    "# Real MCP servers, measured from outside",
    "",
    "<!-- Written by `npm run mcp-servers` (tool-conformance mcp-servers --write docs/mcp-servers.md); CI checks a few servers' sections and that every table row says what its section says. -->",
    "",
    "Each server below is an npm package pinned in `implementations/mcp/package.json` (and its lockfile), scored as",
    '`tool-conformance score --mcp "COMMAND" --sandbox bwrap` scores any server: no adapter, **only invalid arguments sent**',
    "(each proven invalid by the reference against the tool's own `inputSchema`), the server in the sandbox with no network",
    "and an empty `/tmp`, the sandbox's witness watching what its processes do during each call. [docs/mcp.md](mcp.md) says how",
    "each answer is classed and which of the seed's rules each row checks.",
    "",
    `**The census: ${listed} servers.** The five reference servers first scored here, then the MCP servers with the most`,
    "monthly downloads on npm (by npm's counts when they were chosen, late 2026) that run on Node 20 and list their tools",
    "offline with a dummy key: a server that needs a browser, a database or a cluster is in when it lists its tools without one.",
    "[implementations/mcp/README.md](../implementations/mcp/README.md) says how each is started, why each dummy variable, the",
    "candidates left out and why, and the calls replayed by hand.",
    "",
    "**Columns.** *SDK or framework*: what serves its tools, read from its dependencies (or its bundle), at the version its",
    "install resolves. *probed / not probed*: tools sent invalid calls built from their schema, and tools whose probes were cut",
    "(no valid base to break one rule from, a schema past the caps: only non-object arguments sent; its section says why).",
    "*ran on invalid arguments*: tools that ran (or ran, then failed) on at least one call their own schema refuses.",
    "",
    "**In parts.** The census takes minutes. `mcp-servers --shard i/n` scores every n-th server from the i-th (deterministic,",
    "by the list's order) and writes each server's `report.jsonl` and `server.json` under `--out`; `mcp-servers --from DIR`",
    "(repeatable: every shard's `--out`) writes the page from them without running anything. `--only a,b` scores the servers",
    "named; with `--write` it replaces their rows and sections in the page, and with `--check` compares them with the page's",
    "(CI checks a few so, and that every row of the page says what its section says).",
    "",
    `| ${COLUMNS.join(" | ")} |`,
    `| ${COLUMNS.map(() => "---").join(" | ")} |`,
  ];
}

/** One server's line of the table. */
export function tableRow(server: ScoredMcpServer): string {
  const { report } = server;
  const sections = SECTIONS.map((name) => {
    const tally = report.summary.scores.sections[name]?.total;
    return tally ? `${formatPercent(tally.percent)} (${tally.passed}/${tally.rows})` : "–";
  });
  const figures = figuresOf(server);
  const cells = [
    server.entry.name,
    server.version,
    server.sdk ?? "–",
    server.entry.kind,
    markdownCell(report.header.subject.implementation.language),
    String(figures.listed),
    `${figures.probed} / ${figures.notProbed.length}`,
    `${figures.ran} of ${figures.listed}`,
    ...sections,
    `**${formatPercent(figures.total)}**`,
  ];
  return `| ${cells.join(" | ")} |`;
}

/** What a row and a section both say of a server, from its report alone. */
export interface Figures {
  listed: number;
  probed: number;
  notProbed: { tool: string; why: string }[];
  ran: number;
  total: number;
}

export function figuresOf({ report }: ScoredMcpServer): Figures {
  const tools = toolsOf(report.rows);
  const flags = report.summary.flags ?? [];
  const notProbed = new Map<string, string>();
  // a tool whose probes were cut: the run's note says so (src/subjects/mcp/probes.ts, run-mcp.ts)
  for (const tool of tools) {
    const cut = flags.find((flag) => [`mcp: ${tool}: could not be probed`, `mcp: ${tool}: its schema could not be judged`].some((start) => flag.startsWith(start)));
    if (cut !== undefined) notProbed.set(tool, cut.slice(`mcp: ${tool}: `.length));
  }
  // a tool whose rows were never made or answered stands as one errored row
  for (const row of report.rows) {
    if (row.id.startsWith("mcp/") && row.id.endsWith("/probes") && row.status === "errored") notProbed.set(row.id.slice(4, -"/probes".length), row.error ?? "its probes were not sent");
  }
  // past the cap on tools probed, the others were listed and never probed
  const capped = flags.map((flag) => /^mcp: (\d+) tools listed: only the first (\d+) by name probed/.exec(flag)).find((m) => m !== null);
  const beyond = capped ? Number(capped[1]) - Number(capped[2]) : 0;
  if (beyond > 0) notProbed.set(`${beyond} tools past the cap`, "only the first by name are probed");
  return { listed: tools.size + beyond, probed: tools.size - [...notProbed.keys()].filter((tool) => tools.has(tool)).length, notProbed: [...notProbed].map(([tool, why]) => ({ tool, why })).sort((a, b) => (a.tool < b.tool ? -1 : 1)), ran: toolsThatRan(report.rows).size, total: report.summary.scores.total.percent };
}

/** The line of a section that its table row repeats: read back by the page's own check. */
export function figuresLine(server: ScoredMcpServer): string {
  const f = figuresOf(server);
  return `**Figures.** ${f.listed} tools listed: ${f.probed} probed, ${f.notProbed.length} not probed; ${f.ran} of ${f.listed} ran on invalid arguments; total ${formatPercent(f.total)} (core).`;
}

/** A server's section on the census page: the figures its row repeats, the tools not probed and why, then what serverSection says. */
export function censusSection(server: ScoredMcpServer): string[] {
  const [heading, blank, command, ...rest] = serverSection(server);
  const { notProbed } = figuresOf(server);
  const lines = [heading!, blank!, command!, "", ...(server.sdk !== undefined ? [`SDK or framework: ${server.sdk}; ${server.entry.kind}.`, ""] : []), figuresLine(server), ""];
  if (notProbed.length > 0) lines.push(`**Not probed** (${notProbed.length}):`, "", ...notProbed.map(({ tool, why }) => `- ${markdownText(tool)}: ${markdownText(why)}`), "");
  return [...lines, ...rest.slice(rest[0] === "" ? 1 : 0)];
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
  if (notes.length > 0) out.push(...notes.map((note) => `- ${markdownText(steady(note.slice(5)))}`), "");
  while (out.at(-1) === "") out.pop();
  return out.map(steadyPaths);
}

/** The servers' folder as each run names it (a fresh temporary folder), written the same on every run. */
export function steadyPaths(line: string): string {
  return line.replace(/[^\s"'`(]*tool-conformance-mcp-servers-[A-Za-z0-9]{6}/g, () => "$SERVERS");
}

/**
 * A note as it reads from run to run: what the sandbox saw outside any call, each act once, without
 * its count (a server's timers fire as often as the run lasts), a lookup without its details; every
 * other note as it is.
 */
export function steady(note: string): string {
  const seen = /^(the sandbox saw, [^:]+): (.*)$/s.exec(note);
  if (!seen) return note;
  // a name looked up is said as such: which file or server the resolver tried first is the timer's luck
  const acts = [...new Set(seen[2]!.split("; ").map((act) => act.replace(/ \(\d+ times\)$/, "").replace(/^looked up a name: .*$/s, "looked up a name")))].sort();
  return `${seen[1]}: ${acts.join("; ")}`;
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

/** The tools that ran on at least one invalid call (answered "ran" or "ran, then failed", or seen by the sandbox to act). */
export function toolsThatRan(rows: ReportRow[]): Set<string> {
  // a call that hung or crashed while the sandbox saw the tool act ran too (a browser started, slower than the timeout)
  const ran = rows.filter((row) => row.id.startsWith("mcp/") && row.checks.some((c) => saidOf(c.actual)?.answer?.startsWith("ran") || saidOf(c.actual)?.observed?.startsWith("ran:")));
  return new Set(ran.map((row) => row.id.split("/")[1]!));
}

export function saidOf(actual: unknown): Said | undefined {
  return typeof actual === "object" && actual !== null && !Array.isArray(actual) ? (actual as Said) : undefined;
}

export function clip(text: string): string {
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS)}…` : text;
}
