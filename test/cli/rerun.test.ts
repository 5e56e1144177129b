import { describe, expect, it } from "vitest";
import { rerunCommand } from "../../src/cli/rerun.js";

// The rerun line a report gives under each failing row: what a student types in their own folder.

describe("the rerun command", () => {
  const base = { profile: "ag02", level: "messages" } as const;

  it("names the subject without the grader's folders", () => {
    expect(rerunCommand(undefined, { ...base, subject: "python3 /home/grader/kit/adapter.py toolreg.py" }, ["core"])).toBe("tool-conformance score --subject 'python3 adapter.py toolreg.py' --tier core");
  });

  it("starts with the build when the subject is built first (a Go student has no ./adapter until then)", () => {
    const line = rerunCommand(undefined, { ...base, subject: "env GORACE=halt_on_error=1 ./adapter", rerunBuild: "sh /home/grader/go-kit/build.sh" }, ["core"]);
    expect(line).toBe("sh build.sh && tool-conformance score --subject 'env GORACE=halt_on_error=1 ./adapter' --tier core");
  });

  it("has no build step for an empty build", () => {
    expect(rerunCommand(undefined, { ...base, subject: "./adapter", rerunBuild: "  " }, ["core"])).toBe("tool-conformance score --subject ./adapter --tier core");
  });
});
