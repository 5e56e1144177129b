import { compareCodePoints } from "../json/value.js";
import { ERROR_PREFIX } from "../schema/messages.js";
import { renderPath } from "../schema/path.js";
import type { Body, ConcurrentBody, Send } from "../subjects/protocol.js";
import { ProtocolError, SubjectDied } from "../subjects/subject.js";

import {
  instanceTextOf,
  messageTierOf,
  parametersTextOf,
  schemaTextOf,
  type CompileRow,
  type ExpectedError,
  type Level,
  type ProfileName,
  type RegistryRow,
  type Row,
  type SimpleStep,
  type Step,
  type Tier,
  type ValidateRow,
} from "../corpus/rows.js";

/** One comparison of a row: what was expected, what came back. */
export interface Check {
  level: Level;
  tier: Tier;
  what: string;
  expected: unknown;
  actual: unknown;
  pass: boolean;
  /** Words for a reader beside expected and actual (what the implementation threw); never compared. */
  note?: string;
}

/** The most characters of what an implementation threw that a check keeps. */
const THROWN_CAP = 300;

/**
 * A crash: the implementation raised or panicked (a `threw` reply) where `expected` was expected.
 * Its actual is `{threw: TEXT}` (TEXT capped at 300 characters, with …), and it fails at verdict
 * level: the spec forbids crashing on the model's input, and compile must refuse what it does
 * not support rather than crash.
 */
function crashCheck(tier: Tier, what: string, expected: unknown, thrown: string): Check {
  const text = thrown.length > THROWN_CAP ? `${thrown.slice(0, THROWN_CAP - 1)}…` : thrown;
  return { level: "verdict", tier, what, expected, actual: { threw: text }, pass: false, note: `it threw ${text}` };
}

/** The thrown text of a crash check (its actual is `{threw: TEXT}`), else undefined. */
export function crashOf(check: Check): string | undefined {
  return soleField(check.actual, "threw");
}

/** How the process ended, for the check of a batch during which the subject's process died (its actual is `{died: HOW}`), else undefined. */
export function deathOf(check: Check): string | undefined {
  return soleField(check.actual, "died");
}

/** What a crash answer says, whatever the crash: a throw or panic (`{threw}`), or a process that died (`{died}`); else undefined. */
export function crashIn(actual: unknown): string | undefined {
  return soleField(actual, "threw") ?? soleField(actual, "died");
}

function soleField(value: unknown, field: string): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  return Object.keys(record).length === 1 && typeof record[field] === "string" ? record[field] : undefined;
}

/** What a reply says the implementation threw, when it is a `threw` reply. */
function threwOf(reply: Record<string, unknown>): string | undefined {
  return typeof reply.threw === "string" ? reply.threw : undefined;
}

const verdictOf = (errorCount: number) => (errorCount === 0 ? "valid" : "invalid");

/** Runs one row through `send` and returns every check it makes. Throws ProtocolError or transport errors. */
export async function runRow(row: Row, send: Send, profile: ProfileName): Promise<Check[]> {
  switch (row.kind) {
    case "validate":
      return runValidate(row, send, profile);
    case "compile":
      return runCompile(row, send);
    case "registry":
      return runRegistry(row, send, profile);
  }
}

async function runValidate(row: ValidateRow, send: Send, profile: ProfileName): Promise<Check[]> {
  const reply = await send({ cmd: "validate", schema: schemaTextOf(row), instance: instanceTextOf(row.instance) });
  const threw = threwOf(reply);
  if (threw !== undefined) return [crashCheck(row.tier, "verdict", verdictOf(row.expect.errors.length), threw)];
  if (reply.ok === false) {
    const error = stringField(reply, "error", "validate");
    return [check("verdict", row.tier, "schema compiles", "compiles", `refused: ${error}`)];
  }
  return errorChecks(row, "", row.expect.errors, reply, profile, row.verdictOnly === true);
}

interface RenderedError {
  path: string;
  message: string;
  expectedType?: string;
}

/**
 * The checks of a validate reply against the expected errors. ag02 fixes the order of the errors
 * (sorted by path, then message); the lesson profile does not, and adds each type error's
 * expected type.
 */
function errorChecks(row: Row, label: string, expectedErrors: readonly ExpectedError[], reply: Record<string, unknown>, profile: ProfileName, verdictOnly: boolean): Check[] {
  const lesson = profile === "lesson";
  const expected: RenderedError[] = expectedErrors.map((error) => ({
    path: renderPath(error.path, lesson ? "pointer" : "dollar"),
    message: error.message,
    ...(error.expectedType !== undefined ? { expectedType: error.expectedType } : {}),
  }));
  const errors: RenderedError[] = arrayField(reply, "errors", "validate").map((item) => {
    if (typeof item !== "object" || item === null) throw new ProtocolError("validate reply: an error is not an object");
    const record = item as Record<string, unknown>;
    const type = record.expectedType;
    if (type !== undefined && type !== null && typeof type !== "string") throw new ProtocolError('validate reply: an error\'s "expectedType" is not a string');
    return { path: stringField(record, "path", "validate error"), message: stringField(record, "message", "validate error"), ...(typeof type === "string" ? { expectedType: type } : {}) };
  });
  const checks = [check("verdict", row.tier, `${label}verdict`, verdictOf(expected.length), verdictOf(errors.length))];
  if (verdictOnly) return checks;
  const lines = (list: RenderedError[]) => list.map((e) => `${e.path}: ${e.message}`);
  if (!lesson) {
    checks.push(check("paths", row.tier, `${label}error paths in order`, expected.map((e) => e.path), errors.map((e) => e.path)));
    checks.push(check("messages", messageTierOf(row), `${label}errors`, lines(expected), lines(errors)));
    return checks;
  }
  const sorted = (list: string[]) => [...list].sort(compareCodePoints);
  checks.push(check("paths", row.tier, `${label}error paths (in any order)`, sorted(expected.map((e) => e.path)), sorted(errors.map((e) => e.path))));
  const typed = expected.filter((e) => e.expectedType !== undefined);
  if (typed.length > 0) {
    // each type error's expected type, beside whatever the subject says at those paths
    const pair = (e: RenderedError) => `${e.path}: ${e.expectedType ?? "(no expected type)"}`;
    const wanted = sorted(typed.map(pair));
    const actual = sorted(errors.filter((e) => typed.some((t) => t.path === e.path)).map(pair));
    checks.push(check("paths", row.tier, `${label}expected types of the type errors`, wanted, actual, (w, a) => includesAll(a as string[], w as string[])));
  }
  checks.push(check("messages", messageTierOf(row), `${label}errors (in any order)`, sorted(lines(expected)), sorted(lines(errors))));
  return checks;
}

/** Whether `list` holds every item of `wanted`, as many times as `wanted` does. */
function includesAll(list: readonly string[], wanted: readonly string[]): boolean {
  const left = [...list];
  return wanted.every((item) => {
    const at = left.indexOf(item);
    if (at === -1) return false;
    left.splice(at, 1);
    return true;
  });
}

async function runCompile(row: CompileRow, send: Send): Promise<Check[]> {
  const reply = await send({ cmd: "compile", schema: schemaTextOf(row) });
  return outcomeChecks(row, "schema", row.expect, reply);
}

/** Checks an accepted-or-refused reply (compile, register): the verdict, then the exact error text. */
function outcomeChecks(row: Row, what: string, expect: { ok: boolean; error?: string }, reply: Record<string, unknown>): Check[] {
  const word = (ok: boolean) => (ok ? "accepted" : "refused");
  const threw = threwOf(reply);
  if (threw !== undefined) return [crashCheck(row.tier, `${what} ${word(expect.ok)}`, word(expect.ok), threw)];
  if (typeof reply.ok !== "boolean") throw new ProtocolError(`${what} reply has no boolean "ok"`);
  const checks = [check("verdict", row.tier, `${what} ${word(expect.ok)}`, word(expect.ok), word(reply.ok))];
  if (!expect.ok && expect.error !== undefined && !reply.ok) {
    checks.push(check("messages", messageTierOf(row), `${what} error`, expect.error, stringField(reply, "error", what)));
  }
  return checks;
}

async function runRegistry(row: RegistryRow, send: Send, profile: ProfileName): Promise<Check[]> {
  await send({ cmd: "registry", ...(row.registry?.timeoutMs !== undefined ? { timeoutMs: row.registry.timeoutMs } : {}) });
  const checks: Check[] = [];
  for (const [index, step] of row.steps.entries()) {
    const made = await runStep(row, step, index + 1, send, profile);
    checks.push(...made);
    // the process died in a batch: its registry is gone, so the row ends there
    if (made.some((c) => deathOf(c) !== undefined)) break;
  }
  return checks;
}

async function runStep(row: RegistryRow, step: Step, n: number, send: Send, profile: ProfileName): Promise<Check[]> {
  if (step.op === "concurrently") return runConcurrently(row, step.steps, n, send, profile);
  const reply = await send(requestOf(step));
  const runs = step.op === "call" && typeof reply.threw !== "string" ? objectField(reply, "runs", "call") : undefined;
  return stepChecks(row, step, `step ${n}`, reply, runs, profile);
}

/** The protocol request a step makes. */
function requestOf(step: SimpleStep): Body {
  switch (step.op) {
    case "register": {
      const { tool } = step;
      const parameters = parametersTextOf(tool);
      const record = { ...(tool.idempotent !== undefined ? { idempotent: tool.idempotent } : {}), ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}), ...(tool.handler ? { handler: tool.handler } : {}) };
      return { cmd: "register", tool: { name: tool.name, description: tool.description, parameters, behavior: tool.behavior, ...record }, ...(step.override ? { override: true } : {}) };
    }
    case "names":
      return { cmd: "names" };
    case "definitions":
      return { cmd: "definitions" };
    case "call":
      return { cmd: "call", call: step.call };
    case "get":
      return { cmd: "get", name: step.name };
    case "validate":
      return { cmd: "validate", tool: step.name, instance: step.instance };
  }
}

/** The request of a step inside a `concurrently` batch, which takes registry requests only. */
function concurrentRequestOf(step: SimpleStep): ConcurrentBody {
  const body = requestOf(step);
  if (body.cmd === "get" || body.cmd === "validate") throw new ProtocolError(`a "${body.cmd}" step cannot run inside "concurrently"`);
  return body as ConcurrentBody;
}

/**
 * The checks of one step's reply. `runs` is the call's own record of tool runs; inside a batch
 * it is undefined and the runs are checked for the batch as a whole.
 */
function stepChecks(row: RegistryRow, step: SimpleStep, label: string, reply: Record<string, unknown>, runs: unknown, profile: ProfileName): Check[] {
  const threw = threwOf(reply);
  switch (step.op) {
    case "register":
      return outcomeChecks(row, `${label}: register ${JSON.stringify(step.tool.name)}`, step.expect, reply);
    case "names":
      if (threw !== undefined) return [crashCheck(row.tier, `${label}: names`, step.expect, threw)];
      return [check("verdict", row.tier, `${label}: names`, step.expect, arrayField(reply, "names", "names"))];
    case "definitions":
      if (threw !== undefined) return [crashCheck(row.tier, `${label}: definitions`, step.expect, threw)];
      return [check("verdict", row.tier, `${label}: definitions`, step.expect, arrayField(reply, "definitions", "definitions"), sameJson)];
    case "call":
      return callChecks(row, step, label, reply, runs);
    case "get":
      return getChecks(row, step, `${label}: get ${JSON.stringify(step.name)}`, reply);
    case "validate": {
      const what = `${label}: validate ${JSON.stringify(step.name)}`;
      if ("refused" in step.expect) return outcomeChecks(row, what, { ok: false }, reply);
      if (threw !== undefined) return [crashCheck(row.tier, `${what}: verdict`, verdictOf(step.expect.errors.length), threw)];
      if (reply.ok === false) return [check("verdict", row.tier, `${what}: a registered tool`, "validated", `refused: ${stringField(reply, "error", "validate")}`)];
      return errorChecks(row, `${what}: `, step.expect.errors, reply, profile, false);
    }
  }
}

/** get(name): found or not (it raises), and every field of the record as registered. */
function getChecks(row: RegistryRow, step: Extract<SimpleStep, { op: "get" }>, what: string, reply: Record<string, unknown>): Check[] {
  const word = (found: boolean) => (found ? "found" : "raises: not found");
  const threw = threwOf(reply);
  if (threw !== undefined) return [crashCheck(row.tier, what, word(step.expect.found), threw)];
  if (typeof reply.found !== "boolean") throw new ProtocolError('get reply has no boolean "found"');
  const checks = [check("verdict", row.tier, what, word(step.expect.found), word(reply.found))];
  if (step.expect.found && reply.found) checks.push(check("verdict", row.tier, `${what}: the record`, step.expect.record, objectField(reply, "record", "get"), sameJson));
  return checks;
}

/** A batch: every step's request sent at once, each reply checked as alone, the tool runs checked together. */
async function runConcurrently(row: RegistryRow, steps: SimpleStep[], n: number, send: Send, profile: ProfileName): Promise<Check[]> {
  let reply: Record<string, unknown>;
  try {
    reply = await send({ cmd: "concurrently", requests: steps.map(concurrentRequestOf) });
  } catch (error) {
    // a process that dies of concurrent requests (a data race, Go's concurrent map write) answered wrongly
    if (error instanceof SubjectDied) return [deathCheck(row, n, error)];
    throw error;
  }
  const replies = arrayField(reply, "replies", "concurrently");
  if (replies.length !== steps.length) throw new ProtocolError(`concurrently reply: ${replies.length} replies to ${steps.length} requests`);
  const checks = steps.flatMap((step, i) => {
    const sub = replies[i];
    if (typeof sub !== "object" || sub === null || Array.isArray(sub)) throw new ProtocolError(`concurrently reply: reply ${i + 1} is not an object`);
    return stepChecks(row, step, `step ${n}.${i + 1}`, sub as Record<string, unknown>, undefined, profile);
  });
  const expected: Record<string, string[]> = {};
  for (const step of steps) if (step.op === "call" && step.expect.runs.length > 0) (expected[step.call.name] ??= []).push(...step.expect.runs);
  const runs = objectField(reply, "runs", "concurrently");
  const actual: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(runs)) {
    if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) throw new ProtocolError(`concurrently reply: runs of ${JSON.stringify(name)} is not an array of strings`);
    if (list.length > 0) actual[name] = [...(list as string[])].sort(compareCodePoints);
  }
  for (const list of Object.values(expected)) list.sort(compareCodePoints);
  checks.push(check("verdict", row.tier, `step ${n}: every tool ran once per valid call, with its arguments`, expected, actual, sameJson));
  return checks;
}

/**
 * The failed check of a batch during which the subject's process died: its actual is
 * `{died: HOW}`, its note the end of the process's stderr, naming a data race when it shows one.
 */
function deathCheck(row: RegistryRow, n: number, error: SubjectDied): Check {
  const lines = (error.stderr ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const clip = (text: string) => (text.length > 400 ? `${text.slice(0, 399)}…` : text);
  // the race detector's report: where the race is, its first frames (the file lines left out)
  const report = lines.indexOf("WARNING: DATA RACE");
  const where = report === -1 ? [] : lines.slice(report + 1).filter((line) => !line.startsWith("/") && !line.startsWith("=")).slice(0, 4);
  const race =
    report !== -1
      ? `a data race (the race detector stopped the process)${where.length > 0 ? `: ${clip(where.join(" | "))}` : ""}`
      : lines.some((line) => /concurrent map (writes|read and map write|iteration and map write)/.test(line))
        ? "a data race (Go stopped the process at a concurrent map access)"
        : undefined;
  let end = lines.slice(-6).join(" | ");
  if (end.length > 400) end = `…${end.slice(-399)}`;
  const note = `it died during the concurrent requests: ${error.how}${race ? `: ${race}` : ""}; ${end ? `its stderr ends: ${end}` : "nothing on its stderr"}`;
  return { level: "verdict", tier: row.tier, what: `step ${n}: every concurrent request answered`, expected: "a reply to every request", actual: { died: error.how }, pass: false, note };
}

function callChecks(row: RegistryRow, step: Extract<SimpleStep, { op: "call" }>, stepLabel: string, reply: Record<string, unknown>, runs: unknown): Check[] {
  const { call, expect } = step;
  const label = `${stepLabel}: call ${JSON.stringify(call.name)}`;
  const threw = threwOf(reply);
  // Call itself panicked or threw: an answer, and the spec's "Call never panics" says it is wrong
  if (threw !== undefined) return [crashCheck(row.tier, `${label}: Call returns a Result`, "a Result", threw)];
  const result = objectField(reply, "result", "call");
  const message = objectField(reply, "message", "call");
  const content = stringField(message, "content", "call message");
  const isError = result.isError;
  if (typeof isError !== "boolean") throw new ProtocolError('call reply: result has no boolean "isError"');

  // the verdict: failed or not, told apart by the prefix, the call answered, the tool run as often as it should
  const observed: Record<string, unknown> = {
    isError,
    prefixed: content.startsWith(ERROR_PREFIX),
    answers: message.role === "tool" && message.tool_call_id === call.id && result.callId === call.id,
    consistent: content === (isError ? ERROR_PREFIX : "") + String(result.content),
  };
  const wanted: Record<string, unknown> = { isError: expect.isError, prefixed: expect.isError, answers: true, consistent: true };
  if (runs !== undefined) {
    if (typeof runs !== "object" || runs === null || Array.isArray(runs)) throw new ProtocolError('call reply: "runs" is not an object');
    const record = runs as Record<string, unknown>;
    observed.runs = record[call.name] ?? [];
    observed.otherToolsRan = Object.entries(record).filter(([name, list]) => name !== call.name && Array.isArray(list) && list.length > 0).map(([name]) => name);
    wanted.runs = expect.runs;
    wanted.otherToolsRan = [];
  }
  const checks = [check("verdict", row.tier, `${label}: outcome`, wanted, observed, sameJson)];

  const includes = expect.contentIncludes ?? [];
  const excludes = expect.contentExcludes ?? [];
  if (includes.length > 0 || excludes.length > 0) {
    const missing = includes.filter((text) => !content.includes(text));
    const present = excludes.filter((text) => content.includes(text));
    checks.push(
      check("paths", row.tier, `${label}: content includes ${JSON.stringify(includes)} and excludes ${JSON.stringify(excludes)}`, { missing: [], present: [] }, { missing, present }, sameJson),
    );
  }
  if (expect.content !== undefined) checks.push(check("messages", messageTierOf(row), `${label}: content`, expect.content, content));
  return checks;
}

function check(level: Level, tier: Tier, what: string, expected: unknown, actual: unknown, same = sameJson): Check {
  return { level, tier, what, expected, actual, pass: same(expected, actual) };
}

/** Structural equality of JSON-shaped values; object key order does not matter. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (typeof a === "object" && a !== null) {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    const keys = Object.keys(x);
    return keys.length === Object.keys(y).length && keys.every((key) => Object.hasOwn(y, key) && sameJson(x[key], y[key]));
  }
  return a === b;
}

function stringField(reply: Record<string, unknown>, field: string, what: string): string {
  const value = reply[field];
  if (typeof value !== "string") throw new ProtocolError(`${what} reply: "${field}" is not a string`);
  return value;
}

function arrayField(reply: Record<string, unknown>, field: string, what: string): unknown[] {
  const value = reply[field];
  if (!Array.isArray(value)) throw new ProtocolError(`${what} reply: "${field}" is not an array`);
  return value;
}

function objectField(reply: Record<string, unknown>, field: string, what: string): Record<string, unknown> {
  const value = reply[field];
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ProtocolError(`${what} reply: "${field}" is not an object`);
  return value as Record<string, unknown>;
}
