import type { Tier } from "../../corpus/rows.js";
import { compareCodePoints } from "../../json/value.js";
import { McpClient, type McpEndpoint, type ServerHello } from "../../subjects/mcp/client.js";
import { UsageError } from "../../errors.js";
import { acceptsFor, type McpAccept } from "../../subjects/mcp/accept.js";
import { probesFor, type McpProbe } from "../../subjects/mcp/probes.js";
import { unlistedName } from "../../subjects/mcp/unlisted.js";
import type { Answer } from "../../subjects/mcp/rpc.js";
import { McpStartError } from "../../subjects/mcp/transport.js";
import { SubjectError } from "../../subjects/subject.js";
import type { RowResult, ScoreOptions } from "../outcome.js";
import type { Check } from "../run-row.js";
import { filterMatches } from "../runner.js";
import { acceptChecks, callChecks, mcpResult, WHAT, type McpRow } from "./checks.js";
import { classifyAccepted } from "./classify-accepted.js";
import { classify, type Classed } from "./classify.js";
import { listRows } from "./list-rows.js";

// A server's own rows, run one call at a time (a crash is then the call's): the tool list twice,
// every tool's probes with a ping after each, an unknown tool and a malformed frame. A server that
// crashes or hangs is started again and the run goes on; one that cannot be started again errors
// the rows left. Tools named in `run` (read-only ones, by the user's word) also get valid calls,
// the acceptance side, as rows of their own (mcp-accept/…); no other tool ever gets one.

export interface McpRunOptions extends ScoreOptions {
  /** Each request's timeout, ms (default 5,000). */
  timeoutMs?: number;
  /** initialize's timeout, ms (default 60,000: npx may install the server first). */
  startTimeoutMs?: number;
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
}

const UNKNOWN_TOOL = "tool_conformance_no_such_tool";

export async function runMcp(endpoint: McpEndpoint, options: McpRunOptions): Promise<McpRun> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const timeoutMs = options.timeoutMs ?? 5_000;
  let client: McpClient;
  try {
    client = await McpClient.connect(endpoint, { timeoutMs, ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}) });
  } catch (error) {
    if (error instanceof McpStartError) throw new SubjectError(error.message, error.stderr);
    throw error;
  }
  const results: RowResult[] = [];
  const rows: McpRow[] = [];
  const notes: string[] = [];
  const sent = new Map<string, string>();
  const wanted = (row: McpRow) => options.tiers.includes(row.tier) && (!options.filters?.length || options.filters.some((f) => filterMatches(f, row)));
  const record = (row: McpRow, checks: Check[], ms: number, error?: string) => {
    rows.push(row);
    const result = mcpResult(row, checks, ms, options, error);
    results.push(result);
    options.onResult?.(result);
  };
  try {
    const first = await client.listTools();
    const second = "list" in first ? await client.listTools() : first;
    if (!("list" in first) || !("list" in second)) {
      const failed = "failed" in first ? first.failed : (second as { failed: Answer }).failed;
      throw new SubjectError(`tools/list failed: ${describe(failed)}`, client.stderrTail());
    }
    const tools = first.list.tools
      .map((tool) => tool as { name?: unknown; inputSchema?: unknown })
      .filter((tool): tool is { name: string; inputSchema?: unknown } => typeof tool?.name === "string")
      .sort((a, b) => compareCodePoints(a.name, b.name));
    const runnable = runnableTools(options.run ?? [], tools.map((tool) => tool.name));
    for (const row of listRows(first.list, second.list)) if (wanted(row)) record(row, row.checks, 0);
    let broken: string | undefined;
    const seen = new Set<string>();
    for (const tool of tools) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      const made = probesFor(tool.name, tool.inputSchema);
      if (made.dropped.length) notes.push(`${tool.name}: not judged (outside the subset, dropped): ${made.dropped.join("; ")}`);
      if (made.unjudged) notes.push(`${tool.name}: its schema could not be judged (${made.unjudged}); only non-object arguments were sent`);
      if (made.cut.length) notes.push(`${tool.name}: ${made.cut.join("; ")}`);
      for (const probe of made.probes) {
        const row = probeRow(probe);
        if (!wanted(row)) continue;
        if (options.signal?.aborted) return finish();
        if (broken !== undefined) {
          record(row, [], 0, broken);
          continue;
        }
        sent.set(row.id, `tools/call ${JSON.stringify({ name: probe.tool, arguments: probe.arguments })}`);
        // arguments that are not an object break tools/call's own schema: any protocol error refuses them
        const refusalTier = probe.rule === "type/object" ? "catalog" : "core";
        const outcome = await callAndPing(client, probe.tool, probe.arguments, probe.names, refusalTier);
        record(row, outcome.checks, outcome.ms);
        if (outcome.restart) broken = await restart(client, notes);
      }
      if (!runnable.has(tool.name)) continue;
      const accepts = acceptsFor(tool.name, tool.inputSchema);
      if (accepts.unjudged) notes.push(`${tool.name}: no valid call was sent: ${accepts.unjudged}`);
      for (const call of accepts.calls) {
        const row = acceptRow(call);
        if (!wanted(row)) continue;
        if (options.signal?.aborted) return finish();
        if (broken !== undefined) {
          record(row, [], 0, broken);
          continue;
        }
        sent.set(row.id, `tools/call {"name":${JSON.stringify(call.tool)},"arguments":${call.text}}`);
        const outcome = await askAndPing(client, () => client.callText(call.tool, call.text), (answer) => classifyAccepted(answer, call.names), acceptChecks);
        record(row, outcome.checks, outcome.ms);
        if (outcome.restart) broken = await restart(client, notes);
      }
    }
    if (broken === undefined && !options.signal?.aborted) await serverRows(client, wanted, record, sent, notes, unlistedName(UNKNOWN_TOOL, tools.map((tool) => tool.name)));
  } finally {
    await client.close();
  }
  return finish();

  function finish(): McpRun {
    const finished = Date.now();
    const stderr = client.stderrTail();
    if (client.restarts > 0) notes.push(`the server was started again ${client.restarts} time${client.restarts === 1 ? "" : "s"} after a crash or a hang`);
    return { label: client.label, hello: client.hello, rows, results, notes, sent, startedAt, finishedAt: new Date(finished).toISOString(), ms: finished - started, ...(stderr ? { stderr } : {}) };
  }
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
function callAndPing(client: McpClient, tool: string, args: unknown, names: string[][], refusalTier: Tier = "core"): Promise<{ checks: Check[]; ms: number; restart: boolean }> {
  return askAndPing(
    client,
    () => client.call(tool, args),
    (answer) => classify(answer, names),
    (classed, pingAfter) => callChecks(classed, pingAfter, "core", refusalTier),
  );
}

/** One call sent, its answer classed and made checks, then a ping unless the server is already gone. */
async function askAndPing(client: McpClient, ask: () => Promise<Answer>, judge: (answer: Answer) => Classed, checksOf: (classed: Classed, pingAfter: string | undefined) => Check[]): Promise<{ checks: Check[]; ms: number; restart: boolean }> {
  const answer = await ask();
  const classed = judge(answer);
  if (classed.verdict === "crashed" || classed.verdict === "hung") return { checks: checksOf(classed, undefined), ms: answer.ms, restart: true };
  const ping = await client.ping();
  const pingAfter = ping.kind === "result" ? undefined : `the ping after it: ${describe(ping)}`;
  return { checks: checksOf(classed, pingAfter), ms: answer.ms, restart: pingAfter !== undefined };
}

async function restart(client: McpClient, notes: string[]): Promise<string | undefined> {
  try {
    await client.restart();
    return undefined;
  } catch (error) {
    const why = `the server could not be started again: ${error instanceof Error ? error.message : String(error)}`;
    notes.push(why);
    return why;
  }
}

type Recorder = (row: McpRow, checks: Check[], ms: number, error?: string) => void;

async function serverRows(client: McpClient, wanted: (row: McpRow) => boolean, record: Recorder, sent: Map<string, string>, notes: string[], UNKNOWN_TOOL: string): Promise<void> {
  const unknown: McpRow = { id: "mcp-server/unknown-tool", section: "TestCallNeverPanics", tier: "core", rule: "call/unknown-tool", pitfalls: ["s11", "s15"], why: "a call of a tool that does not exist is refused, readably, and names the tool" };
  if (wanted(unknown)) {
    sent.set(unknown.id, `tools/call ${JSON.stringify({ name: UNKNOWN_TOOL, arguments: {} })}`);
    const outcome = await callAndPing(client, UNKNOWN_TOOL, {}, [[UNKNOWN_TOOL]]);
    // that the refusal names the tool is our wording's business, not the seed's
    record(unknown, outcome.checks.map((check) => (check.what === WHAT.named ? { ...check, tier: "catalog" } : check)), outcome.ms);
    if (outcome.restart && (await restart(client, notes)) !== undefined) return;
  }
  const malformed: McpRow = { id: "mcp-server/malformed-frame", section: "TestCallNeverPanics", tier: "core", rule: "call/malformed-json", pitfalls: ["s11"], why: "a frame that is not JSON neither crashes nor hangs the server: a ping after it is answered" };
  if (wanted(malformed)) {
    const frame = '{"jsonrpc":"2.0","id":"tool-conformance-malformed","method":"tools/call","params":{"name":"x","arguments":{"a":';
    sent.set(malformed.id, `the frame ${frame}`);
    const startedAt = Date.now();
    const reply = await client.malformed(frame);
    const ping = await client.ping();
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
