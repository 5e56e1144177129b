import type { Answer } from "../../subjects/mcp/rpc.js";
import { errorText, names, REFUSAL_MARKERS, resultText, type Classed } from "./classify.js";

// Rule 10c of docs/mcp.md: a server's refusals, read in its own form. The answers that plainly name
// the offending argument (rules 3 and 7) show how this server opens a refusal: `MCP error -32602:
// Input validation error: Invalid arguments for tool {tool}:`, `Tool '{tool}' parameter validation
// failed:`. A normal result that opens the same way is a refusal told as a result (a handler's own
// check), not a run. The form is learned from this server's own answers only, from at least two
// different answers, and its opening must hold a refusal's word; it only ever re-reads an answer
// rule 11 called ran, never what the sandbox saw act (rule 0) nor a tool's own failure (rule 6).

/** How a server's refusals open, learned from its answers that named the argument. */
export interface RefusalForm {
  /** Where they come: a JSON-RPC error of this code, or an isError result. */
  channel: string;
  /** The text they all open with, a tool's name written `{tool}`. */
  opening: string;
  /** How many answers taught it. */
  from: number;
}

/** One invalid call's answer, classed by the general rules. */
export interface Answered {
  tool: string;
  answer: Answer;
  classed: Classed & { observed?: string };
  /** What naming the argument takes (the probe's), when known. */
  names?: readonly (readonly string[])[];
}

/** The fewest answers a form is learned from. */
const FEWEST = 2;
/** An opening ends at one of its first colons: longer would be the argument's own words. */
const COLONS = 4;
/** A shorter opening ("Error:") says nothing of a refusal. */
const SHORTEST = 8;

/** The channel and text an answer is read in, the tool's name as `{tool}`; undefined for an answer that never came or a normal result. */
function reading(tool: string, answer: Answer): { channel: string; text: string } | undefined {
  const plain = (text: string) => (tool.length > 0 ? text.split(tool).join("{tool}") : text);
  if (answer.kind === "error") return { channel: `JSON-RPC error ${String(answer.error.code)}`, text: plain(errorText(answer.error).text) };
  if (answer.kind !== "result") return undefined;
  const isError = (answer.result as { isError?: unknown } | undefined)?.isError === true;
  return { channel: isError ? "isError" : "a normal result", text: plain(resultText(answer.result)) };
}

/** The openings a text offers: itself up to each of its first colons. */
function openings(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf(":"); at >= 0 && out.length < COLONS; at = text.indexOf(":", at + 1)) out.push(text.slice(0, at + 1));
  return out;
}

/** The form this server's refusals take, when at least two answers that named the argument, to different probes, open alike with a refusal's word. */
export function learnForm(answered: readonly Answered[]): RefusalForm | undefined {
  const counts = new Map<string, { channel: string; opening: string; texts: Set<string> }>();
  for (const { tool, answer, classed } of answered) {
    if (classed.verdict !== "refused" || classed.observed?.startsWith("ran")) continue;
    const read = reading(tool, answer);
    if (read === undefined || read.channel === "a normal result") continue;
    for (const opening of openings(read.text)) {
      if (opening.length < SHORTEST || !REFUSAL_MARKERS.test(opening)) continue;
      const key = `${read.channel}\u0000${opening}`;
      const entry = counts.get(key) ?? { channel: read.channel, opening, texts: new Set<string>() };
      entry.texts.add(read.text);
      counts.set(key, entry);
    }
  }
  let best: RefusalForm | undefined;
  for (const { channel, opening, texts } of counts.values()) {
    if (texts.size < FEWEST) continue;
    // the opening most answers share; of those, the shortest (the argument's own words come after it)
    if (best === undefined || texts.size > best.from || (texts.size === best.from && opening.length < best.opening.length)) best = { channel, opening, from: texts.size };
  }
  return best;
}

/** A normal result read as ran that opens as this server's refusals do: a refusal told as a result; else undefined. */
export function inForm(form: RefusalForm, { tool, answer, classed, names: expected }: Answered): Classed | undefined {
  if (classed.verdict !== "ran" || classed.observed?.startsWith("ran")) return undefined;
  const read = reading(tool, answer);
  if (read?.channel !== "a normal result" || !read.text.startsWith(form.opening)) return undefined;
  return { verdict: "unreadable refusal", text: classed.text, rule: `a normal result in this server's own refusal form (${form.channel} opening \`${form.opening}\`, learned from ${form.from} answers that named the argument)`, ...(expected !== undefined && names(classed.text, expected) ? { named: true } : {}) };
}
