import fc from "fast-check";
import { compareCodePoints } from "../../json/value.js";
import { classify, type Classed, type Verdict } from "../../run/mcp/classify.js";
import { ran } from "../../run/mcp/classify-accepted.js";
import { apartFromEveryCall, askAgain, everyCallActs, observed, wouldOverrule } from "../../run/mcp/observed.js";
import { unlistedName } from "../../subjects/mcp/unlisted.js";
import type { Schema, ValidationError } from "../../schema/compile.js";
import { McpClient, type McpEndpoint, type ServerHello } from "../../subjects/mcp/client.js";
import { namesOf } from "../../subjects/mcp/probes.js";
import { propertyNames } from "../../subjects/mcp/paths.js";
import { judgeable } from "../../subjects/mcp/subset.js";
import { McpStartError } from "../../subjects/mcp/transport.js";
import { SubjectError } from "../../subjects/subject.js";
import { ruleMatches, type Rule } from "../findings.js";
import { argumentsArb, type Json } from "./cases.js";
import { shrink } from "./shrink.js";

// `fuzz --mcp`: many more invalid calls per tool than score's probes, drawn from a seed. Each is
// proven invalid by the reference against the tool's own schema (brought into the subset by only
// loosening it) before it is sent: nothing valid ever is. A finding is a tool that ran on one (or
// crashed or hung on it), shrunk to the smallest invalid object it still runs on, distinct by
// tool and key: mcp/SYMPTOM/KEYWORDS, the keywords the reference's errors on it name.

export const MCP_SYMPTOMS = ["ran", "crashed", "hung"] as const;
export type McpSymptom = (typeof MCP_SYMPTOMS)[number];

export interface McpFuzzOptions {
  seed: number;
  /** At most this many invalid calls drawn (shrinking not counted). */
  runs: number;
  /** Stops drawing after this long (ms); a finding being shrunk is finished (within SHRINK_TRIES and SHRINK_MS). */
  timeMs: number;
  /** Each request's timeout, ms (default 5,000): past it, the call is classed hung. */
  timeoutMs?: number;
  startTimeoutMs?: number;
  /** Stops after this many distinct findings. */
  maxFindings: number;
  /** Findings whose key one of these matches are set aside: counted, not reported. */
  ignore?: readonly Rule[];
  signal?: AbortSignal;
  onCase?: (progress: { cases: number; shrinks: number; findings: number }) => void;
}

export interface McpFinding {
  tool: string;
  /** mcp/SYMPTOM/KEYWORDS */
  key: string;
  symptom: McpSymptom;
  /** The shrunk arguments, and what the reference says is wrong with them. */
  arguments: Json;
  errors: string[];
  /** The server's answer to them, classed. */
  answer: Classed & { observed?: string };
  /** The arguments first found, before shrinking. */
  found: Json;
  shrinks: number;
  /** Calls drawn when it was found. */
  after: number;
  /** Calls drawn whose answer had this tool and key (this one included). */
  seen: number;
}

export interface ToolTally {
  tool: string;
  /** Invalid calls sent (shrinking not counted), by verdict. */
  sent: number;
  verdicts: Partial<Record<Verdict, number>>;
  /** Why the tool got no call, when it got none. */
  skipped?: string;
  /** Keywords of its schema outside the subset, dropped (not judged). */
  dropped: string[];
}

export interface McpFuzzOutcome {
  seed: number;
  server: ServerHello;
  cases: number;
  ms: number;
  /** Why the search ended: every call drawn, time, enough findings, a signal, nothing left to draw, or a server that could not be started again. */
  stopped: "runs" | "time" | "findings" | "interrupted" | "exhausted" | "gone";
  findings: McpFinding[];
  tools: ToolTally[];
  setAside: { tool: string; key: string; cases: number }[];
  /** Restarts after a crash or a hang, and anything else a reader should know. */
  notes: string[];
}

/** Calls a finding's shrinking may make, and how long it may take. */
export const SHRINK_TRIES = 200;
export const SHRINK_MS = 10_000;
/** Candidates drawn at a time for one tool. */
const BATCH = 64;
/** Draws in a row that give nothing new to send before a tool is left alone. */
const BARREN = 2_000;

interface Target {
  tool: string;
  schema: Schema;
  value: unknown;
  tally: ToolTally;
  queue: Json[];
  batch: number;
  barren: number;
  done: boolean;
  sent: Set<string>;
}

/** Fuzzes one MCP server. Throws SubjectError when it cannot be started or listed. */
export async function fuzzMcp(endpoint: McpEndpoint, options: McpFuzzOptions): Promise<McpFuzzOutcome> {
  const started = Date.now();
  const deadline = started + options.timeMs;
  let client: McpClient;
  try {
    client = await McpClient.connect(endpoint, { timeoutMs: options.timeoutMs ?? 5_000, ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}) });
  } catch (error) {
    if (error instanceof McpStartError) throw new SubjectError(error.message, error.stderr);
    throw error;
  }
  const findings: McpFinding[] = [];
  const setAside = new Map<string, { tool: string; key: string; cases: number }>();
  const notes: string[] = [];
  /** Each tool's restarts after a crash or a hang, by what happened. */
  const restarts = new Map<string, number>();
  let cases = 0;
  let shrinks = 0;
  const progress = () => options.onCase?.({ cases, shrinks, findings: findings.length });
  try {
    const listed = await client.listTools();
    if (!("list" in listed)) throw new SubjectError(`tools/list failed: ${listed.failed.kind === "error" ? listed.failed.text : listed.failed.kind}`, client.stderrTail());
    const targets = targetsOf(listed.list.tools, options.seed);
    const propertiesOf = new Map(listed.list.tools.map((tool) => [String((tool as { name?: unknown }).name), propertyNames((tool as { inputSchema?: unknown }).inputSchema)]));
    // as in score: what the server does on every call, a call of a tool that does not exist included, is no tool's
    const everyCall = client.witnessed ? await everyCallActs(client, unlistedName("tool_conformance_no_such_tool", listed.list.tools.map((tool) => String((tool as { name?: unknown }).name)))) : new Set<string>();
    if (client.closed !== undefined) await client.restart();
    let stopped: McpFuzzOutcome["stopped"] = "runs";
    /** One call, classed; a server that crashed or hung is started again. */
    let gone: string | undefined;
    const send = async (tool: string, args: Json, errors: readonly ValidationError[]): Promise<Classed & { observed?: string }> => {
      // under the sandbox, what the server's processes did decides first (docs/mcp.md rule 0), as in score: a ping
      // after the call closes its window
      const window = client.witnessed ? client.watch() : undefined;
      const answer = await client.call(tool, args);
      let classed: Classed & { observed?: string } = classify(answer, namesOf(errors), { properties: propertiesOf.get(tool) ?? new Set() });
      // a hang the witness overrules is a run (observed.ts), and the server must still be started again
      const unanswered = answer.kind === "hung" || answer.kind === "closed";
      if (window !== undefined) {
        const gone = unanswered;
        const answered = gone ? false : (await client.ping()).kind === "result";
        let watched = apartFromEveryCall(await window.close(answered), everyCall);
        // as in score: an act that would overrule the text must be seen again when the call is sent once more
        if (answered && wouldOverrule(classed, watched)) {
          const again = await askAgain(client, () => client.call(tool, args), watched, answer.ms, classed.verdict === "refused");
          watched = again.seen;
          if (again.gone) await client.restart().catch(() => undefined);
        }
        classed = observed(classed, answer, watched);
      }
      if (unanswered) {
        const note = `${tool}: the server was started again after it ${answer.kind === "hung" ? "hung" : "crashed"}`;
        restarts.set(note, (restarts.get(note) ?? 0) + 1);
        try {
          await client.restart();
        } catch (error) {
          gone = `the server could not be started again: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      return classed;
    };
    let turn = 0;
    while (cases < options.runs) {
      if (gone !== undefined) {
        stopped = "gone";
        notes.push(gone);
        break;
      }
      if (options.signal?.aborted) {
        stopped = "interrupted";
        break;
      }
      if (Date.now() >= deadline) {
        stopped = "time";
        break;
      }
      const live = targets.filter((t) => !t.done);
      if (live.length === 0) {
        stopped = "exhausted";
        break;
      }
      const target = live[turn++ % live.length]!;
      const drawn = nextInvalid(target);
      if (drawn === undefined) continue;
      const { args, errors } = drawn;
      cases++;
      target.tally.sent++;
      progress();
      const answer = await send(target.tool, args, errors);
      target.tally.verdicts[answer.verdict] = (target.tally.verdicts[answer.verdict] ?? 0) + 1;
      const symptom = symptomOf(answer.verdict);
      if (symptom === undefined) continue;
      const before = keyOf(symptom, errors);
      if (tally(target.tool, before)) continue;
      // shrink while the tool still runs on it, invalid in no other way than before (a hang is not shrunk: each try costs the timeout)
      const allowed = new Set(keywordsOf(errors));
      let last = answer;
      const until = Date.now() + SHRINK_MS;
      const shrunk =
        symptom === "hung"
          ? { value: args, steps: 0, tried: 0 }
          : await shrink(
              args,
              async (candidate) => {
                const wrong = target.schema.validate(candidate as never);
                if (wrong.length === 0 || !keywordsOf(wrong).every((k) => allowed.has(k)) || gone !== undefined) return false;
                shrinks++;
                progress();
                const again = await send(target.tool, candidate, wrong);
                if (symptomOf(again.verdict) !== symptom) return false;
                last = again;
                return true;
              },
              { tries: SHRINK_TRIES, until },
            );
      const finalErrors = target.schema.validate(shrunk.value as never);
      const key = keyOf(symptom, finalErrors);
      shrinks = 0;
      if (!tally(target.tool, key)) {
        findings.push({ tool: target.tool, key, symptom, arguments: shrunk.value, errors: finalErrors.map(String), answer: last, found: args, shrinks: shrunk.steps, after: cases, seen: 1 });
        progress();
        if (findings.length >= options.maxFindings) {
          stopped = "findings";
          break;
        }
      }
    }
    return {
      seed: options.seed,
      server: client.hello,
      cases,
      ms: Date.now() - started,
      stopped,
      findings,
      tools: targets.map((t) => t.tally),
      setAside: [...setAside.values()],
      notes: [...[...restarts].map(([note, n]) => `${note} (${n}×)`), ...notes],
    };
  } finally {
    await client.close();
  }

  /** Counts a call under a key already found or set aside; false for a new one. */
  function tally(tool: string, key: string): boolean {
    const found = findings.find((f) => f.tool === tool && f.key === key);
    if (found) found.seen++;
    else if ((options.ignore ?? []).some((rule) => ruleMatches(rule, key))) {
      const entry = setAside.get(`${tool} ${key}`) ?? { tool, key, cases: 0 };
      entry.cases++;
      setAside.set(`${tool} ${key}`, entry);
    } else return false;
    return true;
  }
}

/** The tools a server lists, each with its schema judged; a tool whose schema cannot be is skipped with why. */
function targetsOf(tools: unknown[], seed: number): Target[] {
  const seen = new Set<string>();
  const out: Target[] = [];
  const named = tools
    .map((tool) => tool as { name?: unknown; inputSchema?: unknown })
    .filter((tool): tool is { name: string; inputSchema?: unknown } => typeof tool?.name === "string")
    .sort((a, b) => compareCodePoints(a.name, b.name));
  for (const [index, tool] of named.entries()) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const judged = judgeable(tool.inputSchema === undefined ? { type: "object" } : tool.inputSchema);
    const tally: ToolTally = { tool: tool.name, sent: 0, verdicts: {}, dropped: judged.dropped };
    const target: Target = { tool: tool.name, schema: judged.schema!, value: judged.value, tally, queue: [], batch: seed + index * 7_919, barren: 0, done: false, sent: new Set() };
    if (judged.schema === undefined || judged.unjudged !== undefined) {
      tally.skipped = `its schema could not be judged: ${judged.unjudged ?? "unknown"}`;
      target.done = true;
    }
    out.push(target);
  }
  return out;
}

/** The next drawn arguments the reference proves invalid (with its errors) and that were not sent before; undefined when this draw gave none. */
function nextInvalid(target: Target): { args: Json; errors: ValidationError[] } | undefined {
  for (let tries = 0; tries < BATCH; tries++) {
    if (target.queue.length === 0) target.queue = fc.sample(argumentsArb(target.value), { numRuns: BATCH, seed: target.batch++ | 0 });
    const args = target.queue.shift()!;
    const text = JSON.stringify(args);
    const errors = target.sent.has(text) ? [] : target.schema.validate(args as never);
    if (errors.length > 0) {
      target.sent.add(text);
      target.barren = 0;
      return { args, errors: [...errors] };
    }
    if (++target.barren >= BARREN) {
      target.done = true;
      if (target.tally.sent === 0) target.tally.skipped = "nothing drawn for it is invalid (its schema accepts every argument object)";
      return undefined;
    }
  }
  return undefined;
}

function symptomOf(verdict: Verdict): McpSymptom | undefined {
  if (ran(verdict)) return "ran";
  if (verdict === "crashed" || verdict === "hung") return verdict;
  return undefined;
}

function keyOf(symptom: McpSymptom, errors: readonly ValidationError[]): string {
  return `mcp/${symptom}/${keywordsOf(errors).join(",")}`;
}

/** The keywords the reference's errors are about, sorted: read from its own messages (schema/messages.ts). */
export function keywordsOf(errors: readonly ValidationError[]): string[] {
  return [...new Set(errors.map((error) => keywordOfMessage(error.message)))].sort();
}

const MESSAGE_KEYWORDS: [RegExp, string][] = [
  [/^missing required property /, "required"],
  [/^unexpected property /, "additionalProperties"],
  [/^expected at least \S+ characters/, "minLength"],
  [/^expected at most \S+ characters/, "maxLength"],
  [/^expected at least \S+ items/, "minItems"],
  [/^expected at most \S+ items/, "maxItems"],
  [/^expected .+, got /, "type"],
  [/ is not one of /, "enum"],
  [/ is less than the minimum /, "minimum"],
  [/ is greater than the maximum /, "maximum"],
  [/ does not match pattern /, "pattern"],
  [/^does not match any schema in anyOf/, "anyOf"],
  [/ is not /, "const"],
];

export function keywordOfMessage(message: string): string {
  return MESSAGE_KEYWORDS.find(([pattern]) => pattern.test(message))?.[1] ?? "other";
}
