import { headerOf, urlProblem } from "../subjects/mcp/http-endpoint.js";
import { UsageError } from "./errors.js";

// --mcp-url and --mcp-header, checked before anything is sent: a URL with credentials, a port
// out of range, a scheme other than http(s), a header that would split the request are usage
// errors, told in one line that never quotes what was given (it may hold a token).

/** The URL of --mcp-url, or a UsageError. */
export function mcpUrlOf(url: string): string {
  const problem = urlProblem(url);
  if (problem !== undefined) throw new UsageError(`--mcp-url: ${problem}`);
  return url;
}

/** `--mcp-header "NAME: VALUE"`, each once (a name given again keeps its last value). */
export function headersOf(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  values.forEach((text, index) => {
    const header = headerOf(text);
    if ("problem" in header) throw new UsageError(`--mcp-header${values.length > 1 ? ` (the ${ordinal(index + 1)})` : ""}: ${header.problem}`);
    headers[header.name.toLowerCase()] = header.value;
  });
  return headers;
}

function ordinal(n: number): string {
  return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : `${n}th`;
}
