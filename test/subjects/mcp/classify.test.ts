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
  test("-32603 in a refusal's words is an unreadable refusal; in neither a refusal's words nor a failure's, cannot tell", () => {
    const classed = classify(rpcError(-32603, "days: expected integer"), days);
    expect(classed.verdict).toBe("unreadable refusal");
    expect(classed.text).toBe("JSON-RPC error -32603: days: expected integer");
    // mcp-server-kubernetes: a port-forward the tool looked up and did not find, its own business
    expect(classify(rpcError(-32603, "Port-forward with id x closed"), days).verdict).toBe("cannot tell");
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

// Texts real servers sent, each replayed by hand: the tool ran (a subprocess, the file system, the network) or refused.
describe("a tool's own failure in the words of a subprocess or the operating system", () => {
  test.each([
    ["Command failed: kubectl get node\nerror: the server doesn't have a resource type \"node\""],
    ["process exited with code 1"],
    ['TypeError [ERR_INVALID_ARG_TYPE]: The "data" argument must be of type string or an instance of Buffer. Received undefined'],
    ["The \"data\" argument must be of type string. Received undefined (ERR_INVALID_ARG_TYPE)"],
    ["connect ECONNREFUSED 127.0.0.1:5432"],
    ["connect ENETUNREACH 10.0.0.1:443"],
    ["Error: EROFS: read-only file system, open '/data/x.json'"],
    ["dial tcp: lookup api.example.invalid: no such host"],
    ["exec: \"gh\": executable file not found in $PATH"],
    ["Command 'git' returned non-zero exit status 128."],
    ["FileNotFoundError: [Errno 2] No such file or directory: 'notes/a.md'"],
    ["exit status 2"],
  ])("%s: ran, then failed", (text) => {
    expect(classify(result(text, true), days).verdict).toBe("ran, then failed");
    expect(classify(rpcError(-32603, text), days).verdict).toBe("ran, then failed");
  });
  test("a validator's own codes and words are not a failure of the tool", () => {
    expect(classify(result("FST_ERR_VALIDATION: body/days must be integer", true), days).verdict).toBe("refused");
    expect(classify(result("Invalid arguments: days must be a number", true), days).verdict).toBe("refused");
  });
  test("a refusal a handler returns as a normal result, opening with a refusal's word and naming the argument, is an unreadable refusal", () => {
    expect(classify(result("Unknown operation: tool-conformance-not-listed"), [["operation"]])).toMatchObject({ verdict: "unreadable refusal", rule: "a normal result opening with a refusal's word, naming the argument" });
    expect(classify(result("Invalid days: must be 1 to 16"), days).verdict).toBe("unreadable refusal");
    // a tool that ran on the rest of its arguments and answers of its own business: ran
    expect(classify(result("Unknown city: a"), [["tool_conformance_extra"]]).verdict).toBe("ran");
  });
});

describe("naming the argument in the server's own forms", () => {
  test("a name of one or two letters opening a line before a colon (zod's issues as the SDK joins them)", () => {
    expect(names("id: Invalid input: expected string, received number", [["id"]])).toBe(true);
    expect(names("Input validation error:\n  k: Required", [["k"]])).toBe(true);
    expect(names("ok: the value was refused", [["id"]])).toBe(false);
  });
  test("a nested path's last name, ending the text or a clause (server-memory's refusal of relations[0].to)", () => {
    expect(names("MCP error -32602: Input validation error: Invalid arguments for tool create_relations: Invalid input: expected string, received undefined at relations[0].to", [["to"]])).toBe(true);
    expect(names("expected string at params.id, and more", [["id"]])).toBe(true);
    // a sentence's "to" after a full stop and a space is no path
    expect(names("Refused. to be checked", [["to"]])).toBe(false);
    expect(names("go to the list", [["to"]])).toBe(false);
  });
  test("after property, field, key, argument or parameter", () => {
    expect(names("Unrecognized key k", [["k"]])).toBe(true);
    expect(names("missing required parameter: id", [["id"]])).toBe(true);
    expect(names("a parameter is missing", [["a"]])).toBe(false);
  });
  test("in any case", () => {
    expect(names("Command must be an array", [["command"]])).toBe(true);
    expect(names("ID: expected string", [["id"]])).toBe(true);
  });
  test("inside JSON-escaped text", () => {
    expect(names('MCP error -32602: [{\\"path\\": [\\"id\\"], \\"message\\": \\"Required\\"}]', [["id"]])).toBe(true);
    expect(names('{\\"path\\":[\\"tags\\",1]}', [["tags", "1"]])).toBe(true);
  });
  test("record and dict for object", () => {
    expect(names("Invalid input: expected record, received array", [["object"]])).toBe(true);
    expect(names("arguments must be a dict", [["object"]])).toBe(true);
    expect(names("arguments must be given", [["object"]])).toBe(false);
  });
});

// Texts real servers sent, replayed by hand by a reviewer who had not seen this code (mcp-server-kubernetes
// 4.1.7, discogs-mcp-server 0.5.7 on fastmcp, @shortcut/mcp 0.25.0), each judged from the handler's source.
describe("texts of servers reviewed by hand", () => {
  test("fastmcp's list of issues names a one-letter field between two colons", () => {
    expect(names("MCP error -32602: Tool 'search' parameter validation failed: q: Invalid input: expected string, received number", [["q"]])).toBe(true);
    expect(names("MCP error -32602: Tool 'search' parameter validation failed: type: Invalid option, q: Invalid input", [["q"]])).toBe(true);
    expect(names("Validation failed: a value was refused", [["a"]])).toBe(false);
  });
  test("a handler's own check behind a lead-in ending 'failed:', told as a result, is an unreadable refusal, not a run", () => {
    expect(classify(result("Node management operation failed: Unknown operation: 12.5"), [["operation"]]).verdict).toBe("unreadable refusal");
    expect(classify(result("Node management operation failed: the node is cordoned"), [["operation"]]).verdict).toBe("ran");
  });
  test("a crash on the value, and Node's own refusal of a bad argument to its API, are the tool's own failure", () => {
    expect(classify(rpcError(-32603, "MCP error -32603: args is not iterable"), days).verdict).toBe("ran, then failed");
    expect(classify(rpcError(-32603, 'The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received type number (12.5)'), days).verdict).toBe("ran, then failed");
  });
  test("'has to be' is a refusal's word", () => {
    expect(classify(result("Team or Workflow has to be specified", true), [["team_id"]]).verdict).toBe("refused without saying what");
  });
});

// Texts of seven more servers replayed by hand (mcp-server-sqlite-npx 0.8.0, firecrawl-mcp 3.26.0 on fastmcp,
// @easecloudio/mcp-metabase-server 1.3.0, @executeautomation/playwright-mcp-server 1.0.12), judged from each handler's source.
describe("texts of a second set of servers reviewed by hand", () => {
  test("a database that ran the statement and failed is the tool's own failure", () => {
    expect(classify(result('Error: SQLITE_ERROR: near "a": syntax error', true), [["query"]]).verdict).toBe("ran, then failed");
    expect(classify(result('error: syntax error at or near "a"', true), [["sql"]]).verdict).toBe("ran, then failed");
    expect(classify(result("Error: no such table: a", true), [["table_name"]]).verdict).toBe("ran, then failed");
  });
  test("a handler's own check in words of 'allowed', 'no … provided' or 'requires either' is a refusal", () => {
    expect(classify(result("Error: Only CREATE TABLE statements are allowed", true), [["query"]]).verdict).toBe("refused without saying what");
    expect(classify(result("Error: Only SELECT queries are allowed for read_query", true), [["query"]]).verdict).toBe("refused without saying what");
    expect(classify(rpcError(-32603, "No fields provided for update"), [["card_id"]]).verdict).toBe("unreadable refusal");
    expect(classify(result("Tool 'firecrawl_monitor_create' execution failed: firecrawl_monitor_create requires either `body`, `page`/`pages`, or `queries`.", true), [["tool_conformance_extra"]]).verdict).toBe("refused without saying what");
    expect(classify(result("firecrawl_research_search_github is deprecated and unavailable through MCP. Use firecrawl_developer_search.", true), [["query"]]).verdict).toBe("refused without saying what");
  });
  test("a configuration the handler reached for and found missing is the tool's own failure, even behind fastmcp's wrapper", () => {
    expect(classify(result("Tool 'firecrawl_parse' execution failed: firecrawl_parse requires FIRECRAWL_API_URL to be set to a self-hosted Firecrawl API instance.", true), [["url"]]).verdict).toBe("ran, then failed");
    expect(classify(result("Missing required environment variable for the API key", true), [["q"]]).verdict).toBe("ran, then failed");
    // a property in snake_case is no environment variable: the handler's check of it is a refusal
    expect(classify(result("card_id is required", true), [["card_id"]]).verdict).toBe("refused");
  });
  test("a library's own error in Playwright's form is the tool's own failure, a validator's path so written is not", () => {
    const url = new Set(["url", "headers", "token"]);
    expect(classify(result("API operation failed: apiRequestContext.get: First argument must be either URL string or Request", true), [["url"]], { properties: url }).verdict).toBe("ran, then failed");
    expect(classify(result("API operation failed: apiRequestContext.post: Invalid URL", true), [["value"]], { properties: url }).verdict).toBe("ran, then failed");
    expect(classify(result("Failed to initialize API context: apiRequest.newContext: baseURL: expected string, got object", true), [["url"]], { properties: url }).verdict).toBe("ran, then failed");
    // fastmcp writes a nested path so: its first name is one of the tool's properties, or a path's root
    const nested = new Set(["pdfOptions", "maxPages"]);
    expect(classify(result("MCP error -32602: Tool 'parse' parameter validation failed: pdfOptions.maxPages: Expected number, received string", true), [["pdfOptions", "maxPages"]], { properties: nested }).verdict).toBe("refused");
    expect(classify(rpcError(-32602, "arguments.name: expected string"), [["name"]], { properties: new Set(["name"]) }).verdict).toBe("refused");
    expect(classify(result("params.name: Invalid input", true), [["params", "name"]]).verdict).toBe("refused");
  });
  test("a browser the handler drives failing is the tool's own failure", () => {
    expect(classify(result("Navigation failed: net::ERR_NAME_NOT_RESOLVED at a", true), [["url"]]).verdict).toBe("ran, then failed");
    expect(classify(result("Protocol error (Page.navigate): Cannot navigate to invalid URL", true), [["url"]]).verdict).toBe("ran, then failed");
  });
  test("an object printed into the handler's own lookup is a run; a check that prints it is a refusal", () => {
    expect(classify(result("Session [object Object] not found", true), [["sessionId"]]).verdict).toBe("ran, then failed");
    expect(classify(result("Invalid sessionId: [object Object]", true), [["sessionId"]]).verdict).toBe("refused");
  });
  test("a refusal that names another of the tool's properties, not the probe's, says which (the probe's rule may never have been reached)", () => {
    const classed = classify(result("id is required for get", true), [["tool_conformance_extra"]], { properties: new Set(["id", "action", "project"]) });
    expect(classed.verdict).toBe("refused without saying what");
    expect(classed.other).toEqual(["id"]);
    expect(classify(result("id is required for get", true), [["id"]], { properties: new Set(["id", "action"]) }).other).toBeUndefined();
    expect(classify(result("invalid input", true), [["x"]], { properties: new Set(["id", "action"]) }).other).toBeUndefined();
  });
  test("a lookup of the wrong-typed value the call sent, missed, is a run: the handler used the value (desktop-commander's get_prompts)", () => {
    const prompt = (id: string) => result(`❌ Prompt with ID '${id}' not found. Use action='list_prompts' to see available prompts.`, true);
    expect(classify(prompt("12.5"), [["promptId"]], { value: 12.5 }).verdict).toBe("ran, then failed");
    expect(classify(prompt("true"), [["promptId"]], { value: true }).verdict).toBe("ran, then failed");
    expect(classify(prompt("x"), [["promptId"]], { value: ["x"] }).verdict).toBe("ran, then failed");
    expect(classify(prompt("[object Object]"), [["promptId"]], { value: { x: 1 } }).verdict).toBe("ran, then failed");
    // another value quoted, or none known: the text alone, a refusal's words
    expect(classify(prompt("abc"), [["promptId"]], { value: 12.5 }).verdict).toBe("refused without saying what");
    expect(classify(prompt("12.5"), [["promptId"]]).verdict).toBe("refused without saying what");
    // the value quoted by a check, not a lookup
    expect(classify(result("promptId '12.5' must be a string", true), [["promptId"]], { value: 12.5 }).verdict).toBe("refused");
  });
});
