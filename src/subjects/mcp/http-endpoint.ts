// The URL and headers that reach a server over HTTP, checked before anything is sent. Each
// problem is told in words that never quote what was given: a URL or a header may hold a token.

export interface Header {
  name: string;
  value: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters a header value may not hold (a tab is allowed, as in HTTP). */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Why `text` cannot be an MCP server's URL; undefined when it can. */
export function urlProblem(text: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1];
  if (scheme === undefined || /[\s\u0000-\u001f\u007f]/.test(text)) return "this is not a URL: give http://HOST:PORT/PATH";
  if (!/^https?$/i.test(scheme)) return `the scheme ${scheme.length <= 16 ? `${scheme.toLowerCase()}: ` : ""}is not supported: give an http:// or https:// URL`;
  const authority = /^[^:]+:\/\/([^/?#]*)/.exec(text)?.[1];
  if (authority === undefined || authority === "") return "this is not a URL: give http://HOST:PORT/PATH";
  if (authority.includes("@")) return "the URL holds credentials (USER:PASSWORD@): give a token with --mcp-header instead, never in the URL";
  const port = /:(\d*)$/.exec(authority.replace(/^\[[^\]]*\]/, ""))?.[1];
  if (port !== undefined && port !== "" && (port.length > 5 || Number(port) < 1 || Number(port) > 65_535)) return `the port ${port.length > 5 ? "given" : port} is out of range (1 to 65535)`;
  try {
    new URL(text);
  } catch {
    return "this is not a URL: give http://HOST:PORT/PATH";
  }
  return undefined;
}

/** `NAME: VALUE` read as a header, or why it cannot be one. */
export function headerOf(text: string): Header | { problem: string } {
  const at = text.indexOf(":");
  if (at === -1) return { problem: 'write it as "NAME: VALUE" (no colon was found)' };
  const name = text.slice(0, at).trim();
  if (!TOKEN.test(name)) return { problem: "the name before the colon is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)" };
  return checkedValue(name, text.slice(at + 1).trim());
}

/** A header given as a name and a value (the API's), checked as headerOf checks one. */
export function headerProblem(name: string, value: string): string | undefined {
  if (!TOKEN.test(name)) return "a header name is not a token (letters, digits and !#$%&'*+-.^_`|~ only)";
  const checked = checkedValue(name, value);
  return "problem" in checked ? checked.problem : undefined;
}

function checkedValue(name: string, value: string): Header | { problem: string } {
  if (CONTROL.test(value)) return { problem: `the value of ${name} holds a control character (CR, LF or another): refused, it would split the request` };
  // fetch refuses what Latin-1 cannot carry, quoting the value: refused here without it
  if (/[^\u0000-\u00ff]/.test(value)) return { problem: `the value of ${name} holds a character outside Latin-1, which a header cannot carry` };
  return { name, value };
}
