import { describe, expect, test } from "vitest";
import { classify, names, saysError } from "../../../src/run/mcp/classify.js";
import type { Answer } from "../../../src/subjects/mcp/rpc.js";

// Each rule of the classing table, on answers written by hand in the forms real servers give.

const result = (text: string, isError?: boolean): Answer => ({ kind: "result", result: { content: [{ type: "text", text }], ...(isError !== undefined ? { isError } : {}) }, text: "", ms: 1 });
const rpcError = (code: number, message: string, data?: unknown): Answer => ({ kind: "error", error: { code, message, ...(data !== undefined ? { data } : {}) }, text: "", ms: 1 });
const days = [["days"]];

describe("classing an answer to an invalid call", () => {
  test("an isError result in a refusal's words naming the argument is refused", () => {
    expect(classify(result('Input validation error: Invalid arguments for tool get_weather: expected number at "days"', true), days).verdict).toBe("refused");
  });
  test("an isError refusal that names no argument is refused without saying what", () => {
    const classed = classify(result("invalid input", true), days);
    expect(classed.verdict).toBe("refused without saying what");
    expect(classed.text).toBe("invalid input");
  });
  test("-32602 naming the argument is refused (the 2025-06-18 form)", () => {
    expect(classify(rpcError(-32602, "Invalid params: days must be an integer"), days).verdict).toBe("refused");
  });
  test("-32602 naming nothing is refused without saying what", () => {
    expect(classify(rpcError(-32602, "Invalid params"), days).verdict).toBe("refused without saying what");
  });
  test("-32603 is an unreadable refusal, whatever it says", () => {
    const classed = classify(rpcError(-32603, "days: expected integer"), days);
    expect(classed.verdict).toBe("unreadable refusal");
    expect(classed.text).toBe("JSON-RPC error -32603: days: expected integer");
  });
  test("-32603 whose text is the tool's own failure is not a refusal: the tool ran (server-github's form, no network in the sandbox)", () => {
    const classed = classify(rpcError(-32603, "fetch failed"), days);
    expect(classed.verdict).toBe("ran, then failed");
    expect(classed.rule).toBe("a JSON-RPC error (-32603) whose text is the tool's own failure");
    expect(classify(rpcError(-32603, "Failed to create issue: getaddrinfo EAI_AGAIN api.github.com"), days).verdict).toBe("ran, then failed");
    // a refusal's words in -32603 stay an unreadable refusal
    expect(classify(rpcError(-32603, "Invalid input: days Required"), days).verdict).toBe("unreadable refusal");
  });
  test("a normal result that says error is an unreadable refusal (Slack's form)", () => {
    expect(classify(result('{"ok":false,"error":"invalid_arguments"}'), days).verdict).toBe("unreadable refusal");
    expect(classify(result("Error: days is required"), days).verdict).toBe("unreadable refusal");
  });
  test("a normal result is: the tool ran", () => {
    expect(classify(result("sunny in Paris"), days).verdict).toBe("ran");
  });
  test("an isError whose text is a TypeError is the tool's own failure: it ran (Google Maps' form)", () => {
    expect(classify(result("TypeError: Cannot read properties of undefined (reading 'lat')", true), days).verdict).toBe("ran, then failed");
  });
  test("a stack frame in a normal result is the tool's failure too", () => {
    expect(classify(result("failed\n    at run (/srv/tool.js:12:5)"), days).verdict).toBe("ran, then failed");
  });
  test("an isError with neither a refusal's words nor a failure's cannot be told, and says so", () => {
    expect(classify(result("quota reached", true), days).verdict).toBe("cannot tell");
  });
  test("a closed stream is a crash, no answer in time a hang", () => {
    expect(classify({ kind: "closed", how: "the process exited with code 3", ms: 2 }, days)).toMatchObject({ verdict: "crashed", text: "the process exited with code 3" });
    expect(classify({ kind: "hung", ms: 5000 }, days)).toMatchObject({ verdict: "hung", text: "no answer within 5000 ms" });
  });
});

describe("what naming the argument takes", () => {
  test("a property is named as a whole word, not inside another", () => {
    expect(names('"days" is required', days)).toBe(true);
    expect(names("holidays is required", days)).toBe(false);
  });
  test("a name of one or two letters names a property only quoted or in a path, never as a word of the sentence", () => {
    expect(names("expected a number", [["a"]])).toBe(false);
    expect(names('"a": expected a number', [["a"]])).toBe(true);
    expect(names("$.a: expected integer", [["a"]])).toBe(true);
    expect(names('[{"path":["a"],"message":"Required"}]', [["a"]])).toBe(true);
    // zod 4's wording, as the SDK passes it on
    expect(names("Invalid input: expected number, received string at a", [["a"]])).toBe(true);
    expect(names("not at a number", [["a"]])).toBe(false);
  });
  test("an element is named with its array and its index", () => {
    expect(names("tags[1]: expected string", [["tags", "1"]])).toBe(true);
    expect(names("tags: expected string", [["tags", "1"]])).toBe(false);
    expect(names("tags[12]: expected string", [["tags", "1"]])).toBe(false);
  });
  test("saysError reads a JSON object's error member and a leading 'error'", () => {
    expect(saysError('{"error":"bad"}')).toBe(true);
    expect(saysError('{"error":null,"value":3}')).toBe(false);
    expect(saysError("no errors found")).toBe(false);
  });
});
