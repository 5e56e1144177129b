import { fileURLToPath } from "node:url";
import { bench, describe } from "vitest";
import { fuzz, type FuzzOptions } from "../dist/fuzz/fuzz.js";
import { inProcessSubject } from "../dist/subjects/in-process.js";
import { stdioSubject } from "../dist/subjects/stdio.js";

// Differential fuzzing throughput: 2,000 generated cases a run, each made into a row by the
// reference and sent to the subject, in-process and over stdio (process start included; needs
// `npm run build`). Cases per second = 2,000 / mean time per run.

const CASES = 2_000;
const cli = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const options: FuzzOptions = { profile: "ag02", level: "messages", tiers: ["core"], seed: 1, runs: CASES, timeMs: 600_000, requestTimeoutMs: 10_000 };

describe(`fuzz: ${CASES} cases against the reference`, () => {
  bench("in-process", async () => {
    await fuzz(inProcessSubject("reference"), options);
  }, { iterations: 5, time: 0 });

  bench("stdio adapter, process start included", async () => {
    await fuzz(stdioSubject(`node ${JSON.stringify(cli)} adapter`), options);
  }, { iterations: 5, time: 0 });
});
