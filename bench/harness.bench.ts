import { fileURLToPath } from "node:url";
import { bench, describe } from "vitest";
import { loadCorpus } from "../dist/corpus/load.js";
import { runRows, selectRows, type RunOptions } from "../dist/run/runner.js";
import { TIERS } from "../dist/corpus/rows.js";
import { inProcessSubject } from "../dist/subjects/in-process.js";
import { stdioSubject } from "../dist/subjects/stdio.js";

// The whole ag02 corpus through the harness, end to end: in-process, and through the
// reference's stdio adapter with its process start included (needs `npm run build`).
// Rows per second = corpus rows / mean time per run.

const { rows } = selectRows(loadCorpus(), { profile: "ag02", tiers: [...TIERS], filters: [] });
const cli = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const options: RunOptions = { profile: "ag02", level: "messages", tiers: [...TIERS], progress: false };

describe(`the whole corpus (${rows.length} rows, ag02)`, () => {
  bench("in-process reference", async () => {
    await runRows(inProcessSubject("reference"), rows, options);
  }, { iterations: 5, time: 0 });

  bench("stdio reference adapter, process start included", async () => {
    await runRows(stdioSubject(`node ${JSON.stringify(cli)} adapter`), rows, options);
  }, { iterations: 5, time: 0 });
});
