import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cli } from "../helpers/cli-helpers.js";
import { classify } from "../../src/run/mcp/classify.js";
import { inForm, learnForm, type Answered } from "../../src/run/mcp/refusal-form.js";
import type { Answer } from "../../src/subjects/mcp/rpc.js";

// A server's refusals read in its own form: learned from the answers that named the argument, it
// turns a normal result that opens the same way into a refusal told as a result. The texts are the
// real answers of the SDK's McpServer, fastmcp and tmcp (docs/mcp-frameworks.md's worked call).

const isError = (text: string): Answer => ({ kind: "result", result: { isError: true, content: [{ type: "text", text }] }, text, ms: 1 });
const normal = (text: string): Answer => ({ kind: "result", result: { content: [{ type: "text", text }] }, text, ms: 1 });
const rpcError = (code: number, message: string): Answer => ({ kind: "error", error: { code, message }, text: message, ms: 1 });

function answered(tool: string, answer: Answer, names: string[][], observed = "not observed (no sandbox)"): Answered {
  return { tool, answer, classed: { ...classify(answer, names), observed } };
}

const SDK = [
  answered("get_weather", isError("MCP error -32602: Input validation error: Invalid arguments for tool get_weather: Invalid input: expected string, received undefined at city"), [["city"]]),
  answered("lookup", isError("MCP error -32602: Input validation error: Invalid arguments for tool lookup: Too big: expected string to have <=5 characters at code"), [["code"]]),
];

describe("the refusal form a server's answers teach", () => {
  test("the SDK's McpServer: its opening, the tool's name put aside, from two answers", () => {
    expect(SDK.map((a) => a.classed.verdict)).toEqual(["refused", "refused"]);
    expect(learnForm(SDK)).toEqual({ channel: "isError", opening: "MCP error -32602: Input validation error:", from: 2 });
  });

  test("fastmcp's, as a JSON-RPC error", () => {
    const fastmcp = [
      answered("get_weather", rpcError(-32602, "MCP error -32602: Tool 'get_weather' parameter validation failed: city: Invalid input: expected string, received undefined"), [["city"]]),
      answered("tag_items", rpcError(-32602, "MCP error -32602: Tool 'tag_items' parameter validation failed: tags: Too small: expected array to have >=1 items"), [["tags"]]),
    ];
    expect(learnForm(fastmcp)).toEqual({ channel: "JSON-RPC error -32602", opening: "MCP error -32602: Tool '{tool}' parameter validation failed:", from: 2 });
  });

  test("no form from one answer, from answers that named nothing, from normal results, or from what the sandbox saw act", () => {
    expect(learnForm(SDK.slice(0, 1))).toBeUndefined();
    expect(learnForm(SDK.map((a) => ({ ...a, classed: { ...a.classed, verdict: "refused without saying what" as const } })))).toBeUndefined();
    expect(learnForm(SDK.map((a) => ({ ...a, classed: { ...a.classed, observed: "ran: started `git fetch`" } })))).toBeUndefined();
    const results = [answered("a", normal("Invalid arguments for tool a: x is wrong"), [["x"]]), answered("b", normal("Invalid arguments for tool b: y is wrong"), [["y"]])];
    expect(learnForm(results)).toBeUndefined();
  });

  test("an opening without a refusal's word is no form: a server that prefixes every answer alike", () => {
    const wrapped = [
      answered("a", isError("Error executing tool a: Invalid input at x"), [["x"]]),
      answered("b", isError("Error executing tool b: Invalid input at y"), [["y"]]),
    ];
    // "Error executing tool {tool}:" says nothing of a refusal, and no later colon opens one
    expect(wrapped.map((a) => a.classed.verdict)).toEqual(["refused", "refused"]);
    expect(learnForm(wrapped)).toBeUndefined();
  });
});

describe("a normal result read in the form", () => {
  const form = learnForm(SDK)!;

  test("a handler's own check told as a result, in the server's refusal form, naming nothing: a refusal the model cannot read, not a run", () => {
    const told = answered("book_trip", normal("MCP error -32602: Input validation error: the trip cannot be booked as asked"), [["nights"]]);
    expect(told.classed.verdict).toBe("ran");
    const again = inForm(form, told);
    expect(again?.verdict).toBe("unreadable refusal");
    expect(again?.rule).toContain("learned from 2 answers");
  });

  test("never what the sandbox saw act, never a tool's own failure, never a result that opens otherwise", () => {
    const acted = answered("book_trip", normal("MCP error -32602: Input validation error: done"), [["nights"]], "ran: started `curl`");
    expect(inForm(form, acted)).toBeUndefined();
    const failed = answered("book_trip", normal("MCP error -32602: Input validation error: ENOENT: no such file or directory"), [["nights"]]);
    expect(failed.classed.verdict).toBe("ran, then failed");
    expect(inForm(form, failed)).toBeUndefined();
    expect(inForm(form, answered("book_trip", normal("booked: 3 nights"), [["nights"]]))).toBeUndefined();
  });
});

describe("score --mcp on a server that tells one refusal as a result", () => {
  test("the enum row is an unreadable refusal in the server's own form, said in the flags; nothing else changes", () => {
    const server = join(import.meta.dirname, "..", "fixtures", "mcp", "refusal-as-result.mjs");
    const run = cli("score", "--mcp", `node ${server}`, "--reporter", "json=-");
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; id?: string; status?: string; flags?: string[]; checks?: { what: string; actual?: { answer?: string; rule?: string } }[] });
    const failing = lines.filter((line) => line.kind === "row" && line.status !== "passed");
    expect(failing.map((row) => row.id)).toEqual(["mcp/convert/enum/unit"]);
    const readable = failing[0]!.checks!.find((check) => check.what === "the refusal is an error the model reads")!;
    expect(readable.actual).toMatchObject({ answer: "unreadable refusal" });
    expect(readable.actual!.rule).toContain("this server's own refusal form (isError opening `Invalid arguments for tool {tool}:`");
    expect(lines.find((line) => line.kind === "summary")?.flags?.join("\n")).toContain("1 normal result in that form read as a refusal, not a run");
  }, 60_000);
});
