import { closeSync, readdirSync, readFileSync } from "node:fs";

// Only stdin, stdout and stderr cross into a sandbox. Node marks every descriptor it opens
// close-on-exec, but one this process inherited without the flag (a log the grader's shell left
// open on fd 200) is inherited in turn by every child, bwrap and the subject inside it included:
// bwrap passes its descriptors on. So before the first sandbox starts, every descriptor above 2
// without close-on-exec is closed here, except Node's IPC channel when it has one.

/** O_CLOEXEC in /proc/self/fdinfo's octal `flags:` line (Linux, every architecture Node runs on). */
const O_CLOEXEC = 0o2000000;

/** The descriptors above 2 this process holds without close-on-exec: what any child would inherit. */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    return []; // no /proc: nothing to read them by (bwrap needs Linux anyway)
  }
  const ipc = Number(process.env.NODE_CHANNEL_FD ?? -1);
  return names
    .map(Number)
    .filter((fd) => Number.isInteger(fd) && fd > 2 && fd !== ipc)
    .filter((fd) => {
      try {
        const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
        return flags !== null && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0;
      } catch {
        return false; // closed meanwhile (the directory's own descriptor)
      }
    });
}

/** Closes every descriptor a child would inherit besides stdio; returns those closed. */
export function closeInheritedDescriptors(): number[] {
  const closed: number[] = [];
  for (const fd of inheritableDescriptors()) {
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // already closed
    }
  }
  return closed;
}
