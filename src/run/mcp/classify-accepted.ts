import type { Answer } from "../../subjects/mcp/rpc.js";
import { errorText, toolFailed, names, resultText, saysError, unanswered, type Classed } from "./classify.js";

// How the answer to a VALID tools/call (--mcp-run) is classed: the tool ran, or its arguments
// were refused. A tool that ran may fail on its own (a city it does not know): that is the tool's
// answer, not a refusal, so only a validator's words make an isError a refusal. The rules, in the
// order applied; docs/mcp.md repeats the table.

/** Words only a validator uses: a refusal of the arguments, not a tool's own "not found". */
export const VALIDATION_MARKERS = /invalid|validation|required|expected|\bmust\b|\bshould\b|not allowed|unrecogni[sz]ed|unexpected|unknown (key|propert|field|argument|param)|additional propert|not one of|too (small|big|long|short)|at (least|most)|greater than|less than|\benum\b|schema|not a valid/i;

/** Classes the answer to a call the reference proved valid; `expected` names the property it is about, `properties` are the tool's. */
export function classifyAccepted(answer: Answer, expected: readonly (readonly string[])[], properties: ReadonlySet<string> = new Set()): Classed {
  switch (answer.kind) {
    case "hung":
    case "closed":
      return unanswered(answer)!;
    case "error": {
      const { code } = answer.error;
      const { text, shown } = errorText(answer.error);
      if (code === -32602) return { verdict: names(text, expected) ? "refused" : "refused without saying what", text: shown, rule: "-32602: the arguments were refused" };
      if (toolFailed(text, { properties })) return { verdict: "ran, then failed", text: shown, rule: `a JSON-RPC error (${String(code)}) whose text is the tool's own failure` };
      return { verdict: "unreadable refusal", text: shown, rule: `a JSON-RPC error other than -32602 (${String(code)}): no tool result` };
    }
    case "result": {
      const text = resultText(answer.result);
      const isError = (answer.result as { isError?: unknown } | undefined)?.isError === true;
      if (toolFailed(text, { properties })) return { verdict: "ran, then failed", text, rule: `${isError ? "isError" : "a normal result"} whose text is the tool's own failure` };
      if (isError) {
        if (VALIDATION_MARKERS.test(text)) return { verdict: names(text, expected) ? "refused" : "refused without saying what", text, rule: "isError in a validator's words" };
        return { verdict: "ran, then failed", text, rule: "isError without a validator's words: the tool's own failure" };
      }
      if (saysError(text) && VALIDATION_MARKERS.test(text)) return { verdict: "unreadable refusal", text, rule: "a normal result that says error in a validator's words" };
      return { verdict: "ran", text, rule: "a normal result" };
    }
  }
}

/** Whether the tool was seen to run: its result, or its own failure. */
export function ran(verdict: Classed["verdict"]): boolean {
  return verdict === "ran" || verdict === "ran, then failed";
}
