// One line of `strace -f` output as what the witness needs of it: an act of the subject (a
// program started, a connection or name lookup tried, a file written), a new process or thread
// (for lineage), or a read of its stdin and a write of its stdout (where a call begins and ends,
// as the server saw it). Every other line is nothing. A string the subject chose (a path, an
// argument) reaches us escaped by strace, so it cannot forge a line of its own.

/** What a subject did that shows the tool ran, whatever its answer says. */
export interface Act {
  kind: "exec" | "connect" | "lookup" | "write";
  /** For people: `started \`git fetch\``, `tried to connect to 10.0.0.1:443 (ENETUNREACH)`, `wrote /data/x.json`. */
  what: string;
  /** The thread or process that did it (a pid as seen outside the sandbox). */
  pid: number;
  /** For a program started: its file's name. */
  program?: string;
}

export type TraceRecord =
  | { type: "act"; pid: number; act: Act }
  | { type: "clone"; pid: number; child: number; thread: boolean }
  | { type: "stdin"; pid: number; text: string }
  | { type: "stdout"; pid: number };

/** Syscalls traced: acts, lineage, and the stdin reads and stdout writes that bound a call. `?` lets a name this architecture lacks pass. */
export const TRACED = [
  "execve", "execveat",
  "connect", "sendto", "sendmsg",
  "openat", "?openat2", "?open", "?creat", "truncate",
  "?rename", "renameat", "?renameat2", "?unlink", "unlinkat", "?mkdir", "mkdirat", "?rmdir", "?link", "linkat", "?symlink", "symlinkat",
  "read", "write", "writev",
  "clone", "?clone3", "?fork", "?vfork",
];

/** Syscalls whose act is known when they start: a blocking connect counts from its attempt, not its end. */
const AT_ENTRY = new Set(["execve", "execveat", "connect", "sendto", "sendmsg", "openat", "openat2", "open", "creat", "truncate", "rename", "renameat", "renameat2", "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat"]);

/** Reads lines in order; keeps the start of a syscall another process's line interrupted. */
export class TraceParser {
  private readonly pending = new Map<number, string>();
  private readonly own: (path: string) => boolean;

  /** `shown`: the machine's folders the subject sees, where a write is never its own, even under /tmp. */
  constructor(shown: readonly string[] = []) {
    this.own = (path) => privatePath(path) && !shown.some((folder) => path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`));
  }

  /** The records of one line (without its newline). */
  parse(line: string): TraceRecord[] {
    const head = /^(\d+) +(.*)$/.exec(line);
    if (!head) return [];
    const pid = Number(head[1]);
    const body = head[2]!;
    const unfinished = /^(\w+)\((.*) <unfinished \.\.\.>$/.exec(body);
    if (unfinished) {
      this.pending.set(pid, `${unfinished[1]}(${unfinished[2]}`);
      // an attempt is an act already: the syscall may block, or never return
      return AT_ENTRY.has(unfinished[1]!) ? record(pid, unfinished[1]!, unfinished[2]!, undefined, this.own) : [];
    }
    const resumed = /^<\.\.\. (\w+) resumed>(.*)$/.exec(body);
    if (resumed) {
      const start = this.pending.get(pid);
      this.pending.delete(pid);
      if (start === undefined || AT_ENTRY.has(resumed[1]!)) return [];
      return complete(pid, start + resumed[2]!, this.own);
    }
    return complete(pid, body, this.own);
  }
}

type Own = (path: string) => boolean;

function complete(pid: number, body: string, own: Own): TraceRecord[] {
  const call = /^(\w+)\((.*)\) +=\s+(-?\d+|\?|0x[0-9a-f]+)(.*)$/.exec(body);
  if (!call) return [];
  const [, name, args, value, rest] = call as unknown as [string, string, string, string, string];
  const error = Number(value) < 0 ? (/^\s*(E[A-Z0-9]+)/.exec(rest)?.[1] ?? "an error") : undefined;
  // a pid returned inside the sandbox's pid namespace, as strace's own (--pidns-translation): the one its lines begin with
  const translated = /^\s*\/\* (\d+) in strace's PID NS \*\//.exec(rest)?.[1];
  return record(pid, name, args, { value: Number(translated ?? value), error }, own);
}

type Outcome = { value: number; error: string | undefined } | undefined;

function record(pid: number, name: string, args: string, outcome: Outcome, own: Own): TraceRecord[] {
  const act = (kind: Act["kind"], what: string): TraceRecord[] => [{ type: "act", pid, act: { kind, what, pid } }];
  switch (name) {
    case "read":
      return outcome && outcome.value > 0 && /^0, /.test(args) ? [{ type: "stdin", pid, text: args.slice(3) }] : [];
    case "write":
    case "writev":
      return outcome && outcome.value > 0 && /^1, /.test(args) ? [{ type: "stdout", pid }] : [];
    case "clone":
    case "clone3":
    case "fork":
    case "vfork":
      return outcome && outcome.value > 0 ? [{ type: "clone", pid, child: outcome.value, thread: /CLONE_THREAD/.test(args) }] : [];
    case "execve":
    case "execveat": {
      const strings = quoted(name === "execveat" ? args.replace(/^[^,]*, /, "") : args);
      const argv = argvOf(args) ?? strings.slice(0, 1);
      const shown = clip(argv.join(" ") || strings[0] || "?");
      const what = failed(outcome) ? `tried to start \`${shown}\` (${outcome!.error})` : `started \`${shown}\``;
      return [{ type: "act", pid, act: { kind: "exec", what, pid, program: (strings[0] ?? "").split("/").pop() ?? "" } }];
    }
    case "connect":
    case "sendto":
    case "sendmsg": {
      const address = inetAddress(args);
      if (!address) return [];
      const where = `${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
      const verb = name === "connect" ? "connect to" : "send to";
      const done = name === "connect" ? "connected to" : "sent to";
      const tried = failed(outcome) && outcome!.error !== "EINPROGRESS";
      const text = tried ? `tried to ${verb} ${where} (${outcome!.error})` : `${done} ${where}`;
      return address.port === 53 ? act("lookup", `looked up a name: ${text}`) : act("connect", text);
    }
    default:
      return fileAct(name, args, outcome, act, own);
  }
}

function fileAct(name: string, args: string, outcome: Outcome, act: (kind: Act["kind"], what: string) => TraceRecord[], own: Own): TraceRecord[] {
  const paths = quoted(args);
  const path = paths[0];
  if (path === undefined) return [];
  const said = (verb: string, shown: string) => (failed(outcome) ? `tried to ${verb} ${shown} (${outcome!.error})` : `${PAST[verb] ?? verb} ${shown}`);
  if (name === "openat" || name === "openat2" || name === "open") {
    if (RESOLVER_FILES.has(path)) return act("lookup", `looked up a name: read ${path}`);
    const flags = /"(?:[^"\\]|\\.)*"(?:\.\.\.)?, ([A-Z0-9_|]+)/.exec(args)?.[1] ?? "";
    const writes = name === "openat2" ? /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/.test(args) : /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/.test(flags);
    if (!writes || own(path)) return [];
    return act("write", said("write", relativeTo(args, path)));
  }
  const verb = VERBS[name];
  if (verb === undefined) return [];
  // each path a syscall names: the act is outside the sandbox's own /tmp when any of them is
  const named = name === "symlink" || name === "symlinkat" ? paths.slice(1) : paths.slice(0, name.startsWith("rename") || name.startsWith("link") ? 2 : 1);
  if (named.every(own)) return [];
  return act("write", said(verb, named.map(clip).join(" to ")));
}

const VERBS: Record<string, string> = { creat: "write", truncate: "write", rename: "rename", renameat: "rename", renameat2: "rename", unlink: "remove", unlinkat: "remove", rmdir: "remove", mkdir: "make", mkdirat: "make", link: "link", linkat: "link", symlink: "link", symlinkat: "link" };
const PAST: Record<string, string> = { write: "wrote", rename: "renamed", remove: "removed", make: "made", link: "linked" };

/** The resolver's own files: reading them is a name lookup under way. */
const RESOLVER_FILES = new Set(["/etc/hosts", "/etc/resolv.conf"]);

/**
 * Paths the sandbox gives the subject for itself (its /tmp and /dev/shm, its own /proc, the
 * harmless devices), and Python's bytecode caches (written as a module is first imported: an
 * import is not the tool running).
 */
export function privatePath(path: string): boolean {
  return /^\/(tmp|dev\/shm)(\/|$)/.test(path) || /^\/dev\/(null|zero|full|random|urandom|tty|ptmx|pts\/.*|std(in|out|err)|fd\/.*)$/.test(path) || /^\/proc\/(self|thread-self|\d+)\//.test(path) || /(^|\/)__pycache__(\/|$)|\.pyc$/.test(path);
}

/** A path relative to a folder descriptor other than the working directory, shown so. */
function relativeTo(args: string, path: string): string {
  const dirfd = /^(-?\d+), "/.exec(args)?.[1];
  return clip(dirfd !== undefined && !path.startsWith("/") ? `(folder fd ${dirfd})/${path}` : path);
}

function failed(outcome: Outcome): boolean {
  return outcome?.error !== undefined;
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** strace's C-escaped strings in `text`, unescaped, in order. */
export function quoted(text: string): string[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => unescape(match[1]!));
}

/** The argv array of an execve: the strings between its `[` and `]`. */
function argvOf(args: string): string[] | undefined {
  const start = /^(?:-?\d+, |AT_FDCWD, )?"(?:[^"\\]|\\.)*"(?:\.\.\.)?, \[/.exec(args);
  if (!start) return undefined;
  const list: string[] = [];
  const string = /"((?:[^"\\]|\\.)*)"(\.\.\.)?|(\])|([^",\]\s][^,\]]*)/g;
  string.lastIndex = start[0].length;
  for (let match = string.exec(args); match; match = string.exec(args)) {
    if (match[3]) break;
    if (match[1] !== undefined) list.push(unescape(match[1]) + (match[2] ? "…" : ""));
  }
  return list;
}

function unescape(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_, code: string) => {
    if (code[0] === "x") return String.fromCharCode(parseInt(code.slice(1), 16));
    if (/^[0-7]+$/.test(code)) return String.fromCharCode(parseInt(code, 8));
    return ({ n: "\n", t: "\t", r: "\r", v: "\v", f: "\f" } as Record<string, string>)[code] ?? code;
  });
}

/** An inet address in a sockaddr strace printed (connect's, sendto's, sendmsg's msg_name). */
function inetAddress(args: string): { host: string; port: number } | undefined {
  const v4 = /sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/.exec(args);
  if (v4) return { host: v4[2]!, port: Number(v4[1]) };
  const v6 = /sa_family=AF_INET6, sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([^"]+)"/.exec(args);
  if (v6) return { host: v6[2]!, port: Number(v6[1]) };
  return undefined;
}
