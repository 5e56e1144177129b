// A raw JSON-RPC client for checking the census by hand: starts one server of this folder, speaks
// MCP to it line by line (initialize, notifications/initialized, one tools/call, a ping) and prints
// every message it sends and gets. No SDK, no tool-conformance code: what the server answers, as is.
// Run it only inside a sandbox with no network (README.md, "Replayed by hand"):
//   bwrap --unshare-all --die-with-parent --ro-bind / / --tmpfs /tmp --dev /dev --proc /proc \
//     --setenv HOME /tmp --chdir "$PWD" node replay.mjs "COMMAND" TOOL 'ARGUMENTS-JSON'
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [command, tool, argumentsText] = process.argv.slice(2);
if (!command || !tool || argumentsText === undefined) {
  process.stderr.write('usage: node replay.mjs "COMMAND" TOOL \'ARGUMENTS-JSON\'\n');
  process.exit(2);
}
const server = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
server.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-2000)));
const waiting = new Map();
createInterface({ input: server.stdout }).on("line", (line) => {
  process.stdout.write(`← ${line}\n`);
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  waiting.get(message.id)?.(message);
});
let next = 1;
const send = (method, params, notify = false) => {
  const message = { jsonrpc: "2.0", ...(notify ? {} : { id: next++ }), method, ...(params ? { params } : {}) };
  const text = JSON.stringify(message);
  process.stdout.write(`→ ${text}\n`);
  server.stdin.write(`${text}\n`);
  if (notify) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${method} in 20 s; stderr: ${stderr}`)), 20_000);
    waiting.set(message.id, (answer) => (clearTimeout(timer), resolve(answer)));
  });
};
try {
  await send("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "replay", version: "1" } });
  await send("notifications/initialized", undefined, true);
  // the arguments exactly as given: a text that is not JSON is sent as that string
  let args;
  try {
    args = JSON.parse(argumentsText);
  } catch {
    args = argumentsText;
  }
  await send("tools/call", { name: tool, arguments: args });
  await send("ping");
} catch (error) {
  process.stdout.write(`! ${error.message}\n`);
  process.exitCode = 1;
} finally {
  server.kill("SIGKILL");
}
