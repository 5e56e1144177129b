import { describe, expect, test } from "vitest";
import { attribute, idleActs, learn, newLineage } from "../../src/subjects/sandbox/attribute.js";
import { TraceParser, type TraceRecord } from "../../src/subjects/sandbox/strace-line.js";

// strace's lines as the witness reads them, written as strace 6 writes them (not made by the
// parser's own code), and which acts of a window are the call's.

const parse = (lines: string[], shown: string[] = []) => {
  const parser = new TraceParser(shown);
  return lines.flatMap((line) => parser.parse(line));
};
const whats = (records: TraceRecord[]) => records.flatMap((record) => (record.type === "act" ? [record.act.what] : []));

describe("a line of strace", () => {
  test("a program started, tried on PATH first, its arguments unescaped", () => {
    const records = parse([
      `812  execve("/usr/local/bin/git", ["git", "commit", "-m", "say \\"hi\\"\\n"], 0x7ffd4e0 /* 3 vars */) = -1 ENOENT (No such file or directory)`,
      `812  execve("/usr/bin/git", ["git", "commit", "-m", "say \\"hi\\"\\n"], 0x7ffd4e0 /* 3 vars */) = 0`,
    ]);
    expect(whats(records)).toEqual(['tried to start `git commit -m say "hi"\n` (ENOENT)', 'started `git commit -m say "hi"\n`']);
  });

  test("a connect counts from its attempt: an unfinished line is an act, its resumption is not another", () => {
    const records = parse([
      `900  connect(21, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("10.0.0.1")}, 16 <unfinished ...>`,
      `901  write(1, "{}\\n", 3) = 3`,
      `900  <... connect resumed>)              = -1 ETIMEDOUT (Connection timed out)`,
      `900  connect(22, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ECONNREFUSED (Connection refused)`,
      `900  sendto(23, "\\1\\2", 2, MSG_NOSIGNAL, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.53")}, 16) = 2`,
      `900  connect(24, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)`,
    ]);
    expect(whats(records)).toEqual(["connected to 10.0.0.1:443", "tried to connect to [::1]:80 (ECONNREFUSED)", "looked up a name: sent to 10.0.0.53:53"]);
    expect(records.filter((record) => record.type === "stdout")).toEqual([{ type: "stdout", pid: 901 }]);
  });

  test("a write outside the sandbox's own /tmp, but under /tmp when the folder is the machine's", () => {
    const records = parse(
      [
        `70  openat(AT_FDCWD, "/tmp/scratch.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 21`,
        `70  openat(AT_FDCWD, "/srv/data.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = -1 EROFS (Read-only file system)`,
        `70  openat(AT_FDCWD, "/tmp/class/alice/out.json", O_RDWR|O_CREAT, 0644) = -1 EROFS (Read-only file system)`,
        `70  openat(AT_FDCWD, "/srv/data.json", O_RDONLY|O_CLOEXEC) = 21`,
        `70  openat(AT_FDCWD, "/etc/hosts", O_RDONLY|O_CLOEXEC) = 21`,
        `70  openat(AT_FDCWD, "/usr/lib/python3/__pycache__/json.cpython-311.pyc.140", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = -1 EROFS (Read-only file system)`,
        `70  unlinkat(AT_FDCWD, "/srv/old.json", 0) = 0`,
        `70  renameat2(AT_FDCWD, "/tmp/a", AT_FDCWD, "/srv/b", RENAME_NOREPLACE) = 0`,
      ],
      ["/tmp/class/alice"],
    );
    expect(whats(records)).toEqual(["tried to write /srv/data.json (EROFS)", "tried to write /tmp/class/alice/out.json (EROFS)", "looked up a name: read /etc/hosts", "removed /srv/old.json", "renamed /tmp/a to /srv/b"]);
  });

  test("a child's pid returned inside the sandbox's pid namespace is read as strace's own, the pid its lines begin with", () => {
    const lines = [`11271 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 2 /* 11272 in strace's PID NS */`];
    expect(parse(lines)).toEqual([{ type: "clone", pid: 11271, child: 11272, thread: false }]);
  });

  test("a line that is not strace's is nothing", () => {
    expect(parse(["hello", `12  +++ exited with 0 +++`, `12  --- SIGCHLD {si_signo=SIGCHLD} ---`])).toEqual([]);
  });
});

describe("which acts of a window are the call's", () => {
  const call = `read(0, "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":5,\\"method\\":\\"tools/call\\",\\"params\\":{}}\\n", 65536) = 70`;
  const ping = `read(0, "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":6,\\"method\\":\\"ping\\"}\\n", 65536) = 40`;
  const answer = `write(1, "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":5,\\"result\\":{}}\\n", 36) = 36`;
  const exec = (program: string) => `execve("${program}", ["${program}"], 0x1 /* 3 vars */) = 0`;

  test("between the server's read of the call and its answer; after it, only by a process born for the call", () => {
    const records = parse([
      `10  ${exec("/bin/early")}`,
      `1  ${call}`,
      `1  clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 20`,
      `20  ${exec("/bin/during")}`,
      `1  ${answer}`,
      `20  ${exec("/bin/child-after")}`,
      `1  clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 30`,
      `30  ${exec("/bin/timer-after")}`,
      `1  ${ping}`,
      `1  write(1, "{}\\n", 3) = 3`,
    ]);
    const { blamed, late, anchored } = attribute(records, newLineage());
    expect(anchored).toBe(true);
    expect(blamed.map((act) => act.what)).toEqual(["started `/bin/during`", "started `/bin/child-after`"]);
    expect(late.map((act) => act.what)).toEqual(["started `/bin/early`", "started `/bin/timer-after`"]);
  });

  test("a process started outside any call (an update check's detached child) is background: its own acts are never the call's, a child it starts for the call is", () => {
    const lineage = newLineage();
    const fork = (child: number) => `clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = ${child}`;
    const lookup = `openat(AT_FDCWD, "/etc/resolv.conf", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`;
    // at start: a launcher (2) starts the server (3), which reads initialize; the server starts a checker (4) and a helper (5)
    learn(lineage, parse([`2  ${fork(3)}`, `3  read(0, "{\\"method\\":\\"initialize\\"}\n", 65536) = 30`, `3  ${fork(4)}`, `3  ${fork(5)}`, `3  write(1, "{}\n", 3) = 3`]), true);
    const records = parse([
      `3  ${call}`,
      `4  ${lookup}`,
      `5  ${fork(6)}`,
      `6  ${exec("/usr/bin/git")}`,
      `3  ${exec("/bin/own")}`,
      `3  ${answer}`,
      `3  ${ping}`,
      `3  write(1, "{}\n", 3) = 3`,
    ]);
    const { blamed, background } = attribute(records, lineage);
    expect(blamed.map((act) => act.what)).toEqual(["started `/usr/bin/git`", "started `/bin/own`"]);
    expect(background.map((act) => act.what)).toEqual(["looked up a name: read /etc/resolv.conf"]);
    // the launcher and the server, born at start too, are the server itself: never background
    const again = attribute(parse([`3  ${call}`, `2  ${exec("/bin/launcher-act")}`, `3  ${answer}`]), lineage);
    expect(again.blamed.map((act) => act.what)).toEqual(["started `/bin/launcher-act`"]);
  });

  test("in a window with no call, only the server's own processes' acts (its threads' too) are what it does by itself; a child a call started is that call's", () => {
    const lineage = newLineage();
    const fork = (child: number) => `clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = ${child}`;
    const thread = (child: number) => `clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f, parent_tid=0x7f, exit_signal=0, stack=0x7f, stack_size=0x7fff00, tls=0x7f} => {parent_tid=[${child}]}, 88) = ${child}`;
    const lookup = `openat(AT_FDCWD, "/etc/hosts", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`;
    // the server (3) with a worker thread (7); a call makes it start a child (8) that outlives the answer
    learn(lineage, parse([`3  read(0, "{\\"method\\":\\"initialize\\"}\n", 65536) = 30`, `3  ${thread(7)}`, `3  write(1, "{}\n", 3) = 3`]), true);
    attribute(parse([`3  ${call}`, `3  ${fork(8)}`, `3  ${answer}`, `3  ${ping}`, `3  write(1, "{}\n", 3) = 3`]), lineage);
    const idle = idleActs(parse([`7  ${lookup}`, `8  ${exec("/bin/still-at-work")}`, `3  ${ping}`, `3  write(1, "{}\n", 3) = 3`]), lineage);
    expect(idle.own.map((act) => act.what)).toEqual(["looked up a name: read /etc/hosts"]);
    expect(idle.all.map((act) => act.what)).toEqual(["looked up a name: read /etc/hosts", "started `/bin/still-at-work`"]);
  });

  test("without the server's read of the call, the whole window is the call's", () => {
    const { blamed, anchored } = attribute(parse([`10  ${exec("/bin/a")}`, `11  ${exec("/bin/b")}`]), newLineage());
    expect(anchored).toBe(false);
    expect(blamed.map((act) => act.what)).toEqual(["started `/bin/a`", "started `/bin/b`"]);
  });
});
