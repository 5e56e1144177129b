import * as reference from "../../src/index.js";
import { conformanceSuite } from "../../src/vitest.js";

// tool-conformance/vitest as a user's suite declares it: the reference, each selected row a test of
// its own (named by its id, under its section). test/project/vitest-entry.test.ts runs a suite of a mutant
// in a child vitest and reads how its rows fail.

conformanceSuite({ subject: { api: reference, label: "reference" }, filter: ["validate/type/*", "definitions/*", "call/panic/*"] });
