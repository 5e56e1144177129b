import type { Act } from "../../subjects/sandbox/strace-line.js";
import { distinctActs, type Observation } from "../../subjects/sandbox/witness.js";
import type { McpClient } from "../../subjects/mcp/client.js";
import type { Answer } from "../../subjects/mcp/rpc.js";
import { resultText, saysError, type Classed } from "./classify.js";

// Rule 0 of docs/mcp.md: what the sandbox saw decides before any text. A call during which the
// server's processes started a program, reached for the network or wrote outside their own /tmp
// ran, whatever the answer says ("ran, then failed" when the answer is an error), once the same
// call sent again shows the same sort of act (a server's own timer may fall into one window); and,
// when the text named the argument in a refusal's words, once the server's own process, left a while
// with no call, does not (a retry timer of an earlier call that falls into every window). Seeing nothing
// proves nothing (a tool may run in memory): the text's verdict stands. Every verdict says what
// was observed, or why nothing could be.

/** A classed answer and what the sandbox saw while it was given. */
export interface Observed extends Classed {
  /** `ran: started \`git fetch\``, `nothing observed`, or `not observed (why)`. */
  observed: string;
  /** A hang the sandbox's sight overruled: the call ran, and no answer came (`hung: no answer within 5000 ms`). */
  unanswered?: string;
}

/** The verdict `classed` overruled by what the sandbox saw during the call, if it saw the tool act. */
export function observed(classed: Classed, answer: Answer, seen: Observation): Observed {
  if (!seen.watched) return { ...classed, observed: `not observed (${seen.why})` };
  const acts = distinctActs(seen.acts.map((act) => act.what));
  const once = seen.once?.length ? distinctActs(seen.once.map((act) => act.what)) : [];
  const everyCall = seen.everyCall?.length ? distinctActs(seen.everyCall.map((act) => act.what)) : [];
  const idle = seen.idle?.length ? distinctActs(seen.idle.map((act) => act.what)) : [];
  if (acts.length === 0 && idle.length > 0) return { ...classed, observed: `nothing of the call's own (the server's own process does as much with no call under way: ${listed(idle)})` };
  if (acts.length === 0 && everyCall.length > 0) return { ...classed, observed: `nothing of the tool's own (the server does as much on a call of a tool that does not exist: ${listed(everyCall)})` };
  if (acts.length === 0 && once.length > 0) return { ...classed, observed: `nothing of the call's own (seen once, not when it was sent again: ${listed(once)})` };
  if (acts.length === 0) return { ...classed, observed: "nothing observed" };
  const said = `ran: ${listed(acts)}`;
  if (classed.verdict === "ran" || classed.verdict === "ran, then failed" || classed.verdict === "crashed") return { ...classed, observed: said };
  // a call that hung while its tool acted ran: the hang stays said (the server stopped answering), and is not sent again
  if (classed.verdict === "hung") return { ...classed, verdict: "ran", rule: `observed by the sandbox, and no answer came (${classed.text}; a call that hung is not sent again)`, observed: said, unanswered: `hung: ${classed.text}` };
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

/** Whether what the sandbox saw would overrule the text's verdict: then the call is sent once more before it does (askAgain). */
export function wouldOverrule(classed: Classed, seen: Observation): boolean {
  return seen.watched && seen.acts.length > 0 && !["ran", "ran, then failed", "crashed", "hung"].includes(classed.verdict);
}

/** An act, by what it is rather than its details: a program by its name, else its kind (a name looked up, a connection, a write). */
const sortOf = (act: Act) => (act.kind === "exec" ? `exec ${act.program ?? ""}` : act.kind);

/** The sorts of act a server does on every call: those seen both times a tool that does not exist was called (none when not watched). */
export async function everyCallActs(client: McpClient, unlisted: string): Promise<Set<string>> {
  const sorts: Set<string>[] = [];
  for (let i = 0; i < 2; i++) {
    const window = client.watch();
    const answer = await client.call(unlisted, {});
    const answered = answer.kind !== "closed" && answer.kind !== "hung" && (await client.ping()).kind === "result";
    const seen = await window.close(answered);
    if (!answered || !seen.watched) return new Set();
    sorts.push(new Set(seen.acts.map(sortOf)));
  }
  return new Set([...sorts[0]!].filter((sort) => sorts[1]!.has(sort)));
}

/** A sort of act in words: `starts python3`, `looks up a name`. */
export function sortInWords(sort: string): string {
  if (sort.startsWith("exec ")) return `starts ${sort.slice(5)}`;
  return { lookup: "looks up a name", connect: "connects to an address", write: "writes a file" }[sort] ?? sort;
}

/** What the sandbox saw, the sorts of act the server does on every call set apart: they are not the tool's. */
export function apartFromEveryCall(seen: Observation, sorts: ReadonlySet<string>): Observation {
  if (!seen.watched || sorts.size === 0) return seen;
  const every = seen.acts.filter((act) => sorts.has(sortOf(act)));
  return every.length === 0 ? seen : { ...seen, acts: seen.acts.filter((act) => !sorts.has(sortOf(act))), everyCall: every };
}

/**
 * What the sandbox saw of a call sent twice: only its acts of a sort seen both times are the call's;
 * the rest (an update check, a timer's lookup that fell into one window) are kept apart as `once`.
 * A tool that runs acts each time it is called; a server's own timer does not keep its time with ours.
 */
export function seenTwice(first: Observation, second: Observation): Observation {
  if (!first.watched || !second.watched) return first;
  const again = new Set(second.acts.map(sortOf));
  return { ...first, acts: first.acts.filter((act) => again.has(sortOf(act))), once: first.acts.filter((act) => !again.has(sortOf(act))) };
}

/** What a server's own process did with no call under way, set apart from a call's acts of the same sorts: they are not the call's. */
export function apartFromIdle(seen: Observation, idle: Observation): Observation {
  if (!seen.watched || !idle.watched || idle.acts.length === 0) return seen;
  const sorts = new Set(idle.acts.map(sortOf));
  const apart = seen.acts.filter((act) => sorts.has(sortOf(act)));
  return apart.length === 0 ? seen : { ...seen, acts: seen.acts.filter((act) => !sorts.has(sortOf(act))), idle: apart };
}

/** The shortest and longest a server is left with no call, to see what it does by itself: about as long as the call took. */
const IDLE_MS = { least: 25, most: 1_000 };

/**
 * The call sent once more, watched: what was seen the first time, keeping only the sorts of act
 * seen both times. Then, if any are left and the text was a refusal that named the argument
 * (`named`), the server left alone about as long as the call took (`ms`), and the sorts its own
 * process did meanwhile set apart: a busy server's own act is no reason to doubt a plain refusal,
 * but only a plain one (a tool's failure worded as a refusal, on the same busy server, still ran).
 * `gone` when the server crashed, hung or stopped answering meanwhile (then the first time's
 * observation stands whole, and the server must be started again).
 */
export async function askAgain(client: McpClient, ask: () => Promise<Answer>, first: Observation, ms: number, named: boolean): Promise<{ seen: Observation; gone: boolean }> {
  const window = client.watch();
  const answer = await ask();
  const answered = answer.kind !== "closed" && answer.kind !== "hung" && (await client.ping()).kind === "result";
  const second = await window.close(answered);
  if (!answered) return { seen: first, gone: true };
  const seen = seenTwice(first, second);
  if (!named || !seen.watched || seen.acts.length === 0) return { seen, gone: false };
  const quiet = client.watchIdle();
  await new Promise((resolve) => setTimeout(resolve, Math.min(IDLE_MS.most, Math.max(IDLE_MS.least, ms))));
  const alive = (await client.ping()).kind === "result";
  const idle = await quiet.close(alive);
  return alive ? { seen: apartFromIdle(seen, idle), gone: false } : { seen: first, gone: true };
}
