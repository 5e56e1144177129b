import type { Fingerprint } from "../judge/diagnosis.js";
import type { Failure } from "../judge/symptom.js";
import { loadCatalog } from "../mutants/catalog.js";
import type { RowResult } from "../run/outcome.js";
import { WHAT } from "../run/mcp/checks.js";

// The seed's pitfalls as they show from outside an MCP server, as fingerprints for the diagnosis.
// A server's rows are its own tools', so no mutant has answered them: each pitfall's fingerprint
// is written here, on this run's rows, as the answer its mistake gives there (the tool runs, the
// server dies, the refusal names nothing), and the diagnosis compares answers by that sense as it
// does any subject's. `mcp-serve mutant:sNN` checks that each is how the mutant really answers.

interface McpSymptom {
  id: string;
  /** What the mistake looks like from outside. */
  symptom: string;
  /** A shorter title when the seed's does not fit what is seen over MCP. */
  title?: string;
  /** The rows it shows on. */
  rows: (row: RowResult) => boolean;
  /** How it shows there: one answer for all its rows, or one a row. */
  evidence: Failure[] | ((row: RowResult) => Failure[]);
  /** A tool that ran on arguments its schema refuses: each such row is harm, named on the rows that show it, whatever its share. */
  harm?: true;
  /** Of its rows, those that are no harm on their own. */
  harmless?: (row: RowResult) => boolean;
}

const isCall = (row: RowResult) => row.id.startsWith("mcp/");
// arguments that are not an object break tools/call's own schema: an SDK refuses them before any server code runs
const isArgumentCall = (row: RowResult) => isCall(row) && row.rule !== "mcp/type/object";
const ran: Failure[] = [{ level: "verdict", what: WHAT.refused, expected: { ran: false }, actual: { ran: true } }];
// --mcp-run's valid calls: the tool was refused a call the seed accepts
const isAccept = (row: RowResult) => row.id.startsWith("mcp-accept/");
const refusedValid: Failure[] = [{ level: "verdict", what: WHAT.accepted, expected: { ran: true }, actual: { ran: false } }];
const unnamed: Failure[] = [{ level: "paths", what: WHAT.named, expected: { named: true }, actual: { named: false } }];

export const MCP_SYMPTOMS: readonly McpSymptom[] = [
  { id: "s10", symptom: "the tool runs on arguments its own inputSchema refuses", rows: isArgumentCall, evidence: ran, harm: true },
  { id: "s06", symptom: "a call without a required property runs the tool", rows: (row) => row.rule === "mcp/required", evidence: ran, harm: true },
  { id: "s07", symptom: "a property outside properties gets through additionalProperties: false (stripped or ignored): the tool runs", rows: (row) => row.rule === "mcp/additionalProperties", evidence: ran, harm: true },
  {
    id: "s01",
    title: "numbers judged by their text",
    symptom: 'the string "3" passes where an integer is wanted (coerced), or, with --mcp-run, 3.0 is refused as an integer',
    rows: (row) => row.id.includes("/integer-as-string/") || row.rule === "mcp-accept/type/integer",
    evidence: (row) => (isAccept(row) ? refusedValid : ran),
    // either half is the pitfall: a server right on 3.0 still coerces "3"; a valid call refused is no harm done
    harm: true,
    harmless: isAccept,
  },
  { id: "s05", symptom: "with --mcp-run: a value equal to minimum or maximum is refused (bounds treated as exclusive)", rows: (row) => row.rule === "mcp-accept/minimum" || row.rule === "mcp-accept/maximum", evidence: refusedValid },
  { id: "s03", symptom: "with --mcp-run: a string of maxLength astral characters is refused (counted in UTF-16 units)", rows: (row) => row.rule === "mcp-accept/maxLength", evidence: refusedValid },
  { id: "s18", symptom: "with --mcp-run: a string of maxLength astral characters is refused (counted in UTF-8 bytes)", rows: (row) => row.rule === "mcp-accept/maxLength", evidence: refusedValid },
  { id: "s04", symptom: "with --mcp-run: a string the pattern matches mid-string is refused (the pattern anchored)", rows: (row) => row.rule === "mcp-accept/pattern", evidence: refusedValid },
  { id: "s09", symptom: "with --mcp-run: a number listed in enum or const, written otherwise (1.0 for 1), is refused", rows: (row) => row.rule === "mcp-accept/enum" || row.rule === "mcp-accept/const", evidence: refusedValid },
  { id: "s15", title: "an error the model cannot read", symptom: "a refusal is a JSON-RPC -32603 internal error or a normal result that says error, not an isError result or -32602", rows: isArgumentCall, evidence: [{ level: "verdict", what: WHAT.readable, expected: { readable: true }, actual: { readable: false } }] },
  { id: "s23", symptom: "a refusal does not name the argument that is wrong", rows: isArgumentCall, evidence: unnamed },
  { id: "s17", symptom: "an array element's refusal names the array but not which element", rows: (row) => row.rule === "mcp/items", evidence: [{ level: "paths", what: WHAT.named, expected: { named: true }, actual: { named: false, partly: true } }] },
  { id: "s11", symptom: "a call crashes or hangs the server", rows: (row) => isCall(row) || isAccept(row) || row.id.startsWith("mcp-server/"), evidence: [{ level: "verdict", what: WHAT.answers, expected: { answers: true }, actual: { died: "crashed" } }] },
  { id: "s13", symptom: "tools/list lists a name twice", rows: (row) => row.id === "mcp-list/duplicates", evidence: [{ level: "verdict", what: "no name is listed twice", expected: { unique: true }, actual: { unique: false } }] },
  { id: "s14", symptom: "a tool name is outside ^[A-Za-z0-9_-]{1,64}$", rows: (row) => row.id === "mcp-list/names", evidence: [{ level: "verdict", what: "every name matches ^[A-Za-z0-9_-]{1,64}$", expected: { valid: true }, actual: { valid: false } }] },
  { id: "s12", symptom: "tools/list is not sorted by name (MCP sets no order: catalog)", rows: (row) => row.id === "mcp-list/sorted", evidence: [{ level: "verdict", what: "tools/list is sorted by name", expected: { sorted: true }, actual: { sorted: false } }] },
];

/** The fingerprints of the pitfalls on this run's rows. */
export function mcpFingerprints(results: readonly RowResult[]): Fingerprint[] {
  const catalog = new Map(loadCatalog().map((mutant) => [mutant.id, mutant]));
  return MCP_SYMPTOMS.flatMap((s) => {
    const mutant = catalog.get(s.id);
    const rows = results.filter(s.rows);
    if (!mutant || rows.length === 0) return [];
    return [{ id: s.id, pitfall: mutant.pitfall, title: s.title ?? mutant.title, symptom: s.symptom, answers: Object.fromEntries(rows.map((row) => [row.id, typeof s.evidence === "function" ? s.evidence(row) : s.evidence])), ...(s.harm ? { harm: true } : {}), ...(s.harmless ? { harmless: rows.filter(s.harmless).map((row) => row.id) } : {}) }];
  });
}
