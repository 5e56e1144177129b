import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { scoreMcp } from "../../../src/harness/score-mcp.js";
import { SubjectStoppedError } from "../../../src/harness/stopped.js";

// The strict SDK server over Streamable HTTP: SSE answers, plain JSON answers, a session id, and
// a token in a header.

const SERVER = join(import.meta.dirname, "..", "..", "fixtures", "mcp", "http-server.mjs");
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

async function start(env: Record<string, string> = {}): Promise<string> {
  child = spawn(process.execPath, [SERVER], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const [chunk] = (await once(child.stdout!, "data")) as [Buffer];
  return `http://127.0.0.1:${chunk.toString().trim()}/mcp`;
}

describe("scoring an MCP server over Streamable HTTP", () => {
  test("answers as SSE streams: 100%, the session kept", async () => {
    const report = await scoreMcp({ url: await start() });
    expect(report.summary.scores.total.percent).toBe(100);
    expect(report.summary.scores.total.rows).toBeGreaterThan(20);
    expect(report.header.subject.implementation.name).toBe("http-fixture");
  });

  test("answers as JSON bodies, with the token the server asks for", async () => {
    const url = await start({ JSON_RESPONSE: "1", TOKEN: "t0ken" });
    const report = await scoreMcp({ url, headers: { authorization: "Bearer t0ken" } });
    expect(report.summary.scores.total.percent).toBe(100);
    expect(report.rows.find((r) => r.id === "mcp/add/above-maximum/b")?.status).toBe("passed");
  });

  test("without the token the server cannot be reached: a stopped report scoring 0, with the cause", async () => {
    const url = await start({ TOKEN: "t0ken" });
    const stopped = await scoreMcp({ url }).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(SubjectStoppedError);
    const report = (stopped as SubjectStoppedError).report;
    expect(report.summary.scores.total.percent).toBe(0);
    expect(report.summary.stopped?.cause).toBe("the MCP server did not start: HTTP 401 Unauthorized: no token");
  });
});
