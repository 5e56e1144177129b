import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import * as reference from "../../src/index.js";
import { loadCorpus } from "../../src/corpus/load.js";
import { createHandler } from "../../src/subjects/handler.js";
import type { Body, Command } from "../../src/subjects/protocol.js";
import { checkMessage, COMMANDS, explainBatchReply, explainMessage, PROTOCOL_DIR, type MessageKind } from "../../src/subjects/protocol-schemas.js";
import { runRow } from "../../src/run/run-row.js";
import { appliesTo, PROFILES } from "../../src/corpus/rows.js";
import { serve } from "../../src/subjects/serve.js";

// conformance/protocol/ holds a JSON Schema for every request and reply, written in the
// subset the reference validates. Every line the harness writes and the reference adapter
// answers, over the whole corpus in both profiles, must conform to them.

/** The reference's serve loop over in-memory pipes; every line both ways is kept. */
function wire() {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serve(createHandler(reference, { name: "reference", version: "test" }), input, output);
  const replies = createInterface({ input: output })[Symbol.asyncIterator]();
  const lines: { kind: MessageKind; line: string }[] = [];
  let seq = 0;
  const exchange = async (cmd: string, line: string): Promise<Record<string, unknown>> => {
    input.write(line + "\n");
    const { value } = await replies.next();
    const reply = JSON.parse(value as string) as Record<string, unknown>;
    lines.push({ kind: reply.errored === true ? "errored.reply" : (`${cmd}.reply` as MessageKind), line: value as string });
    return reply;
  };
  const send = async (body: Body) => {
    const line = JSON.stringify({ seq: ++seq, ...body });
    lines.push({ kind: `${body.cmd}.request`, line });
    const { seq: _, ...reply } = await exchange(body.cmd, line);
    return reply;
  };
  return { send, exchange, lines, end: () => (input.end(), served) };
}

describe("the protocol's message schemas", () => {
  it("are one per request and reply, plus the errored reply, and all compile in the subset", () => {
    const files = readdirSync(PROTOCOL_DIR).sort();
    const expected = [...COMMANDS.flatMap((cmd) => [`${cmd}.reply.schema.json`, `${cmd}.request.schema.json`]), "errored.reply.schema.json"].sort();
    expect(files).toEqual(expected);
    for (const file of files) expect(() => reference.compile(readFileSync(`${PROTOCOL_DIR}/${file}`, "utf8")), file).not.toThrow();
  });

  it("accept their own examples", () => {
    for (const file of readdirSync(PROTOCOL_DIR)) {
      const schema = JSON.parse(readFileSync(`${PROTOCOL_DIR}/${file}`, "utf8")) as { examples?: unknown[] };
      expect(schema.examples?.length, file).toBeGreaterThan(0);
      for (const example of schema.examples!) expect(checkMessage(file.replace(".schema.json", "") as MessageKind, example), file).toEqual([]);
    }
  });

  for (const profile of PROFILES) {
    it(`hold every request the harness sends and every reply the reference gives over the whole corpus (${profile})`, async () => {
      const { send, lines, end } = wire();
      await send({ cmd: "start", version: 1, profile });
      for (const row of loadCorpus().filter((r) => appliesTo(r, profile))) await runRow(row, send, profile);
      await send({ cmd: "names" });
      await send({ cmd: "stop" });
      await end();
      const kinds = new Set(lines.map((l) => l.kind));
      // get (the records capability) is the lesson profile's alone
      for (const cmd of COMMANDS.filter((c) => profile === "lesson" || c !== "get")) {
        expect(kinds, cmd).toContain(`${cmd}.request`);
        expect(kinds, cmd).toContain(`${cmd}.reply`);
      }
      const wrong = lines.map(({ kind, line }) => ({ kind, line: line.slice(0, 300), problems: checkMessage(kind, JSON.parse(line)) })).filter((l) => l.problems.length > 0);
      expect(wrong).toEqual([]);
      // every request is strict JSON a strict decoder reads: a malformed text (a lone surrogate escape
      // included) travels as the characters of its text, so the line itself never holds a lone surrogate
      const unreadable = lines.filter(({ kind, line }) => kind.endsWith(".request") && !everyStringWellFormed(JSON.parse(line)));
      expect(unreadable.map((l) => l.line.slice(0, 200))).toEqual([]);
    }, 30_000);
  }

  it("hold the errored replies the serve loop gives to a line it cannot read and to an unknown command", async () => {
    const { exchange, lines, end } = wire();
    expect(await exchange("start", "not json")).toEqual({ seq: null, errored: true, message: 'the request is not JSON: "not json"' });
    expect(await exchange("start", '{"seq":7,"cmd":"frobnicate"}')).toEqual({ seq: 7, errored: true, message: 'unknown command "frobnicate"' });
    await end();
    for (const { line } of lines) expect(checkMessage("errored.reply", JSON.parse(line))).toEqual([]);
  });

  it("accept a threw reply to every command that calls the implementation, and inside a concurrently reply", () => {
    const calling: Command[] = ["compile", "validate", "register", "names", "definitions", "call", "get"];
    for (const cmd of calling) {
      const kind = `${cmd}.reply` as MessageKind;
      expect(checkMessage(kind, { seq: 3, threw: "RecursionError: maximum recursion depth exceeded" }), cmd).toEqual([]);
      expect(checkMessage(kind, { seq: 3, threw: 42 }), cmd).toEqual(expect.arrayContaining([expect.stringMatching(/^\$\.threw: expected string, got /)]));
      expect(checkMessage(kind, { seq: 3 }), cmd).not.toEqual([]);
      expect(checkMessage(kind, { threw: "x" }), cmd).toContain('$: missing required property "seq"');
    }
    // the commands that call no implementation have no threw answer
    for (const cmd of COMMANDS.filter((c) => !calling.includes(c) && c !== "concurrently")) expect(checkMessage(`${cmd}.reply`, { seq: 3, threw: "x" }), cmd).not.toEqual([]);
    expect(checkMessage("concurrently.reply", { seq: 4, replies: [{ threw: "panic: names exploded" }, { ok: true }], runs: {} })).toEqual([]);
  });

  it("refuse replies that break the protocol, saying where", () => {
    const cases: [MessageKind, unknown, string][] = [
      ["validate.reply", { ok: true, errors: [] }, '$: missing required property "seq"'],
      ["validate.reply", { seq: 1, ok: true }, "$: does not match any schema in anyOf"],
      ["validate.reply", { seq: 1, ok: true, errors: [{ path: "$", msg: "x" }] }, '$.errors[0]: missing required property "message"'],
      ["compile.reply", { seq: 1, ok: "yes" }, "$.ok: expected boolean, got string"],
      ["compile.reply", { seq: 1, ok: false }, "$: does not match any schema in anyOf"],
      ["call.reply", { seq: 1, result: { callId: "c", name: "t", content: "x", isError: false }, message: { role: "tool", tool_call_id: "c", content: "x" }, runs: { t: [{}] } }, "$.runs.t[0]: expected string, got object"],
      ["start.reply", { seq: 1, ready: true, version: 1, implementation: { name: "x", language: "go" }, profiles: [], capabilities: [] }, "$.profiles: expected at least 1 items, got 0"],
      ["definitions.reply", { seq: 1, definitions: [{ name: "t", description: "" }] }, '$.definitions[0]: missing required property "parameters"'],
      ["register.request", { seq: 1, cmd: "register", tool: { name: "t", description: "", parameters: {}, behavior: { kind: "echo" } } }, "$.tool.parameters: expected string or null, got object"],
      ["register.request", { seq: 1, cmd: "register", tool: { name: "t", description: "", parameters: null, behavior: { kind: "explode" } } }, "$.tool.behavior: does not match any schema in anyOf"],
    ];
    for (const [kind, message, problem] of cases) expect(checkMessage(kind, message), JSON.stringify(message)).toContain(problem);
  });

  it("accept whatever parameters an implementation holds, so that a wrong one fails its row instead of erroring it", () => {
    // an implementation that wrongly accepted "[]" as parameters can say so; the row then fails on the value
    for (const parameters of [[], "{}", null, 3]) expect(checkMessage("definitions.reply", { seq: 1, definitions: [{ name: "t", description: "", parameters }] }), JSON.stringify(parameters)).toEqual([]);
  });

  it("accept a definition without description (Go's omitempty drops an empty one), and nothing else missing", () => {
    expect(checkMessage("definitions.reply", { seq: 1, definitions: [{ name: "t", parameters: { type: "object" } }] })).toEqual([]);
    expect(checkMessage("definitions.reply", { seq: 1, definitions: [{ name: "t", description: 3, parameters: {} }] })).toEqual(["$.definitions[0].description: expected string, got number"]);
    expect(checkMessage("definitions.reply", { seq: 1, definitions: [{ description: "", parameters: {} }] })).toEqual(['$.definitions[0]: missing required property "name"']);
  });

  it("explain a broken reply with the value each problem is about, and hold a reply inside concurrently to its own command's schema", () => {
    expect(explainMessage("names.reply", { seq: 1, names: {} })).toEqual(["$.names: expected array, got object: {}"]);
    expect(explainMessage("names.reply", { seq: 1, names: ["a", 2] })).toEqual(["$.names[1]: expected string, got number: 2"]);
    expect(explainMessage("definitions.reply", { seq: 1, definitions: [{ name: "t" }] })).toEqual(['$.definitions[0]: missing required property "parameters": {"name":"t"}']);
    expect(explainMessage("names.reply", { seq: 1, names: ["x".repeat(300)] })).toEqual([]);
    expect(explainMessage("names.reply", { seq: 1, names: "x".repeat(300) })[0]).toMatch(/^\$\.names: expected array, got string: "x{118}…$/);
    // without seq, a call's without runs: as PROTOCOL.md allows inside a batch
    expect(explainBatchReply("names", { names: ["a"] })).toEqual([]);
    expect(explainBatchReply("call", { result: { callId: "c", name: "t", content: "", isError: false }, message: { role: "tool", tool_call_id: "c", content: "" } })).toEqual([]);
    expect(explainBatchReply("call", { threw: "boom" })).toEqual([]);
    expect(explainBatchReply("names", { names: {} })).toEqual(["$.names: expected array, got object: {}"]);
    expect(explainBatchReply("call", {})).toEqual(["$: does not match any schema in anyOf: {}"]);
    expect(explainBatchReply("register", "ok")).toEqual(['$: expected object: "ok"']);
  });
});

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether every string and key in a parsed value is well-formed Unicode (no lone surrogate). */
function everyStringWellFormed(value: unknown): boolean {
  if (typeof value === "string") return !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(everyStringWellFormed);
  if (typeof value === "object" && value !== null) return Object.entries(value).every(([key, v]) => !LONE_SURROGATE.test(key) && everyStringWellFormed(v));
  return true;
}

// keep the Command type and COMMANDS in step
void (COMMANDS satisfies readonly Command[]);
