import type { Tier } from "../../corpus/rows.js";
import { compareCodePoints } from "../../json/value.js";
import { McpClient, type McpEndpoint, type ServerHello } from "../../subjects/mcp/client.js";
import { UsageError } from "../../errors.js";
import { acceptsFor, type McpAccept } from "../../subjects/mcp/accept.js";
import { probesFor, type McpProbe } from "../../subjects/mcp/probes.js";
import { propertyNames } from "../../subjects/mcp/paths.js";
import { lintTools, type ToolLint } from "../../subjects/mcp/lint.js";
import { unlistedName } from "../../subjects/mcp/unlisted.js";
import type { Answer } from "../../subjects/mcp/rpc.js";
import { McpStartError } from "../../subjects/mcp/transport.js";
import { SubjectError } from "../../subjects/subject.js";
import type { RowResult, ScoreOptions } from "../outcome.js";
import type { Check } from "../run-row.js";
import { filterMatches } from "../runner.js";
import { acceptChecks, callChecks, mcpResult, WHAT, type McpRow } from "./checks.js";
import { classifyAccepted } from "./classify-accepted.js";
import { classify, type CallContext, type Classed } from "./classify.js";
import { listRows } from "./list-rows.js";
import { RunStop, yieldToEventLoop } from "./stop.js";
import { oneLine } from "../../report/reporters/text.js";
import { apartFromEveryCall, askAgain, everyCallActs, observed, sortInWords, wouldOverrule, type Observed } from "./observed.js";
import { inForm, learnForm, type Answered } from "./refusal-form.js";

// A server's own rows, run one call at a time (a crash is then the call's): the tool list twice,
// every tool's probes with a ping after each, an unknown tool and a malformed frame. A server that
// crashes or hangs is started again and the run goes on; one that cannot be started again errors
// the rows left. Tools named in `run` (read-only ones, by the user's word) also get valid calls,
// the acceptance side, as rows of their own (mcp-accept/…); no other tool ever gets one.

export interface McpRunOptions extends ScoreOptions {
  /** Each request's timeout, ms (default 5,000). */
  timeoutMs?: number;
  /** The first initialize's timeout, ms (default 60,000: npx may install the server first); a restart's is timeoutMs, or twice what the first start took when longer. */
  startTimeoutMs?: number;
  /** The whole run's time limit, ms, from the start: past it, the rows not answered are errored with that cause. */
  budgetMs?: number;
  /** Globs over row ids: only the rows matched. */
  filters?: readonly string[];
  signal?: AbortSignal;
  onResult?: (result: RowResult) => void;
  /** Tools that may run (read-only, by the user's word, never by their annotations): they also get valid calls. */
  run?: readonly string[];
}

export interface McpRun {
  label: string;
  hello: ServerHello;
  rows: McpRow[];
  results: RowResult[];
  /** What a reader should know: the keywords not judged, tools not probed, restarts. */
  notes: string[];
  /** Each probe by its row id: what was sent. */
  sent: Map<string, string>;
  startedAt: string;
  finishedAt: string;
  ms: number;
  stderr?: string;
  /** Set when the run ended early: a signal (`interrupted`, its name) or the time budget. */
  stopped?: { cause: string; interrupted?: string };
  /** Set when a failure of this tool's own, outside any one tool's rows, ended the run (its row is errored with it). */
  failure?: string;
  /** The tools reached, their names and inputSchemas linted (information only, never a row): the tools with findings. */
  lint?: ToolLint[];
}

const UNKNOWN_TOOL = "tool_conformance_no_such_tool";

/** The most tools probed (the first ones by name): a list of 100,000 tools would otherwise run for hours and hold gigabytes. */
export const MAX_TOOLS = 1_000;

export async function runMcp(endpoint: McpEndpoint, options: McpRunOptions): Promise<McpRun> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const timeoutMs = options.timeoutMs ?? 5_000;
  // the budget counts from here: the start is part of the run, as for a subject
  const stop = new RunStop(options.signal, options.budgetMs);
  let client: McpClient;
  try {
    client = await McpClient.connect(endpoint, { timeoutMs, signal: stop.signal, ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}) });
  } catch (error) {
    stop.dispose();
    if (error instanceof McpStartError) throw new SubjectError(error.message, error.stderr);
    throw error;
  }
  const results: RowResult[] = [];
  const rows: McpRow[] = [];
  const notes: string[] = [];
  const sent = new Map<string, string>();
  let failure: string | undefined;
  /** The tools probed only with non-object arguments, each with why. */
  const unprobed: string[] = [];
  let probedCount = 0;
  /** The invalid calls that got no answer in time: each cost the timeout and a restart. */
  let hungCalls = 0;
  /** Each invalid call's answer as first classed, so that the server's own refusal form, once learned, can re-read it. */
  const answered: (Answered & { row: McpRow; pingAfter: string | undefined; refusalTier: Tier })[] = [];
  let lint: ToolLint[] | undefined;
  /** The sorts of act the server does on every call, as the witness saw (observed.ts): set apart from each call's. */
  let everyCall: ReadonlySet<string> = new Set<string>();
  const wanted = (row: McpRow) => options.tiers.includes(row.tier) && (!options.filters?.length || options.filters.some((f) => filterMatches(f, row)));
  const recorded = new Set<string>();
  const record = (row: McpRow, checks: Check[], ms: number, error?: string) => {
    if (recorded.has(row.id)) return;
    recorded.add(row.id);
    rows.push(row);
    const result = mcpResult(row, checks, ms, options, error);
    results.push(result);
    options.onResult?.(result);
  };
  // past the budget every row not answered is errored with its cause; a signal only stops the run
  const unanswered = (row: McpRow) => {
    if (stop.interrupted === undefined && wanted(row)) record(row, [], 0, stop.cause);
  };
  try {
    const first = await stop.race(client.listTools());
    const second = first !== undefined && "list" in first ? await stop.race(client.listTools()) : first;
    if (first === undefined || second === undefined) {
      for (const row of serverRowsOf()) unanswered(row);
      return finish();
    }
    if (!("list" in first) || !("list" in second)) {
      const failed = "failed" in first ? first.failed : (second as { failed: Answer }).failed;
      throw new SubjectError(`tools/list failed: ${describe(failed)}`, client.stderrTail());
    }
    const named = first.list.tools
      .map((tool) => tool as { name?: unknown; inputSchema?: unknown })
      .filter((tool): tool is { name: string; inputSchema?: unknown } => typeof tool?.name === "string")
      .sort((a, b) => compareCodePoints(a.name, b.name));
    const runnable = runnableTools(options.run ?? [], named.map((tool) => tool.name));
    for (const row of listRows(first.list, second.list)) if (wanted(row)) record(row, row.checks, 0);
    // each tool once, the first MAX_TOOLS by name
    const seen = new Set<string>();
    const tools = named.filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
    const probed = tools.slice(0, MAX_TOOLS);
    probedCount = probed.length;
    const cuts = [...(first.list.cut ? [first.list.cut] : []), ...(tools.length > MAX_TOOLS ? [`${tools.length} tools listed: only the first ${MAX_TOOLS} by name probed (the cap on tools probed), the other ${tools.length - MAX_TOOLS} not probed`] : [])];
    notes.push(...cuts);
    // a cut list is never a clean pass: a row says what was left unprobed
    if (cuts.length > 0 && wanted(WHOLE_ROW)) record(WHOLE_ROW, [], 0, cuts.join("; "));
    const unknownTool = unlistedName(UNKNOWN_TOOL, named.map((tool) => tool.name));
    // under the witness: what the server does on every call (a call of a tool that does not exist, twice) is not any tool's
    if (client.witnessed) everyCall = (await stop.race(everyCallActs(client, unknownTool))) ?? everyCall;
    if (everyCall.size > 0) notes.push(`on every call, a call of a tool that does not exist included, the server ${[...everyCall].map(sortInWords).join(", ")} (the sandbox saw it twice): not blamed on any tool`);
    let broken: string | undefined = client.closed === undefined ? undefined : await restart(client, notes, stop);
    for (const [index, tool] of probed.entries()) {
      // between tools: a signal handler or the budget's timer gets its turn, however heavy the probes are to make
      await yieldToEventLoop();
      if (stop.cause !== undefined) {
        for (const rest of probed.slice(index)) unanswered(toolRow(rest.name));
        for (const row of serverRowsOf()) unanswered(row);
        return finish();
      }
      (lint ??= []).push(...lintTools([tool]));
      try {
        broken = await probeTool(tool, runnable.has(tool.name), broken);
      } catch (error) {
        // this tool's rows could not be made or run: errored, and the run goes on with the next tool
        if (stop.cause === undefined) record(toolRow(tool.name), [], 0, `internal error on this tool's rows: ${messageOf(error)}`);
      }
    }
    if (stop.cause !== undefined) {
      for (const row of serverRowsOf()) unanswered(row);
      return finish();
    }
    if (broken === undefined) await serverRows(client, wanted, record, sent, notes, stop, unknownTool, everyCall);
    else for (const row of serverRowsOf()) if (wanted(row)) record(row, [], 0, broken);
  } catch (error) {
    if (error instanceof SubjectError || error instanceof UsageError) throw error;
    // a failure of our own outside any tool's rows: the run ends, whole, and says why
    failure = `internal error: ${messageOf(error)}`;
    record(INTERNAL_ROW, [], 0, failure);
  } finally {
    stop.dispose();
    await client.close();
  }
  return finish();

  /** One tool's probes (and valid calls when it may run), each sent and recorded; the run's `broken` after them. */
  async function probeTool(tool: { name: string; inputSchema?: unknown }, runs: boolean, brokenBefore: string | undefined): Promise<string | undefined> {
    let broken = brokenBefore;
    const made = probesFor(tool.name, tool.inputSchema);
    const properties = propertyNames(tool.inputSchema);
    if (made.dropped.length) notes.push(`${tool.name}: not judged (outside the subset, dropped): ${made.dropped.join("; ")}`);
    if (made.unjudged) notes.push(`${tool.name}: its schema could not be judged (${made.unjudged}); only non-object arguments were sent`);
    if (made.cut.length) notes.push(`${tool.name}: ${made.cut.join("; ")}`);
    if (made.unprobed !== undefined) unprobed.push(`${tool.name} (${made.unprobed})`);
    const probes = made.probes.map((probe) => ({ probe, row: probeRow(probe) })).filter(({ row }) => wanted(row));
    for (const [index, { probe, row }] of probes.entries()) {
      if (stop.cause !== undefined) {
        for (const rest of probes.slice(index)) unanswered(rest.row);
        return broken;
      }
      if (broken !== undefined) {
        record(row, [], 0, broken);
        continue;
      }
      sent.set(row.id, `tools/call ${JSON.stringify({ name: probe.tool, arguments: probe.arguments })}`);
      // arguments that are not an object break tools/call's own schema: any protocol error refuses them
      const refusalTier = probe.rule === "type/object" ? "catalog" : "core";
      const outcome = await stop.race(callAndPing(client, probe.tool, probe.arguments, probe.names, everyCall, refusalTier, { properties }));
      if (outcome === undefined) {
        unanswered(row);
        continue;
      }
      record(row, outcome.checks, outcome.ms);
      if (outcome.answer.kind === "hung") hungCalls++;
      answered.push({ tool: probe.tool, answer: outcome.answer, classed: outcome.seen, names: probe.names, row, pingAfter: outcome.pingAfter, refusalTier });
      if (outcome.restart) broken = await restart(client, notes, stop);
    }
    // a tool probed only with non-object arguments is never a pass: its row says why the rest was not sent
    if (made.unprobed !== undefined && wanted(toolRow(tool.name)) && stop.cause === undefined) record(toolRow(tool.name), [], 0, `not probed beyond non-object arguments: ${made.unprobed}`);
    if (!runs) return broken;
    const accepts = acceptsFor(tool.name, tool.inputSchema);
    if (accepts.unjudged) notes.push(`${tool.name}: no valid call was sent: ${accepts.unjudged}`);
    for (const call of accepts.calls) {
      const row = acceptRow(call);
      if (!wanted(row)) continue;
      if (stop.cause !== undefined) {
        unanswered(row);
        continue;
      }
      if (broken !== undefined) {
        record(row, [], 0, broken);
        continue;
      }
      sent.set(row.id, `tools/call {"name":${JSON.stringify(call.tool)},"arguments":${call.text}}`);
      const outcome = await stop.race(askAndPing(client, () => client.callText(call.tool, call.text), (answer) => classifyAccepted(answer, call.names, properties), acceptChecks, everyCall));
      if (outcome === undefined) {
        unanswered(row);
        continue;
      }
      record(row, outcome.checks, outcome.ms);
      if (outcome.restart) broken = await restart(client, notes, stop);
    }
    return broken;
  }

  /** The answers the general rules could not place, re-read in the server's own refusal form (refusal-form.ts), when one is learned. */
  function rereadInForm(): void {
    const form = learnForm(answered);
    if (form === undefined) return;
    let reread = 0;
    for (const item of answered) {
      const again = inForm(form, item);
      const at = again === undefined ? -1 : results.findIndex((result) => result.id === item.row.id);
      if (again === undefined || at < 0) continue;
      results[at] = mcpResult(item.row, callChecks({ ...again, observed: item.classed.observed }, item.pingAfter, "core", item.refusalTier), results[at]!.ms, options);
      reread++;
    }
    if (reread > 0) notes.push(`this server's refusals open \`${form.opening}\` (${form.channel}), learned from ${form.from} answers that named the argument: ${reread} normal result${reread === 1 ? "" : "s"} in that form read as a refusal, not a run`);
  }

  function finish(): McpRun {
    rereadInForm();
    if (unprobed.length > 0) {
      const shown = unprobed.slice(0, 10).join("; ") + (unprobed.length > 10 ? `; and ${unprobed.length - 10} more` : "");
      notes.unshift(`${unprobed.length} of ${probedCount} tools could not be probed beyond non-object arguments (never counted as passing): ${shown}`);
    }
    const finished = Date.now();
    const stderr = client.stderrTail();
    notes.push(...client.observedNotes());
    if (client.restarts > 0) notes.push(`the server was started again ${client.restarts} time${client.restarts === 1 ? "" : "s"} after a crash or a hang`);
    // where the time went, on a server that hangs: a shorter --timeout is the user's to choose
    if (hungCalls > 0) notes.push(`${hungCalls} call${hungCalls === 1 ? "" : "s"} got no answer within --timeout (${timeoutMs} ms): each waited that long, then the server was started again`);
    const cause = stop.cause;
    const stopped = cause === undefined ? {} : { stopped: { cause, ...(stop.interrupted !== undefined ? { interrupted: stop.interrupted } : {}) } };
    return { label: client.label, hello: client.hello, rows, results, notes, sent, startedAt, finishedAt: new Date(finished).toISOString(), ms: finished - started, ...(stderr ? { stderr } : {}), ...stopped, ...(failure !== undefined ? { failure } : {}), ...(lint ? { lint } : {}) };
  }
}

/** The row that stands for a tool whose rows could not be made, or were never reached. */
function toolRow(name: string): McpRow {
  return { id: `mcp/${name}/probes`, section: "TestCallNeverPanics", tier: "core", rule: "mcp/probes", pitfalls: [], why: "the tool's invalid calls are made from its inputSchema and sent, one by one" };
}

/** Errored when the tool list was cut (a page cap, a repeated cursor, the cap on tools probed): no clean pass over tools never probed. */
const WHOLE_ROW: McpRow = { id: "mcp-list/complete", section: "TestCallNeverPanics", tier: "core", rule: "list/complete", pitfalls: [], why: "every tool the server lists is listed to the end and probed" };

/** Errored when a failure of this tool's own, outside any tool's rows, ended the run. */
const INTERNAL_ROW: McpRow = { id: "mcp-server/run", section: "TestCallNeverPanics", tier: "core", rule: "mcp/run", pitfalls: [], why: "the run over the server's tools goes to its end" };

function messageOf(error: unknown): string {
  return oneLine(error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error));
}

/** The tools named in --mcp-run, each one the server lists; any other name is a usage error naming those listed. */
function runnableTools(named: readonly string[], listed: readonly string[]): Set<string> {
  const unknown = [...new Set(named)].filter((name) => !listed.includes(name));
  if (unknown.length > 0) {
    const tools = listed.length ? [...new Set(listed)].map((name) => JSON.stringify(name)).join(", ") : "none";
    throw new UsageError(`--mcp-run: ${unknown.map((name) => JSON.stringify(name)).join(", ")} ${unknown.length === 1 ? "is" : "are"} not a tool of this server (its tools: ${tools})`);
  }
  return new Set(named);
}

function acceptRow(call: McpAccept): McpRow {
  return { id: call.id, section: call.section, tier: "core", rule: `mcp-accept/${call.rule}`, pitfalls: [...new Set([...call.pitfalls, "s11"])], why: call.why };
}

function probeRow(probe: McpProbe): McpRow {
  const namesPitfall = probe.rule === "items" ? "s17" : "s23";
  return { id: probe.id, section: "TestCallNeverPanics", tier: "core", rule: `mcp/${probe.rule}`, pitfalls: [...new Set([...probe.pitfalls, "s11", "s15", namesPitfall])], why: probe.why };
}

/** One invalid call, classed, then a ping: whether the server must be started again. */
function callAndPing(client: McpClient, tool: string, args: unknown, names: string[][], everyCall: ReadonlySet<string>, refusalTier: Tier = "core", context: CallContext = {}): Promise<Asked> {
  return askAndPing(
    client,
    () => client.call(tool, args),
    (answer) => classify(answer, names, context),
    (classed, pingAfter) => callChecks(classed, pingAfter, "core", refusalTier),
    everyCall,
  );
}

/** A call asked: its checks, and the answer, its verdict and the ping after it, kept for a re-reading. */
interface Asked {
  checks: Check[];
  ms: number;
  restart: boolean;
  answer: Answer;
  seen: Observed;
  pingAfter: string | undefined;
}

/** One call sent, its answer classed (and overruled by what the sandbox saw in its window) and made checks, then a ping unless the server is already gone. */
async function askAndPing(client: McpClient, ask: () => Promise<Answer>, judge: (answer: Answer) => Classed, checksOf: (classed: Observed, pingAfter: string | undefined) => Check[], everyCall: ReadonlySet<string>): Promise<Asked> {
  const window = client.watch();
  const answer = await ask();
  const classed = judge(answer);
  if (classed.verdict === "crashed" || classed.verdict === "hung") {
    const seen = observed(classed, answer, apartFromEveryCall(await window.close(false), everyCall));
    return { checks: checksOf(seen, undefined), ms: answer.ms, restart: true, answer, seen, pingAfter: undefined };
  }
  const ping = await client.ping();
  const pingAfter = ping.kind === "result" ? undefined : `the ping after it: ${describe(ping)}`;
  let watched = apartFromEveryCall(await window.close(ping.kind === "result"), everyCall);
  let gone = false;
  // an act that would overrule the text must be the call's: seen again when the same call is sent once more
  if (pingAfter === undefined && wouldOverrule(classed, watched)) ({ seen: watched, gone } = await askAgain(client, ask, watched, answer.ms, classed.verdict === "refused"));
  const seen = observed(classed, answer, watched);
  return { checks: checksOf(seen, pingAfter), ms: answer.ms, restart: pingAfter !== undefined || gone, answer, seen, pingAfter };
}


async function restart(client: McpClient, notes: string[], stop: RunStop): Promise<string | undefined> {
  try {
    await client.restart();
    return undefined;
  } catch (error) {
    // a restart given up for the signal or the budget: the run stops, said by its own cause
    if (stop.cause !== undefined) return stop.cause;
    const why = `the server could not be started again: ${error instanceof Error ? error.message : String(error)}`;
    notes.push(why);
    return why;
  }
}

type Recorder = (row: McpRow, checks: Check[], ms: number, error?: string) => void;

const UNKNOWN_ROW: McpRow = { id: "mcp-server/unknown-tool", section: "TestCallNeverPanics", tier: "core", rule: "call/unknown-tool", pitfalls: ["s11", "s15"], why: "a call of a tool that does not exist is refused, readably, and names the tool" };
const MALFORMED_ROW: McpRow = { id: "mcp-server/malformed-frame", section: "TestCallNeverPanics", tier: "core", rule: "call/malformed-json", pitfalls: ["s11"], why: "a frame that is not JSON neither crashes nor hangs the server: a ping after it is answered" };

/** The rows of the server as a whole, sent after every tool's. */
function serverRowsOf(): McpRow[] {
  return [UNKNOWN_ROW, MALFORMED_ROW];
}

/** The server's own rows; `unknownTool` is a name the server does not list. */
async function serverRows(client: McpClient, wanted: (row: McpRow) => boolean, record: Recorder, sent: Map<string, string>, notes: string[], stop: RunStop, unknownTool: string, everyCall: ReadonlySet<string>): Promise<void> {
  const unknown = UNKNOWN_ROW;
  const unanswered = (row: McpRow) => stop.interrupted === undefined && wanted(row) && record(row, [], 0, stop.cause);
  if (wanted(unknown)) {
    sent.set(unknown.id, `tools/call ${JSON.stringify({ name: unknownTool, arguments: {} })}`);
    const outcome = await stop.race(callAndPing(client, unknownTool, {}, [[unknownTool]], everyCall));
    if (outcome === undefined) return serverRowsOf().forEach(unanswered);
    // that the refusal names the tool is our wording's business, not the seed's
    record(unknown, outcome.checks.map((check) => (check.what === WHAT.named ? { ...check, tier: "catalog" } : check)), outcome.ms);
    if (outcome.restart && (await restart(client, notes, stop)) !== undefined) return;
  }
  const malformed = MALFORMED_ROW;
  if (wanted(malformed)) {
    const frame = '{"jsonrpc":"2.0","id":"tool-conformance-malformed","method":"tools/call","params":{"name":"x","arguments":{"a":';
    sent.set(malformed.id, `the frame ${frame}`);
    const startedAt = Date.now();
    const answered = await stop.race(client.malformed(frame).then(async (reply) => ({ reply, ping: await client.ping() })));
    if (answered === undefined) return unanswered(malformed) as undefined;
    const { reply, ping } = answered;
    const alive = ping.kind === "result";
    const check: Check = { level: "verdict", tier: "core", what: WHAT.answers, expected: { answers: true }, actual: alive ? { answers: true, reply: reply ?? "(none)" } : { died: `the ping after it: ${describe(ping)}` }, pass: alive };
    record(malformed, [check], Date.now() - startedAt);
  }
}

function describe(answer: Answer): string {
  switch (answer.kind) {
    case "result":
      return "answered";
    case "error":
      return `JSON-RPC error: ${answer.text}`;
    case "closed":
      return `the server went away (${answer.how})`;
    case "hung":
      return `no answer within ${answer.ms} ms`;
  }
}
