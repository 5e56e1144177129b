import { Agent, Runner, setTracingDisabled, tool, Usage } from "@openai/agents-core";
setTracingDisabled(true);
const runner = new Runner({ tracingDisabled: true });
const done = { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] };
// a model answering its first turn with one function call, then "done"; it keeps what it was sent
const model = (name, args) => ({
  requests: [],
  async getResponse(request) {
    this.requests.push(request);
    const output = this.requests.length === 1 && name ? [{ type: "function_call", callId: "c1", name, arguments: args, status: "completed" }] : [done];
    return { usage: new Usage(), output };
  },
  async *getStreamedResponse() {},
});
async function turn(tools, name, args) {
  const m = model(name, args);
  try {
    await runner.run(new Agent({ name: "agent", model: m, tools }), "go");
  } catch (error) {
    return `threw ${error.constructor.name}: ${error.message}`;
  }
  const sent = m.requests[0].tools.map((t) => t.name).join(",");
  const result = m.requests[1]?.input.find((i) => i.type === "function_call_result");
  return `tools sent [${sent}]` + (result ? ` -> ${JSON.stringify({ status: result.status, output: result.output })}` : "");
}
const schema = { type: "object", properties: { city: { type: "string", minLength: 1 }, days: { type: "integer" } }, required: ["city"], additionalProperties: false };
const weather = tool({ name: "get_weather", description: "w", parameters: schema, strict: false, execute: async (input) => "ran " + JSON.stringify(input) });
const second = tool({ name: "get_weather", description: "second", parameters: { type: "object" }, strict: false, execute: async () => "second" });
const boom = tool({ name: "boom", description: "b", parameters: { type: "object" }, strict: false, execute: async () => { throw new Error("kaput"); } });
const stuck = tool({ name: "stuck", description: "", parameters: { type: "object" }, strict: false, timeoutMs: 50, execute: (_input, _context, details) => new Promise((_, reject) => details.signal.addEventListener("abort", () => reject(new Error("aborted")))) });
const named = (name) => tool({ name, description: "", parameters: { type: "object" }, strict: false, execute: async () => "" });
console.log("1", await turn([weather], "get_weather", '{"days":"3","country":"FR"}'));
console.log("2", await turn([weather, second], "get_weather", "{}"));
console.log("3", await turn([named("zeta"), named("alpha")]));
console.log("4", JSON.stringify(["get weather", "Get-Weather", "", "x".repeat(65)].map((n) => named(n).name)));
console.log("5", await turn([weather], "nope", "{}"));
console.log("6", await turn([weather], "get_weather", '{"city": '));
console.log("7", await turn([weather], "get_weather", ""));
console.log("8", await turn([boom], "boom", "{}"));
console.log("9", await turn([weather], "get_weather", "null"));
console.log("10", await turn([stuck], "stuck", "{}"));
console.log("11", JSON.stringify([{ type: "string" }, []].map((p) => tool({ name: "p", description: "", parameters: p, strict: false, execute: async () => "" }).parameters)));
console.log("12", JSON.stringify(tool({ name: "s", description: "", parameters: schema, strict: true, execute: async () => "" }).parameters));
