import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { scoreMcp } from "../../../src/harness/score-mcp.js";
import { McpClient } from "../../../src/subjects/mcp/client.js";

// The client's edges: the older spec version when the newer is refused, a call that hangs, a
// server that floods stderr.

const RAW = join(import.meta.dirname, "..", "..", "fixtures", "mcp", "raw-server.mjs");

describe("the MCP client", () => {
  test("a server refusing 2025-11-25 is offered 2025-06-18, and the version chosen is recorded", async () => {
    const client = await McpClient.connect({ command: `node ${RAW} old` });
    try {
      expect(client.hello).toMatchObject({ protocolVersion: "2025-06-18", offered: true, serverInfo: { name: "raw-old" } });
    } finally {
      await client.close();
    }
    const report = await scoreMcp({ command: `node ${RAW} old` });
    expect(report.summary.flags).toContain("mcp: protocol version 2025-06-18 (offered 2025-11-25, 2025-06-18)");
  });

  // a restart's initialize is held to the request timeout: long enough here for node to start again
  test("a call with no answer in time is hung, the server started again, and the next call answered", async () => {
    const report = await scoreMcp({ command: `node ${RAW} hang` }, { timeoutMs: 1_500, filters: ["mcp/echo/missing-required/*", "mcp/echo/extra-property"] });
    const rows = report.rows.map((r) => [r.id, r.checks.find((c) => c.what === "the server keeps answering")?.actual]);
    expect(rows).toEqual([
      ["mcp/echo/missing-required/text", { died: "hung: no answer within 1500 ms" }],
      ["mcp/echo/extra-property", { died: "hung: no answer within 1500 ms" }],
    ]);
  });

  test("stderr is kept bounded: its end only", async () => {
    const client = await McpClient.connect({ command: `node ${RAW} noisy` });
    try {
      await client.ping();
      // a megabyte through a pipe may still be arriving after the ping's answer
      for (let i = 0; i < 100 && !client.stderrTail()?.includes("END-OF-NOISE"); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const tail = client.stderrTail()!;
      expect(tail.length).toBeLessThan(20_000);
      expect(tail).toContain("END-OF-NOISE");
    } finally {
      await client.close();
    }
  });
});
