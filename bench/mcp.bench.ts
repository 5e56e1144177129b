import { fileURLToPath } from "node:url";
import { bench, describe } from "vitest";
import { scoreMcp } from "../dist/harness/score-mcp.js";

// An MCP server of 25 tools scored over stdio with no adapter (every invalid call, the list twice,
// a ping after each), process start included; needs `npm run build`.

const server = fileURLToPath(new URL("../test/fixtures/mcp/many-tools-server.mjs", import.meta.url));

describe("score --mcp: a 25-tool server over stdio", () => {
  bench("core tier", async () => {
    const report = await scoreMcp({ command: `node ${JSON.stringify(server)}` });
    if (report.summary.scores.total.percent !== 100) throw new Error(`the strict 25-tool server scored ${report.summary.scores.total.percent}%`);
  }, { iterations: 5, time: 0 });
});
