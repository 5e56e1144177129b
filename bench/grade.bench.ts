import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bench, describe } from "vitest";
import { PACKAGE_ROOT } from "../dist/corpus/load.js";

// A class graded in one command: 30 copies of the Python fixture, each built (py_compile) and
// scored on core in the bwrap sandbox, as the README's grading recipe does (needs `npm run build`
// and bwrap). Every iteration grades all 30 again (--force).

const COPIES = 30;
const root = mkdtempSync(join(tmpdir(), "tc-bench-grade-"));
const submissions = join(root, "submissions");
const kit = join(root, "kit");
mkdirSync(kit);
copyFileSync(join(PACKAGE_ROOT, "conformance", "adapters", "python", "adapter.py"), join(kit, "adapter.py"));
for (let i = 1; i <= COPIES; i++) {
  const dir = join(submissions, `student${String(i).padStart(2, "0")}`);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(PACKAGE_ROOT, "test", "fixtures", "python-impl", "toolreg.py"), join(dir, "toolreg.py"));
}
const main = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const args = [main, "grade", submissions, "--build", "python3 -m py_compile toolreg.py", "--subject", `python3 ${join(kit, "adapter.py")} toolreg.py`];
args.push("--sandbox", "bwrap", "--sandbox-bind", kit, "--out", join(root, "grades"), "--force");

describe(`grade: ${COPIES} submissions, built and scored in the sandbox`, () => {
  bench("tool-conformance grade --sandbox bwrap", () => {
    const result = spawnSync(process.execPath, args, { encoding: "utf8" });
    // exit 0: every submission got a whole report, whatever its score
    if (result.status !== 0) throw new Error(`grade exited with ${result.status}: ${result.stderr.slice(-500)}`);
  }, { iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 });
});
