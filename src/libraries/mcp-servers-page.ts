import { UsageError } from "../errors.js";
import type { McpServerEntry, ScoredMcpServer } from "./mcp-servers.js";
import { censusSection, COLUMNS, pageHeader, tableRow } from "./mcp-servers-table.js";

// docs/mcp-servers.md read back: its table rows and sections by server, so that a part of the census
// (`--only`, one shard) can replace its own servers' rows and sections and leave the others as they
// are, and so that CI can check the page without running every server: each row must say what its
// own section says, and the servers it does run must read as the page has them.

export interface Page {
  rows: Map<string, string>;
  sections: Map<string, string[]>;
}

/** The rows (by their first cell) and the sections (by their heading's name) of a page written by mcpServersMarkdown. */
export function parsePage(text: string): Page {
  const rows = new Map<string, string>();
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  let inTable = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) {
      const heading = line.slice(3);
      current = [line];
      sections.set(heading.slice(0, heading.lastIndexOf(" ")), current);
      inTable = false;
    } else if (current !== undefined) current.push(line);
    else if (line.startsWith(`| ${COLUMNS[0]} |`)) inTable = true;
    else if (inTable && line.startsWith("| ") && !line.startsWith("| ---")) rows.set(cellsOf(line)[0]!, line);
    else if (inTable && line === "") inTable = false;
  }
  for (const lines of sections.values()) while (lines.at(-1) === "") lines.pop();
  return { rows, sections };
}

/** The page for the whole list: the servers scored now, the others as `page` has them (a usage error for one it lacks). */
export function splicePage(page: Page, entries: McpServerEntry[], scored: ScoredMcpServer[], file: string): string {
  const now = new Map(scored.map((server) => [server.entry.name, server]));
  const rows: string[] = [];
  const sections: string[][] = [];
  for (const { name } of entries) {
    const server = now.get(name);
    const row = server ? tableRow(server) : page.rows.get(name);
    const section = server ? censusSection(server) : page.sections.get(name);
    if (row === undefined || section === undefined) throw new UsageError(`${file} has no row or section for ${name}, and it was not scored now: score it too (--only ${name}) or run the whole census`);
    rows.push(row);
    sections.push(section);
  }
  return `${[...pageHeader(entries.length), ...rows, ...sections.flatMap((section) => ["", ...section])].join("\n")}\n`;
}

/** Where the servers scored now read otherwise than on the page: one line each, naming the first line that differs. */
export function differences(page: Page, scored: ScoredMcpServer[]): string[] {
  const out: string[] = [];
  for (const server of scored) {
    const name = server.entry.name;
    const row = tableRow(server);
    if (page.rows.get(name) !== row) out.push(`${name}: its table row is now ${row}`);
    const section = censusSection(server);
    const before = page.sections.get(name);
    if (before === undefined) out.push(`${name}: the page has no section for it`);
    else {
      const at = section.findIndex((line, i) => line !== before[i]);
      if (at !== -1 || before.length !== section.length) {
        const i = at === -1 ? section.length : at;
        out.push(`${name}: its section differs at its line ${i + 1}: now ${JSON.stringify(section[i] ?? "(the end)")}, the page ${JSON.stringify(before[i] ?? "(the end)")}`);
      }
    }
  }
  return out;
}

/**
 * What is inconsistent in the page itself: a row without a section or a section without a row, a
 * row whose version, tools, probed / not probed, ran or total is not what its section's figures say.
 */
export function inconsistencies(page: Page): string[] {
  const out: string[] = [];
  const at = (name: (typeof COLUMNS)[number]) => COLUMNS.indexOf(name);
  for (const [name, row] of page.rows) {
    const cells = cellsOf(row);
    const section = page.sections.get(name);
    if (section === undefined) {
      out.push(`${name}: a table row, no section`);
      continue;
    }
    if (section[0] !== `## ${name} ${cells[at("version")]}`) out.push(`${name}: the row's version ${cells[at("version")]} is not its section's (${section[0]})`);
    const [probed, notProbed] = (cells[at("probed / not probed")] ?? "").split(" / ");
    const figures = `**Figures.** ${cells[at("tools")]} tools listed: ${probed} probed, ${notProbed} not probed; ${cells[at("ran on invalid arguments")]} ran on invalid arguments; total ${(cells[at("total")] ?? "").replaceAll("**", "")} (core).`;
    const said = section.find((line) => line.startsWith("**Figures.**"));
    if (said !== figures) out.push(`${name}: the row says ${JSON.stringify(figures)}, its section ${JSON.stringify(said ?? "(no figures)")}`);
  }
  for (const name of page.sections.keys()) if (!page.rows.has(name)) out.push(`${name}: a section, no table row`);
  return out;
}

/** A table line's cells, `\|` kept inside its cell. */
function cellsOf(line: string): string[] {
  return line
    .slice(2, -2)
    .split(/(?<!\\) \| /)
    .map((cell) => cell.trim());
}
