import { describe, expect, it } from "vitest";
import { leftText } from "../../src/run/progress.js";

// The progress bar's estimate of the time left: none from the first fast rows (a run's slow rows
// come later), and over the whole run's rate once it says something.

describe("the time left on the progress bar", () => {
  it("says nothing at 360 of 5,656 rows, however fast they went", () => {
    expect(leftText(360, 5_656, 4_000)).toBe("");
    expect(leftText(360, 5_656, 100_000)).toBe("");
  });

  it("says nothing in the first seconds, even past a tenth of the rows", () => {
    expect(leftText(600, 1_000, 500)).toBe("");
  });

  it("once a tenth of the rows and a few seconds have passed, the whole run's rate: 1,000 rows in 20 s leave 4,656 rows, 93.12 s", () => {
    expect(leftText(1_000, 5_656, 20_000)).toBe("  · 1 min 34 s left");
    expect(leftText(900, 1_000, 9_000)).toBe("  · 1 s left");
  });

  it("says nothing when done", () => {
    expect(leftText(1_000, 1_000, 60_000)).toBe("");
  });
});
