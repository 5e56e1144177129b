import { distinctActs, type Observation } from "../../subjects/sandbox/witness.js";
import type { Answer } from "../../subjects/mcp/rpc.js";
import { resultText, saysError, type Classed } from "./classify.js";

// Rule 0 of docs/mcp.md: what the sandbox saw decides before any text. A call during which the
// server's processes started a program, reached for the network or wrote outside their own /tmp
// ran, whatever the answer says ("ran, then failed" when the answer is an error). Seeing nothing
// proves nothing (a tool may run in memory): the text's verdict stands. Every verdict says what
// was observed, or why nothing could be.

/** A classed answer and what the sandbox saw while it was given. */
export interface Observed extends Classed {
  /** `ran: started \`git fetch\``, `nothing observed`, or `not observed (why)`. */
  observed: string;
}

/** The verdict `classed` overruled by what the sandbox saw during the call, if it saw the tool act. */
export function observed(classed: Classed, answer: Answer, seen: Observation): Observed {
  if (!seen.watched) return { ...classed, observed: `not observed (${seen.why})` };
  const acts = distinctActs(seen.acts.map((act) => act.what));
  if (acts.length === 0) return { ...classed, observed: "nothing observed" };
  const said = `ran: ${listed(acts)}`;
  if (classed.verdict === "ran" || classed.verdict === "ran, then failed" || classed.verdict === "crashed" || classed.verdict === "hung") return { ...classed, observed: said };
  return { ...classed, verdict: failed(answer) ? "ran, then failed" : "ran", rule: `observed by the sandbox (its text alone said: ${classed.verdict})`, observed: said };
}

/** Whether the answer is an error of any form (a JSON-RPC error, isError, a result that says error). */
function failed(answer: Answer): boolean {
  if (answer.kind === "error") return true;
  if (answer.kind !== "result") return false;
  return (answer.result as { isError?: unknown } | undefined)?.isError === true || saysError(resultText(answer.result));
}

const MAX_SHOWN = 4;

function listed(acts: readonly string[]): string {
  const more = acts.length > MAX_SHOWN ? `; and ${acts.length - MAX_SHOWN} more` : "";
  return acts.slice(0, MAX_SHOWN).join("; ") + more;
}
