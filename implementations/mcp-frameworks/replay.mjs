// A raw JSON-RPC client, to replay one call by hand: node replay.mjs SERVER.mjs TOOL 'ARGUMENTS-AS-JSON-TEXT'
// starts the server over stdio, initializes, sends tools/call with the arguments written exactly as
// given (so 3.0 stays 3.0), and prints each request and each answer line as it was on the wire.
// SERVER may carry the arguments of its file in the same quoted word: 'stdio-http.mjs hono-mcp.mjs'.
import { spawn } from "node:child_process";

const [server, tool, args] = process.argv.slice(2);
if (!server || !tool || args === undefined) {
  process.stderr.write("usage: node replay.mjs SERVER.mjs TOOL 'ARGUMENTS-AS-JSON-TEXT' (SERVER may be 'stdio-http.mjs SERVER.mjs')\n");
  process.exit(2);
}
const child = spawn(process.execPath, server.trim().split(/\s+/), { stdio: ["pipe", "pipe", "inherit"] });
const requests = [
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"replay","version":"1.0.0"}}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${args}}}`,
];
let buffer = "";
child.stdout.on("data", (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    process.stdout.write(`<- ${line}\n`);
    if (/"id":\s*2\b/.test(line)) child.kill();
  }
});
const send = (line) => {
  process.stdout.write(`-> ${line}\n`);
  child.stdin.write(`${line}\n`);
};
send(requests[0]);
setTimeout(() => { send(requests[1]); send(requests[2]); }, 300);
setTimeout(() => { process.stdout.write("(no answer in 5 s)\n"); child.kill(); }, 5000).unref();
