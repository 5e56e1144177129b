import type { Check } from "../run/run-row.js";
import { WHAT } from "../run/mcp/checks.js";
import type { ReportRow } from "./report.js";
import { clipText, oneLine } from "./reporters/text.js";

// A failing check of an MCP server's row in an MCP author's words: what was sent, what the tool's
// own inputSchema says of it, and what came back, rather than the harness's fields compared
// (`ran is true where false is expected`). Every text here is the server's or ours, made one line;
// each reporter still makes it inert for its format.

/** Whether a row is one of an MCP server's (its tools' probes and valid calls, its list, the server). */
export function isMcpRow(row: Pick<ReportRow, "id">): boolean {
  return /^mcp(-accept|-list|-server)?\//.test(row.id);
}

/** A check's `what` that only an MCP row has. */
const MCP_WHATS: ReadonlySet<string> = new Set(Object.values(WHAT));

/** The answer as a check of an MCP call records it (classify.ts, observed.ts). */
export interface McpAnswer {
  answer?: string;
  text?: string;
  rule?: string;
  observed?: string;
  /** Other properties of the tool a refusal names, instead of the probe's. */
  other?: string[];
  died?: string;
}

export function answerOf(check: Check): McpAnswer {
  const actual = check.actual;
  return typeof actual === "object" && actual !== null && !Array.isArray(actual) ? (actual as McpAnswer) : {};
}

/** The arguments text of the call a row sent (`tools/call {"name":…,"arguments":ARGS}`), exactly as sent. */
export function argumentsOf(row: ReportRow): string | undefined {
  const call = row.repro?.steps?.[0];
  if (call === undefined || !call.startsWith("tools/call {")) return undefined;
  // the name is a JSON string, in which a quote is escaped: the first unescaped key is the arguments'
  const at = call.indexOf(',"arguments":');
  return at < 0 ? undefined : call.slice(at + ',"arguments":'.length, -1);
}

/** The probe part of a tool row's id, from its rule: `mcp/additionalProperties` → its schema's keyword, in words. */
function keywordOf(row: ReportRow): string {
  const rule = row.rule.replace(/^mcp(-accept)?\//, "");
  const property = /\/(?:missing-required|wrong-type|integer-as-string|integer-fraction|below-minimum|above-maximum|too-short|too-long|too-few-items|too-many-items|enum|const|pattern|array-element)\/([^/]+)/.exec(row.id)?.[1];
  const of = property !== undefined ? ` of "${property}"` : "";
  switch (rule) {
    case "additionalProperties": {
      // a nested object's: `extra-property/params`
      const inside = /\/extra-property\/(.+)$/.exec(row.id)?.[1];
      return `additionalProperties: false${inside !== undefined ? ` in "${inside}"` : ""}`;
    }
    case "required":
      return `"${property ?? "?"}" is required`;
    case "type/object":
      return "the arguments must be an object";
    case "type/integer":
      return `type: integer${of}`;
    case "items":
      return `items${of}: an element of the wrong type`;
    default:
      return `${rule}${of}`;
  }
}

const short = (text: string | undefined, max = 200) => JSON.stringify(clipText(oneLine(text ?? ""), max));

/** How the answer was classed, as an author reads it: `a normal result ("sunny in a"), classed ran by the rule "a normal result"`. */
export function answerWords(answer: McpAnswer): string {
  const seen = answer.observed !== undefined ? `; the sandbox: ${oneLine(answer.observed)}` : "";
  return `answered ${short(answer.text)}: classed ${oneLine(answer.answer ?? "?")} by the rule "${oneLine(answer.rule ?? "?")}"${seen}`;
}

/** A failing check of an MCP row in an author's words; undefined for any other check. */
export function mcpSentence(row: ReportRow, check: Check): string | undefined {
  if (!isMcpRow(row) || !MCP_WHATS.has(check.what)) return undefined;
  const answer = answerOf(check);
  const args = argumentsOf(row);
  const on = args !== undefined ? ` on ${clipText(oneLine(args), 200)}` : "";
  switch (check.what) {
    case WHAT.refused:
      if (answer.answer === "cannot tell") return `the answer${on} could not be told a refusal from a run (${answerWords(answer)}): a refusal should say so, as an isError result or -32602`;
      return `the tool ran${on}: its inputSchema refuses it (${keywordOf(row)}), so it should have been refused before running (${answerWords(answer)})`;
    case WHAT.answers:
      return `the server stopped answering after the call${on}: ${oneLine(answer.died ?? "no answer")}`;
    case WHAT.readable:
      return `the refusal${on} is no error the model reads (an isError result or -32602 is): ${answerWords(answer)}`;
    case WHAT.named:
      // a refusal of another argument: the call may have been refused for it, and the probe's own rule never reached
      if (answer.other?.length) return `the refusal${on} does not name what is wrong (${keywordOf(row)}) but ${answer.other.map((name) => JSON.stringify(name)).join(", ")}: it may be of that, and whether ${keywordOf(row)} is enforced is not shown (${answerWords(answer)})`;
      return `the refusal${on} does not name what is wrong (${keywordOf(row)}): ${answerWords(answer)}`;
    case WHAT.accepted:
      return `a valid call${on} was refused: the tool is stricter than its own schema, which accepts it (${answerWords(answer)})`;
    default:
      return undefined;
  }
}
