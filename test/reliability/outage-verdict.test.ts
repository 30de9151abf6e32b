/**
 * The store-outage harness's verdict (test/support/outage-verdict.ts): which requests it judges
 * and what it requires of them, on samples made up to sit on each edge of the outage.
 */
import { describe, expect, it } from "vitest";
import { outageViolations, startedDuring, type OutageSample, type OutageWindow } from "../support/outage-verdict.js";

const window: OutageWindow = { from: 10_000, to: 16_000, boundMs: 5_000, refusal: () => "http 503 code 14" };
const sample = (start: number, ms: number, outcome = "http 503 code 14"): OutageSample => ({ kind: "rest get", start, ms, outcome });

describe("the store-outage verdict", () => {
  it("judges every request started during the outage, including those that ended after it", () => {
    const straggler = sample(15_000, 6_000, "ok");
    const judged = startedDuring([sample(9_999, 20), sample(10_000, 20), straggler, sample(16_000, 20, "ok")], window);
    expect(judged).toEqual([sample(10_000, 20), straggler]);
  });

  it("finds a request that outlasted the bound by waiting for the store to come back", () => {
    expect(outageViolations([sample(10_500, 40), sample(14_000, 6_500, "ok")], window)).toEqual([
      "rest get started 4000 ms into the outage took 6500 ms (bound 5000 ms)",
    ]);
  });

  it("finds a request that ended during the outage other than refused", () => {
    expect(outageViolations([sample(11_000, 100, "ok"), sample(12_000, 100, "http 500 code 13")], window)).toEqual([
      "rest get started 1000 ms into the outage ended ok, not http 503 code 14",
      "rest get started 2000 ms into the outage ended http 500 code 13, not http 503 code 14",
    ]);
  });

  it("lets a request that ended after the store was back be served, within the bound", () => {
    expect(outageViolations([sample(15_500, 900, "ok"), sample(15_900, 50)], window)).toEqual([]);
  });
});
