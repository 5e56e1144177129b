import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { McpClient } from "../../../src/subjects/mcp/client.js";
import { createSandbox } from "../../../src/subjects/sandbox/index.js";
import { needs } from "../../helpers/machine.mjs";

// When the tracer stops, the witness says so: every call from then on is "not observed", never
// judged as if the sandbox had watched and seen nothing.

const machine = needs("bwrap", "strace");
const base = mkdtempSync(join(tmpdir(), "mcp-tracer-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The strace processes whose command line holds `token`. */
function tracers(token: string): number[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      return comm === "strace" && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(token) ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

describe("the witness's tracer", () => {
  test.skipIf(machine.lacking)(`once it is gone, calls are not observed ${machine.tag}`, async () => {
    const folder = join(base, "server");
    cpSync(join(import.meta.dirname, "..", "..", "fixtures", "hostile-mcp", "witness-server.mjs"), join(folder, "witness-server.mjs"));
    chmodSync(base, 0o755);
    chmodSync(folder, 0o755);
    const client = await McpClient.connect({ command: "node witness-server.mjs shell", cwd: folder, sandbox: createSandbox({ mode: "bwrap", submission: folder }) }, { timeoutMs: 2_000 });
    try {
      const watched = client.watch();
      await client.call("shell", {});
      const ping = await client.ping();
      const first = await watched.close(ping.kind === "result");
      expect(first.watched && first.acts.map((act) => act.what)).toContain("started `sh -c exit 1`");
      const found = tracers(folder);
      expect(found.length).toBe(1);
      process.kill(found[0]!, "SIGKILL");
      // from the moment its output ends, every window says why it saw nothing
      let later = await client.watch().close(false);
      while (later.watched) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        later = await client.watch().close(false);
      }
      expect(later).toEqual({ watched: false, why: "the tracer stopped" });
      const window = client.watch();
      await client.call("shell", {});
      expect(await window.close(false)).toEqual({ watched: false, why: "the tracer stopped" });
    } finally {
      await client.close();
    }
  }, 60_000);
});
