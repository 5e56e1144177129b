// Every skipped test of a vitest JSON report, printed with its reason, and checked: a skip is allowed
// only when its name states "[needs: X, …]" (test/helpers/machine.mjs) and one of those needs is really
// missing on this machine. Exits with the number of skips without such a reason, or whose reason
// does not hold (at most 100), so .ci/run can count them as failed.
import { readFileSync } from "node:fs";
import { has, statedNeeds } from "../test/helpers/machine.mjs";

const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
let wrong = 0;
for (const file of report.testResults) {
  for (const test of file.assertionResults) {
    if (!["skipped", "pending", "todo"].includes(test.status)) continue;
    const stated = statedNeeds(test.fullName);
    const lacking = (stated ?? []).filter((need) => !has(need));
    const verdict = !stated ? "NOT ALLOWED: it states no [needs: …] the machine lacks" : lacking.length === 0 ? `NOT ALLOWED: ${stated.join(", ")} ${stated.length === 1 ? "is" : "are"} here` : `allowed: this machine lacks ${lacking.join(", ")}`;
    if (lacking.length === 0) wrong++;
    console.log(`skipped: ${test.fullName} (${verdict})`);
  }
}
process.exit(Math.min(wrong, 100));
