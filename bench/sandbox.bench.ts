import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bench, describe } from "vitest";
import { createSandbox } from "../dist/subjects/sandbox/index.js";
import { stdioSubject } from "../dist/subjects/stdio.js";

// The cost of starting a subject, with and without the bwrap sandbox: spawn, start handshake,
// stop. The subject is a small Node adapter that answers the handshake; the difference between
// the two is what the sandbox adds to every start (and every restart). Needs bwrap.

const dir = mkdtempSync(join(tmpdir(), "tc-bench-sandbox-"));
writeFileSync(
  join(dir, "adapter.mjs"),
  `import { createInterface } from "node:readline";
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  const reply = request.cmd === "start"
    ? { ready: true, version: 1, implementation: { name: "bench", language: "javascript" }, profiles: ["ag02"], capabilities: ["validate"] }
    : { ok: true };
  process.stdout.write(JSON.stringify({ seq: request.seq, ...reply }) + "\\n");
  if (request.cmd === "stop") process.exit(0);
}
`,
);
const node = process.execPath;
const command = `${node} adapter.mjs`;
const binds = /^\/(usr|bin)\//.test(node) ? [] : [dirname(dirname(node))];
// the same clean environment as inside the sandbox, so that only the sandbox differs
const none = stdioSubject(command, { cwd: dir, env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp", LANG: process.env.LANG ?? "C.UTF-8" } });
const bwrap = stdioSubject(command, { sandbox: createSandbox({ mode: "bwrap", submission: dir, binds }) });

async function startStop(subject: typeof none): Promise<void> {
  const session = await subject.open("ag02");
  await session.close();
}

describe("a subject's start: spawn, handshake, stop", () => {
  bench("--sandbox none", () => startStop(none), { iterations: 20, time: 0 });
  bench("--sandbox bwrap", () => startStop(bwrap), { iterations: 20, time: 0 });
});
