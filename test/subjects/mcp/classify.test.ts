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
  test("a lookup of the tool's own that missed is its own work, whatever value it looked up; a tool or an argument not found is a refusal", () => {
    const prompt = (id: string) => result(`❌ Prompt with ID '${id}' not found. Use action='list_prompts' to see available prompts.`, true);
    for (const id of ["12.5", "true", "x", "[object Object]"]) expect(classify(prompt(id), [["promptId"]]).verdict, id).toBe("ran, then failed");
    // @itseasy21/mcp-knowledge-graph, @cyanheads-style git tools: a lookup of the base's own value, the probe's rule never checked
    expect(classify(rpcError(-32603, "Entity with name a not found"), [["observations", "0", "contents"]]).verdict).toBe("ran, then failed");
    expect(classify(result("❌ Error: Commit 'a' does not exist.", true), [["directory"]]).verdict).toBe("ran, then failed");
    expect(classify(rpcError(-32603, "Relation not found"), [["relations", "0", "to"]]).verdict).toBe("ran, then failed");
    // what was not found is the tool, or an argument: a validator's or the registry's refusal
    expect(classify(rpcError(-32602, "Tool tool_conformance_no_such_tool not found"), [["tool_conformance_no_such_tool"]]).verdict).toBe("refused");
    expect(classify(result("Unknown tool: tool_conformance_no_such_tool", true), [["tool_conformance_no_such_tool"]]).verdict).toBe("refused");
    expect(classify(result("Required parameter 'query' not found", true), [["query"]]).verdict).toBe("refused");
  });
  // texts in the forms these libraries and programs print (axios, Docker, kubectl, dash, Puppeteer, Playwright, git, MongoDB, Prisma)
  test("a client library's, a daemon's, a shell's, a browser's or git's own failure is the tool's", () => {
    for (const text of [
      "Error: Request failed with status code 404",
      "AxiosError: timeout of 10000ms exceeded",
      "FetchError: request to http://127.0.0.1:9/api failed",
      "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
      "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
      "sh: 1: tool-conformance-not-listed: not found",
      "Could not find Chrome (ver. 131.0.6778.204). This can occur if either",
      "browserType.launch: Executable doesn't exist at /tmp/ms-playwright/chromium-1148/chrome-linux/chrome",
      "Protocol error: Target closed",
      "fatal: not a git repository (or any of the parent directories): .git",
      "MongoServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017",
      "PrismaClientKnownRequestError: Invalid `prisma.user.findUnique()` invocation",
    ]) expect(classify(result(text, true), [["id"]]).verdict, text).toBe("ran, then failed");
    // the same words in a refusal's own sentence are no failure: "fatal" not opening a line, a lower-case class name
    expect(classify(result("invalid arguments: a fatal: flag is not allowed", true), [["flag"]]).verdict).toBe("refused");
    expect(classify(result("id must be a string (axioserror-style ids are refused)", true), [["id"]]).verdict).toBe("refused");
  });
  // @tejalgnrml/agent-orchestrator-mcp 2.0.5, mcp-memory-keeper 0.14.1, github-mcp-server 1.8.7, replayed by hand
  test("Node's own error JSON-escaped, and for a property; a database driver's binding; git's", () => {
    for (const text of [
      '{ "success": false, "error": "The \\"path\\" argument must be of type string. Received type number (12.5)" }',
      'Error: The "options.cwd" property must be of type string or an instance of Buffer or URL. Received type number (12.5)',
      "SQLite3 can only bind numbers, strings, bigints, buffers, and null",
      "Failed to list channels: Too few parameter values were provided",
      "NOT NULL constraint failed: file_cache.file_path",
      '{"content":[{"type":"text","text":"Error: Not a git repository. Run \\"git init\\" to initialize."}],"isError":true}',
      "Error: Current directory is not a Git repository",
    ]) expect(classify(result(text, true), [["path"]]).verdict, text).toBe("ran, then failed");
  });
  test("an unreadable refusal that names the argument is named: only its form fails", () => {
    const classed = classify(result("Error: sourceKey cannot be empty"), [["sourceKey"]]);
    expect(classed).toMatchObject({ verdict: "unreadable refusal", named: true });
    expect(classify(rpcError(-32603, 'Invalid arguments: [{"expected":"record","code":"invalid_type","path":[]}]'), [["object"]])).toMatchObject({ verdict: "unreadable refusal", named: true });
    expect(classify(rpcError(-32603, "invalid input"), [["days"]]).named).toBeUndefined();
  });
  test("a normal result: an error after a mark, an isError told inside, a failed batch's errors; an error with no refusal's words cannot be told", () => {
    expect(classify(result('{"content":[{"type":"text","text":"❌ Error: Invalid action. Use: list, create, delete, or show."}],"isError":true}'), [["action"]])).toMatchObject({ verdict: "unreadable refusal", named: true });
    expect(classify(result("❌ Error: Invalid action. Use: list, create, delete, or show."), [["action"]]).verdict).toBe("unreadable refusal");
    expect(classify(result('{"operation":"batch_save","succeeded":0,"failed":1,"errors":[{"index":0,"key":"a","error":"Invalid category: 12.5"}]}'), [["items", "0", "category"]]).verdict).toBe("unreadable refusal");
    // a tool's own data that lists errors is no refusal of the call (a linter's findings)
    expect(classify(result('{"file":"a.js","errors":[{"message":"Expected indentation of 2 spaces"}]}'), [["path"]]).verdict).toBe("ran");
    // {"success": false} alone: a delete that found nothing, or a refusal; never a pass
    expect(classify(result('{ "success": false }'), [["id"]]).verdict).toBe("cannot tell");
    expect(classify(result("Error: something went wrong"), [["id"]]).verdict).toBe("cannot tell");
  });
  test("a normal result opening with the argument's name and a refusal's words is a handler's own refusal; the name alone is not", () => {
    expect(classify(result("Updates array must be provided and non-empty"), [["updates"]])).toMatchObject({ verdict: "unreadable refusal", named: true });
    expect(classify(result("Updates applied: 0 of 1 (the rest must wait for a sync)"), [["updates"]]).verdict).toBe("ran");
    expect(classify(result("Query must not be empty"), [["limit"]]).verdict).toBe("ran");
  });
});

describe("texts of a third and a fourth set of servers reviewed by hand", () => {
  // mcp-shrimp-task-manager's own templates, English and Traditional Chinese: a task looked up by the base's id
  test("a lookup that missed, said 'could not be found' or in Chinese, is the tool's own work", () => {
    expect(classify(result("# Task Deletion Result\n\n## System Error\n\nTask with ID `a` could not be found. Please use the \"list_tasks\" tool to confirm valid task IDs and try again."), [["tool_conformance_extra"]]).verdict).toBe("ran, then failed");
    expect(classify(result("# 任務刪除結果\n\n## 系統錯誤\n\n找不到 ID 為 `a` 的任務。請使用「list_tasks」工具確認有效的任務 ID 後再試。"), [["tool_conformance_extra"]]).verdict).toBe("ran, then failed");
    expect(classify(result("## 錯誤\n\n找不到ID為 `a` 的任務。請確認任務ID是否正確。", true), [["taskId"]]).verdict).toBe("ran, then failed");
    // a tool is no lookup of the tool's own
    expect(classify(result("Tool 'x' could not be found", true), [["x"]]).verdict).toBe("refused");
  });
  test("a handler's own check of another property, opening with its name, in Chinese, is a refusal that names that property", () => {
    const text = "tasksRaw 參數格式錯誤，請確保格式正確，請嘗試修正錯誤，如果文本太長無法順利修復請分批呼叫，這樣可以避免訊息過長導致不好修正問題，錯誤訊息：Unexpected token 'a', \"a\" is not valid JSON";
    expect(classify(result(text), [["tool_conformance_extra"]], { properties: new Set(["tasksRaw", "updateMode"]) })).toMatchObject({ verdict: "unreadable refusal", other: ["tasksRaw"] });
    expect(classify(result(text), [["tasksRaw"]], { properties: new Set(["tasksRaw", "updateMode"]) })).toMatchObject({ verdict: "unreadable refusal", named: true });
    // a result opening with a property's name in other words is its data
    expect(classify(result("tasksRaw parsed: 3 tasks split"), [["tool_conformance_extra"]], { properties: new Set(["tasksRaw"]) }).verdict).toBe("ran");
  });
  // mcp-server-kubernetes: a handler's McpError(InvalidRequest) for a kind it has no case for
  test("a JSON-RPC error saying 'unsupported' is a refusal a model cannot read as one", () => {
    expect(classify(rpcError(-32600, "Unsupported resource type: a"), [["resourceType"]])).toMatchObject({ verdict: "unreadable refusal" });
    expect(classify(rpcError(-32603, "Unsupported operation: a"), [["operation"]])).toMatchObject({ verdict: "unreadable refusal", named: true });
    // an HTTP client's: the request was made (Go's net/http, axios)
    expect(classify(result('Get "a": unsupported protocol scheme ""', true), [["url"]]).verdict).toBe("ran, then failed");
    expect(classify(result("AxiosError: Unsupported protocol a:", true), [["url"]]).verdict).toBe("ran, then failed");
  });
});
