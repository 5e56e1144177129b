import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { statusOf } from "../../src/run/outcome.js";
import { runRow } from "../../src/run/run-row.js";
import { appliesTo } from "../../src/corpus/rows.js";
import type { Body } from "../../src/subjects/protocol.js";
import { stdioSubject } from "../../src/subjects/stdio.js";
import { cli } from "../helpers/cli-helpers.js";

// The TypeScript adapter template, transpiled as a user would compile it, wrapped around the
// built reference (dist/index.js): every ag02 row passes through it over stdio. (The Python
// template is proven by stdio-python.test.ts, the Go one by stdio-go.test.ts.) Then every
// template around an implementation that raises or panics: each crash inside the implementation's
// call is answered `threw` (its type and message), a refusal stays a refusal, and every reply keeps
// the protocol (the stdio subject checks each against its schema).

const TEMPLATES = join(PACKAGE_ROOT, "conformance", "adapters");
let scratch: string;

beforeAll(() => {
  if (!existsSync(join(PACKAGE_ROOT, "dist", "index.js"))) throw new Error("this test wraps the built reference: run npm run build first");
  scratch = mkdtempSync(join(tmpdir(), "adapter-template-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the adapter templates", () => {
  it("each has an adapter of a few hundred lines at most and a README", () => {
    for (const [dir, file] of [["go", "main.go"], ["python", "adapter.py"], ["typescript", "adapter.mts"]] as const) {
      const lines = readFileSync(join(TEMPLATES, dir, file), "utf8").split("\n").length;
      expect(lines, `${dir}/${file}`).toBeLessThan(260);
      expect(existsSync(join(TEMPLATES, dir, "README.md")), `${dir}/README.md`).toBe(true);
    }
  });

  it("typescript: wrapped around the reference, passes every ag02 row over stdio", async () => {
    expect(await ag02Failures(`node ${typescriptAdapter()} ${join(PACKAGE_ROOT, "dist", "index.js")}`)).toEqual([]);
  });

  it("typescript: wrapped around an asynchronous reference (every function and method returning a promise), passes every ag02 row", async () => {
    const module = join(scratch, "async.mjs");
    writeFileSync(
      module,
      `import * as ref from ${JSON.stringify(join(PACKAGE_ROOT, "dist", "index.js"))};
export const { ToolError } = ref;
export const newTool = async (...args) => ref.newTool(...args);
export async function compile(text) {
  const schema = ref.compile(text);
  return { validateJSON: async (t) => schema.validateJSON(t) };
}
// a constructor that returns a promise of the registry, as a factory over an async framework would
export function Registry(options) {
  const inner = new ref.Registry(options);
  return Promise.resolve({
    register: async (tool) => inner.register(tool),
    names: async () => inner.names(),
    definitions: async () => inner.definitions(),
    async call(c) {
      const r = await inner.call(c);
      return { callId: r.callId, name: r.name, content: r.content, isError: r.isError, message: async () => r.message() };
    },
  });
}
`,
    );
    expect(await ag02Failures(`node ${typescriptAdapter()} ${module}`)).toEqual([]);
  });

  it("typescript: the README's compile line, run in a folder of its own (no package.json, no @types/node), gives an adapter that smoke passes", () => {
    const readme = readFileSync(join(TEMPLATES, "typescript", "README.md"), "utf8");
    const line = readme.split("\n").find((l) => / tsc adapter\.mts /.test(l));
    expect(line, "the README's compile line").toBeDefined();
    // the line as written, this repository's tsc standing in for the one npx would fetch
    const args = line!.replace(/#.*$/, "").trim().split(/\s+/);
    const folder = mkdtempSync(join(tmpdir(), "adapter-fresh-"));
    try {
      copyFileSync(join(TEMPLATES, "typescript", "adapter.mts"), join(folder, "adapter.mts"));
      const tsc = spawnSync(join(PACKAGE_ROOT, "node_modules", ".bin", "tsc"), args.slice(args.indexOf("tsc") + 1), { cwd: folder, encoding: "utf8" });
      expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
      expect(existsSync(join(folder, "adapter.mjs"))).toBe(true);
      expect(readme, "the README's run line").toMatch(/^node adapter\.mjs /m);
      const smoke = spawnSync("node", [join(PACKAGE_ROOT, "dist", "cli", "main.js"), "smoke", "--subject", `node adapter.mjs ${join(PACKAGE_ROOT, "dist", "index.js")}`], { cwd: folder, encoding: "utf8", timeout: 30_000 });
      expect(smoke.stdout, smoke.stderr).toMatch(/^smoke: ok: the subject speaks protocol 1/m);
      expect(smoke.status).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/** The ag02 rows that do not pass at the strictest level over stdio through `command`, each with its first failed check. */
async function ag02Failures(command: string): Promise<unknown[]> {
  const session = await stdioSubject(command).open("ag02");
  const failures: unknown[] = [];
  try {
    for (const row of loadCorpus().filter((r) => appliesTo(r, "ag02"))) {
      const checks = await runRow(row, session.send, "ag02");
      if (statusOf(checks, { level: "messages", tiers: ["core", "catalog", "hardening"] }) !== "passed") failures.push({ id: row.id, failure: checks.find((c) => !c.pass) });
    }
  } finally {
    await session.close();
  }
  return failures;
}

/** The TypeScript template, transpiled as a user would compile it, in the scratch folder. */
function typescriptAdapter(): string {
  const adapter = join(scratch, "adapter.mjs");
  if (!existsSync(adapter)) {
    const source = readFileSync(join(TEMPLATES, "typescript", "adapter.mts"), "utf8");
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } });
    writeFileSync(adapter, outputText);
  }
  return adapter;
}

/** Sends each request to the subject (every reply checked against its schema) and returns the replies. */
async function exchange(command: string, profile: string, bodies: Body[]): Promise<Record<string, unknown>[]> {
  const session = await stdioSubject(command, { timeoutMs: 10_000 }).open(profile);
  try {
    const replies: Record<string, unknown>[] = [];
    for (const body of bodies) replies.push(await session.send(body));
    return replies;
  } finally {
    await session.close();
  }
}

const echo = (name: string) => ({ name, description: "", parameters: '{"type":"object"}', behavior: { kind: "echo" as const } });
const call = (name: string) => ({ cmd: "call" as const, call: { id: "c1", name, arguments: "{}" } });
/** 100000 nested arrays: json.loads raises RecursionError on it. */
const DEEP = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;

describe("the adapter templates around an implementation that raises: threw, not errored", () => {
  it("typescript: a RangeError, TypeError or ReferenceError out of compile or register, anything out of validateJSON, names, definitions, call", async () => {
    const module = join(scratch, "raises.mjs");
    writeFileSync(
      module,
      `import * as ref from ${JSON.stringify(join(PACKAGE_ROOT, "dist", "index.js"))};
export const { ToolError, newTool } = ref;
export function compile(text) {
  if (text.includes("CRASH")) throw new RangeError("Maximum call stack size exceeded");
  const schema = ref.compile(text);
  return { validateJSON(t) { if (t.includes("CRASH")) throw new TypeError("e.path is undefined"); return schema.validateJSON(t); } };
}
export class Registry extends ref.Registry {
  register(tool) { if (tool.definition().name === "crash") throw new TypeError("Cannot read properties of null (reading 'type')"); return super.register(tool); }
  names() { throw new ReferenceError("nmes is not defined"); }
  definitions() { throw new Error("definitions exploded"); }
  async call(c) { if (c.name === "crash") throw "a thrown string"; return super.call(c); }
}
`,
    );
    const replies = await exchange(`node ${typescriptAdapter()} ${module}`, "ag02", [
      { cmd: "compile", schema: '{"description":"CRASH"}' },
      { cmd: "compile", schema: '{"format":"email"}' },
      { cmd: "validate", schema: '{"type":"string"}', instance: '"CRASH"' },
      { cmd: "registry" },
      { cmd: "register", tool: echo("crash") },
      { cmd: "register", tool: echo("bad name") },
      { cmd: "register", tool: echo("fine") },
      { cmd: "names" },
      { cmd: "definitions" },
      call("crash"),
      { cmd: "concurrently", requests: [{ cmd: "names" }, call("crash"), call("fine")] },
    ]);
    expect(replies[0]).toEqual({ threw: "RangeError: Maximum call stack size exceeded" });
    expect(replies[1]).toEqual({ ok: false, error: expect.stringContaining("format") });
    expect(replies[2]).toEqual({ threw: "TypeError: e.path is undefined" });
    expect(replies[4]).toEqual({ threw: "TypeError: Cannot read properties of null (reading 'type')" });
    expect(replies[5]).toEqual({ ok: false, error: expect.stringContaining("bad name") });
    expect(replies[6]).toEqual({ ok: true });
    expect(replies[7]).toEqual({ threw: "ReferenceError: nmes is not defined" });
    expect(replies[8]).toEqual({ threw: "Error: definitions exploded" });
    expect(replies[9]).toEqual({ threw: "a thrown string", runs: {} });
    expect(replies[10]).toMatchObject({ replies: [{ threw: "ReferenceError: nmes is not defined" }, { threw: "a thrown string" }, { result: { isError: false, content: "{}" } }] });
  });

  it("python: RecursionError from json.loads on deep nesting, NameError, AttributeError and the like; ValueError is still a refusal", async () => {
    const module = join(scratch, "raises.py");
    writeFileSync(
      module,
      `import json


class ToolError(Exception):
    pass


class Schema:
    def validate_json(self, text):
        if "NAME" in text:
            return undefined_name  # noqa: F821 (a NameError, on purpose)
        json.loads(text)  # RecursionError on deep nesting
        return []


def compile(text):
    if "ATTR" in text:
        return None.items  # AttributeError
    if not isinstance(json.loads(text), dict):  # RecursionError on deep nesting
        raise ValueError("a schema is an object")
    return Schema()


class Tool:
    def __init__(self, name):
        self.name = name


class Registry:
    def __init__(self):
        self.tools = []

    def register(self, tool):
        if tool.name == "crash":
            raise RecursionError("maximum recursion depth exceeded")
        if " " in tool.name:
            raise ValueError("invalid tool name")
        self.tools.append(tool.name)

    def names(self):
        raise KeyError("names")

    def definitions(self):
        return [t for t in None]

    def call(self, call_id, name, arguments):
        return 1 / 0


def new_registry(timeout_ms=None):
    return Registry()


def new_tool(name, description, schema, fn):
    return Tool(name)
`,
    );
    const replies = await exchange(`python3 ${join(TEMPLATES, "python", "adapter.py")} ${module}`, "ag02", [
      { cmd: "compile", schema: `{"a": ${DEEP}}` },
      { cmd: "compile", schema: '{"ATTR": 1}' },
      { cmd: "compile", schema: "[]" },
      { cmd: "validate", schema: "{}", instance: DEEP },
      { cmd: "validate", schema: "{}", instance: '"NAME"' },
      { cmd: "validate", schema: "{}", instance: "1" },
      { cmd: "registry" },
      { cmd: "register", tool: echo("crash") },
      { cmd: "register", tool: echo("bad name") },
      { cmd: "names" },
      { cmd: "definitions" },
      call("t"),
      { cmd: "concurrently", requests: [{ cmd: "names" }, { cmd: "register", tool: echo("fine") }] },
    ]);
    expect(replies[0]).toEqual({ threw: expect.stringMatching(/^RecursionError: maximum recursion depth exceeded/) });
    expect(replies[1]).toEqual({ threw: "AttributeError: 'NoneType' object has no attribute 'items'" });
    expect(replies[2]).toEqual({ ok: false, error: "a schema is an object" });
    expect(replies[3]).toEqual({ threw: expect.stringMatching(/^RecursionError: maximum recursion depth exceeded/) });
    expect(replies[4]).toEqual({ threw: "NameError: name 'undefined_name' is not defined" });
    expect(replies[5]).toEqual({ ok: true, errors: [] });
    expect(replies[7]).toEqual({ threw: "RecursionError: maximum recursion depth exceeded" });
    expect(replies[8]).toEqual({ ok: false, error: "invalid tool name" });
    expect(replies[9]).toEqual({ threw: "KeyError: 'names'" });
    expect(replies[10]).toEqual({ threw: "TypeError: 'NoneType' object is not iterable" });
    expect(replies[11]).toEqual({ threw: "ZeroDivisionError: division by zero", runs: {} });
    expect(replies[12]).toEqual({ replies: [{ threw: "KeyError: 'names'" }, { ok: true }], runs: {} });
    for (const reply of replies) expect(String(reply.threw ?? "")).not.toMatch(/Traceback|File "/);
  });

  it("python-lesson: crashes in register, get, validate and names are threw; ToolNotFound (a KeyError) and ValueError stay refusals", async () => {
    const module = join(scratch, "lesson_raises.py");
    writeFileSync(
      module,
      `class Record:
    def __init__(self, name, description, schema, handler, idempotent, timeout_ms):
        self.name, self.description, self.schema, self.handler = name, description, schema, handler
        self.idempotent, self.timeout_ms = idempotent, timeout_ms


class ToolRegistry:
    def __init__(self):
        self.tools = {}

    def register(self, name, schema, handler, description="", idempotent=False, timeout_ms=None, override=False):
        if name == "crash.register":
            raise RecursionError("maximum recursion depth exceeded")
        if name in self.tools and not override:
            raise ValueError("tool %r is already registered" % name)
        self.tools[name] = Record(name, description, schema, handler, idempotent, timeout_ms)

    def get(self, name):
        if name == "crash.get":
            return recrod  # noqa: F821 (a NameError, on purpose)
        if name not in self.tools:
            raise KeyError("no tool named %r" % name)
        return self.tools[name]

    def validate(self, name, args):
        record = self.get(name)
        if name == "crash.validate":
            return record.chekc  # AttributeError
        return []

    def names(self):
        if "crash.names" in self.tools:
            raise ZeroDivisionError("division by zero")
        return list(self.tools)
`,
    );
    const tool = (name: string) => ({ ...echo(name), idempotent: false, timeoutMs: null, handler: "sync" as const });
    const replies = await exchange(`python3 ${join(TEMPLATES, "python-lesson", "adapter.py")} ${module}`, "lesson", [
      { cmd: "registry" },
      { cmd: "register", tool: tool("crash.register") },
      { cmd: "register", tool: tool("weather.current") },
      { cmd: "register", tool: tool("weather.current") },
      { cmd: "get", name: "crash.get" },
      { cmd: "get", name: "nothing" },
      { cmd: "register", tool: tool("crash.validate") },
      { cmd: "validate", tool: "crash.validate", instance: "{}" },
      { cmd: "validate", tool: "nothing", instance: "{}" },
      { cmd: "validate", tool: "weather.current", instance: DEEP },
      { cmd: "names" },
      { cmd: "register", tool: tool("crash.names") },
      { cmd: "names" },
      { cmd: "definitions" },
    ]);
    expect(replies[1]).toEqual({ threw: "RecursionError: maximum recursion depth exceeded" });
    expect(replies[2]).toEqual({ ok: true });
    expect(replies[3]).toEqual({ ok: false, error: "ValueError: tool 'weather.current' is already registered" });
    expect(replies[4]).toEqual({ threw: "NameError: name 'recrod' is not defined" });
    expect(replies[5]).toEqual({ found: false, error: "KeyError: no tool named 'nothing'" });
    expect(replies[7]).toEqual({ threw: "AttributeError: 'Record' object has no attribute 'chekc'" });
    expect(replies[8]).toEqual({ ok: false, error: "KeyError: no tool named 'nothing'" });
    // too deep for json.loads: the adapter's own parse, answered as malformed arguments, never a crash
    expect(replies[9]).toEqual({ ok: true, errors: [{ path: "", message: "arguments are not valid JSON: nested too deep to parse", expectedType: null }] });
    expect(replies[10]).toEqual({ names: ["weather.current", "crash.validate"] });
    expect(replies[12]).toEqual({ threw: "ZeroDivisionError: division by zero" });
    expect(replies[13]).toEqual({ threw: "ZeroDivisionError: division by zero" });
  });

  it("go: a panic in Compile, ValidateJSON, Register, Names, Definitions or Call is recovered into threw", { timeout: 180_000 }, async () => {
    const home = join(tmpdir(), "tool-conformance-go");
    const { TOOLREG_BUG: _bug, GORACE: _race, ...inherited } = process.env;
    const env = { ...inherited, GOTOOLCHAIN: "local", GOPROXY: "off", GOFLAGS: "", GOWORK: "off", GOCACHE: join(home, "cache"), GOPATH: join(home, "path") };
    const module = join(scratch, "tinyllm");
    mkdirSync(join(module, "agent", "tool"), { recursive: true });
    mkdirSync(join(module, "cmd", "adapter"), { recursive: true });
    cpSync(join(PACKAGE_ROOT, "test", "fixtures", "go-impl", "agent", "types"), join(module, "agent", "types"), { recursive: true });
    copyFileSync(join(PACKAGE_ROOT, "test", "fixtures", "go-impl", "go.mod"), join(module, "go.mod"));
    copyFileSync(join(TEMPLATES, "go", "main.go"), join(module, "cmd", "adapter", "main.go")); // the template, unchanged
    writeFileSync(join(module, "agent", "tool", "tool.go"), GO_PANICKING_TOOL);
    const binary = join(scratch, "go-adapter");
    const built = spawnSync("go", ["build", "-o", binary, "./cmd/adapter"], { cwd: module, env, encoding: "utf8", timeout: 170_000 });
    expect(built.error?.message, "Go is needed").toBeUndefined();
    expect(built.status, built.stderr).toBe(0);
    const replies = await exchange(binary, "ag02", [
      { cmd: "compile", schema: '{"description":"CRASH"}' },
      { cmd: "compile", schema: "[" },
      { cmd: "validate", schema: "{}", instance: '"CRASH"' },
      { cmd: "registry" },
      { cmd: "register", tool: echo("crash") },
      { cmd: "register", tool: echo("fine") },
      { cmd: "names" },
      { cmd: "definitions" },
      call("fine"),
      { cmd: "concurrently", requests: [{ cmd: "names" }, call("fine")] },
    ]);
    expect(replies[0]).toEqual({ threw: "panic: assignment to entry in nil map" });
    expect(replies[1]).toEqual({ ok: false, error: "invalid JSON" });
    expect(replies[2]).toEqual({ threw: "panic: runtime error: index out of range [3] with length 0" });
    expect(replies[4]).toEqual({ threw: "panic: register exploded" });
    expect(replies[5]).toEqual({ ok: true });
    expect(replies[6]).toEqual({ threw: "panic: names exploded" });
    expect(replies[7]).toEqual({ threw: "panic: runtime error: invalid memory address or nil pointer dereference" });
    expect(replies[8]).toEqual({ threw: "panic: call exploded", runs: {} });
    expect(replies[9]).toEqual({ replies: [{ threw: "panic: names exploded" }, { threw: "panic: call exploded" }], runs: {} });
  });
});

/** A tool package with the seed's Go API that panics instead of answering. */
const GO_PANICKING_TOOL = `package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"tinyllm/agent/types"
)

type Tool interface {
	Definition() types.ToolDef
	Execute(ctx context.Context, args json.RawMessage) (string, error)
}

type fn struct {
	def types.ToolDef
	run func(context.Context, json.RawMessage) (string, error)
}

func (f fn) Definition() types.ToolDef { return f.def }
func (f fn) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	return f.run(ctx, args)
}

func New(name, description, schema string, run func(context.Context, json.RawMessage) (string, error)) Tool {
	return fn{types.ToolDef{Name: name, Description: description, Parameters: json.RawMessage(schema)}, run}
}

type Result struct {
	CallID, Name, Content string
	IsError               bool
}

func (r Result) Message() types.Message {
	return types.Message{Role: "tool", ToolCallID: r.CallID, Content: r.Content}
}

type ValidationError struct{ Path, Msg string }

type Schema struct{ empty []int }

func Compile(raw json.RawMessage) (*Schema, error) {
	if strings.Contains(string(raw), "CRASH") {
		var seen map[string]bool
		seen["x"] = true
	}
	if !json.Valid(raw) {
		return nil, errors.New("invalid JSON")
	}
	return &Schema{}, nil
}

func (s *Schema) ValidateJSON(raw []byte) []ValidationError {
	if strings.Contains(string(raw), "CRASH") {
		_ = s.empty[len(raw)-4]
	}
	return nil
}

type Registry struct{ tools []Tool }

func NewRegistry() *Registry { return &Registry{} }

func (r *Registry) Register(t Tool) error {
	if t.Definition().Name == "crash" {
		panic("register exploded")
	}
	r.tools = append(r.tools, t)
	return nil
}

func (r *Registry) Names() []string { panic(errors.New("names exploded")) }

func (r *Registry) Definitions() []types.ToolDef {
	var none *Registry
	return []types.ToolDef{none.tools[0].Definition()}
}

func (r *Registry) Call(ctx context.Context, c types.ToolCall) Result { panic("call exploded") }
`;

describe("the adapter templates keep the implementation's prints off the protocol", () => {
  const FIXTURE = join(PACKAGE_ROOT, "test", "fixtures", "python-impl");
  const ag02 = () => loadCorpus().filter((r) => appliesTo(r, "ag02"));

  /** Every ag02 row through `command`: each row's status, and the end of the subject's stderr. */
  async function statuses(command: string): Promise<{ statuses: Record<string, string> }> {
    const session = await stdioSubject(command, { timeoutMs: 3_000 }).open("ag02");
    const statuses: Record<string, string> = {};
    try {
      for (const row of ag02()) {
        try {
          statuses[row.id] = statusOf(await runRow(row, session.send, "ag02"), { level: "messages", tiers: ["core", "catalog", "hardening"] });
        } catch (error) {
          statuses[row.id] = `errored: ${(error as Error).message.replace(/\(seq \d+\)/, "")}`;
          await session.recover();
        }
      }
      return { statuses };
    } finally {
      await session.close();
    }
  }

  /** The Python fixture, printing at import, on every call (print, and os.write to fd 1), with a dataclass of string annotations. */
  function printingPython(): string {
    const module = join(scratch, "printing_toolreg.py");
    writeFileSync(
      module,
      `from __future__ import annotations

import dataclasses
import os
import sys
from typing import ClassVar

print("toolreg loaded")
sys.path.insert(0, ${JSON.stringify(FIXTURE)})
import toolreg as base  # noqa: E402
from toolreg import *  # noqa: E402,F401,F403

NAME = "printing"


@dataclasses.dataclass
class Calls:  # string annotations: the dataclass looks its module up in sys.modules
    count: int = 0
    LIMIT: ClassVar[int] = 10


class Registry(base.Registry):
    def call(self, call_id, name, arguments):
        print("calling", name)
        os.write(1, b"raw write to fd 1\\n")
        return super().call(call_id, name, arguments)


def new_registry(timeout_ms=None):
    registry = base.new_registry(timeout_ms)
    registry.__class__ = Registry
    return registry
`,
    );
    return module;
  }

  it("python: a print at import and in every call, and a dataclass with string annotations, change nothing: every row as without them; the prints are on stderr", { timeout: 120_000 }, async () => {
    const adapter = join(TEMPLATES, "python", "adapter.py");
    const clean = await statuses(`python3 ${adapter} ${join(FIXTURE, "toolreg.py")}`);
    const printing = await statuses(`python3 ${adapter} ${printingPython()}`);
    expect(printing.statuses).toEqual(clean.statuses);
    expect(Object.values(clean.statuses).filter((s) => s === "passed").length).toBeGreaterThan(ag02().length * 0.9);
    // the prints are the subject's stderr, which the report keeps with an errored row
    const session = await stdioSubject(`python3 ${adapter} ${printingPython()}`, { timeoutMs: 10_000 }).open("ag02");
    try {
      expect(await session.send({ cmd: "register", tool: echo("fine") })).toEqual({ ok: true });
      expect(await session.send(call("fine"))).toMatchObject({ result: { content: "{}", isError: false } });
      // stderr is its own pipe: its lines may arrive after the reply
      await vi.waitFor(() => expect(session.stderrTail?.()).toMatch(/toolreg loaded\n[^]*calling fine\nraw write to fd 1\n/), { timeout: 5_000 });
    } finally {
      await session.close();
    }
  });

  it("python: the student's prints are in the report as their own output, even when the rows pass (summary.output, Markdown, HTML)", { timeout: 60_000 }, () => {
    const adapter = join(TEMPLATES, "python", "adapter.py");
    const out = join(scratch, "printing-report");
    const run = cli("score", "--subject", `python3 ${adapter} ${printingPython()}`, "--filter", "call/ids/*", "--reporter", "json,markdown,html", "--out", out);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, "report.jsonl"), "utf8").trim().split("\n").find((line) => line.includes('"kind":"summary"'))!) as { output?: string };
    expect(summary.output).toMatch(/^toolreg loaded\n[^]*calling /);
    expect(readFileSync(join(out, "summary.md"), "utf8")).toMatch(/What the implementation wrote on stderr[^\n]*:\n\n```\ntoolreg loaded\n/);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("<pre>toolreg loaded\n");
  });

  it("python, through an adapter without the protection: the start fails quoting the student's own line, never the adapter's handshake", async () => {
    const unprotected = join(scratch, "unprotected_adapter.py");
    const source = readFileSync(join(TEMPLATES, "python", "adapter.py"), "utf8");
    expect(source).toContain("replies = protocol_stream()");
    writeFileSync(unprotected, source.replace("replies = protocol_stream()", "replies = sys.stdout"));
    for (let attempt = 0; attempt < 4; attempt++) {
      const error = await stdioSubject(`python3 ${unprotected} ${printingPython()}`, { timeoutMs: 10_000 })
        .open("ag02")
        .then(
          () => undefined,
          (e: unknown) => e as Error,
        );
      expect(error?.message).toMatch(/the reply to the start handshake is not JSON: "toolreg loaded"/);
      expect(error?.message).not.toContain("ready");
    }
  });

  it("python-lesson: a print at import and in register is kept off the protocol", async () => {
    const module = join(scratch, "printing_lesson.py");
    writeFileSync(
      module,
      `from __future__ import annotations
import sys
from dataclasses import dataclass
sys.path.insert(0, ${JSON.stringify(join(PACKAGE_ROOT, "test", "fixtures", "python-lesson"))})
print("lesson registry loaded")
import registry as base  # noqa: E402


@dataclass
class Note:
    text: str


class ToolRegistry(base.ToolRegistry):
    def register(self, *args, **kwargs):
        print("registering", args[0])
        return super().register(*args, **kwargs)
`,
    );
    const replies = await exchange(`python3 ${join(TEMPLATES, "python-lesson", "adapter.py")} ${module}`, "lesson", [{ cmd: "register", tool: echo("fine") }, { cmd: "names" }]);
    expect(replies).toEqual([{ ok: true }, { names: ["fine"] }]);
  });

  it("typescript: console.log and process.stdout.write at import and in a call go to stderr; every row still answers", async () => {
    const module = join(scratch, "printing.mjs");
    writeFileSync(
      module,
      `import * as ref from ${JSON.stringify(join(PACKAGE_ROOT, "dist", "index.js"))};
console.log("module loaded");
process.stdout.write("raw write at import\\n");
export const { ToolError, newTool, compile } = ref;
export class Registry extends ref.Registry {
  async call(c) { console.log("calling", c.name); process.stdout.write("raw write in a call\\n"); return super.call(c); }
}
`,
    );
    const session = await stdioSubject(`node ${typescriptAdapter()} ${module}`, { timeoutMs: 10_000 }).open("ag02");
    const failures: unknown[] = [];
    try {
      for (const row of ag02()) {
        const checks = await runRow(row, session.send, "ag02");
        if (statusOf(checks, { level: "messages", tiers: ["core", "catalog", "hardening"] }) !== "passed") failures.push(row.id);
      }
      await vi.waitFor(() => expect(session.stderrTail?.()).toContain("raw write in a call"), { timeout: 5_000 });
    } finally {
      await session.close();
    }
    expect(failures).toEqual([]);
  });
});
