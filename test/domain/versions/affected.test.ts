import { describe, expect, it } from "vitest";
import type { OsvAffected, OsvEvent, OsvRange } from "../../../src/domain/osv.js";
import { affects, compileAffected } from "../../../src/domain/versions/affected.js";

const range = (type: OsvRange["type"], ...events: OsvEvent[]): OsvRange => ({ type, events });
const pkg = (ecosystem: string, ranges: OsvRange[], versions?: string[]): OsvAffected => ({
  package: { ecosystem, name: "p" },
  ranges,
  ...(versions ? { versions } : {}),
});

/** Checks each version's answer: "y" affected, "n" not affected, "?" cannot tell. */
function expectAnswers(affected: OsvAffected, answers: Record<string, "y" | "n" | "?">): void {
  const m = compileAffected(affected);
  for (const [version, want] of Object.entries(answers)) {
    const got = m.check(version);
    expect({ version, status: got.status }).toEqual({ version, status: { y: "affected", n: "not_affected", "?": "cannot_tell" }[want] });
    expect(affects(affected, version)).toEqual(got);
  }
}

describe("affects: the OSV schema's evaluation examples", () => {
  // ossf.github.io/osv-schema, "Examples".
  it("unfixed vulnerability: every version", () => {
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "0" })]), { "0.0.0": "y", "0.0.1-alpha": "y", "1.0.0": "y", "99.99.99": "y" });
  });

  it("fixed vulnerability: everything before 1.0.2", () => {
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "0" }, { fixed: "1.0.2" })]), {
      "0.0.0-alpha": "y",
      "1.0.1": "y",
      "1.0.2-rc.1": "y",
      "1.0.2": "n",
      "1.0.3": "n",
    });
  });

  it("multiple range: [1.0.0, 1.0.2) and [3.0.0, 3.2.5)", () => {
    const answers = {
      "0.9.9": "n",
      "1.0.0": "y",
      "1.0.1": "y",
      "1.0.2": "n",
      "2.0.0": "n",
      "3.0.0": "y",
      "3.2.4": "y",
      "3.2.5": "n",
      "4.0.0": "n",
    } as const;
    expectAnswers(
      pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { fixed: "1.0.2" }, { introduced: "3.0.0" }, { fixed: "3.2.5" })]),
      answers,
    );
    // The same events unsorted: the evaluation sorts them first.
    expectAnswers(
      pkg("npm", [range("SEMVER", { fixed: "3.2.5" }, { introduced: "3.0.0" }, { fixed: "1.0.2" }, { introduced: "1.0.0" })]),
      answers,
    );
    // And as two ranges.
    expectAnswers(
      pkg("npm", [
        range("SEMVER", { introduced: "3.0.0" }, { fixed: "3.2.5" }),
        range("SEMVER", { introduced: "1.0.0" }, { fixed: "1.0.2" }),
      ]),
      answers,
    );
  });

  it("last_affected vs fixed: 2.1.214 is affected with the one, not with the other", () => {
    expectAnswers(pkg("Maven", [range("ECOSYSTEM", { introduced: "0" }, { last_affected: "2.1.214" })]), {
      "2.1.213": "y",
      "2.1.214": "y",
      "2.1.214.1": "n",
      "2.1.215": "n",
    });
    expectAnswers(pkg("Maven", [range("SEMVER", { introduced: "0" }, { fixed: "2.1.214" })]), {
      "2.1.213": "y",
      "2.1.214": "n",
      "2.1.215": "n",
    });
  });

  it("limit events: affected only below a limit; * is infinity", () => {
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { limit: "2.0.0" })]), {
      "0.9.0": "n",
      "1.5.0": "y",
      "2.0.0": "n",
      "2.5.0": "n",
    });
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { limit: "*" })]), { "0.9.0": "n", "1.5.0": "y", "999.0.0": "y" });
    // Several limits: below any one of them will do.
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { fixed: "5.0.0" }, { limit: "2.0.0" }, { limit: "4.0.0" })]), {
      "1.5.0": "y",
      "3.0.0": "y",
      "4.0.0": "n",
    });
  });
});

describe("affects: edges", () => {
  it("introduced 0 means before every version, even ones below the text 0 in the ecosystem", () => {
    expectAnswers(pkg("PyPI", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" })]), {
      "0.dev0": "y",
      "0a1": "y",
      "0": "y",
      "1.0rc1": "y",
      "1.0": "n",
    });
  });

  it("is affected at introduced and at last_affected, not at fixed", () => {
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { fixed: "2.0.0" })]), { "1.0.0": "y", "2.0.0": "n" });
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { last_affected: "2.0.0" })]), {
      "1.0.0": "y",
      "2.0.0": "y",
      "2.0.1-0": "n",
    });
  });

  it("keeps the advisory's order among events at one version", () => {
    // Back to back: [1, 2) then [2, 3) cover 2.
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { fixed: "2.0.0" }, { introduced: "2.0.0" }, { fixed: "3.0.0" })]), {
      "2.0.0": "y",
      "3.0.0": "n",
    });
    // Empty: introduced and fixed at 1 cover nothing.
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { fixed: "1.0.0" })]), { "1.0.0": "n", "0.9.0": "n" });
    // A single version: introduced and last_affected at 1.
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "1.0.0" }, { last_affected: "1.0.0" })]), { "1.0.0": "y", "1.0.1": "n" });
  });

  it("reads equal spellings as one version in the ecosystem's order", () => {
    expectAnswers(pkg("PyPI", [range("ECOSYSTEM", { introduced: "1.0" }, { fixed: "1.0.1" })]), {
      "1.0.0": "y",
      "v1.0": "y",
      "1.0.post1": "y",
      "1.0.1": "n",
    });
    expectAnswers(pkg("Debian:12", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0-1" })]), {
      "1.0~rc1-1": "y",
      "0:1.0-0": "y",
      "1.0-1": "n",
      "1:0.1-1": "n",
    });
    expectAnswers(pkg("Alpine:v3.18", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.2.3-r1" })]), {
      "1.2.3-r0": "y",
      "1.2.3_rc1-r5": "y",
      "1.2.3-r1": "n",
      "1.2.3_p1-r0": "n",
    });
    expectAnswers(pkg("RubyGems", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" })]), { "1.0.a": "y", "1.0.0": "n" });
    expectAnswers(pkg("Maven", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" })]), {
      "1.0-SNAPSHOT": "y",
      "1.0.RC1": "y",
      "1.0.0.GA": "n",
      "1.0-sp1": "n",
    });
  });

  it("reads Go versions with their v prefix, in SEMVER ranges too", () => {
    expectAnswers(pkg("Go", [range("SEMVER", { introduced: "0" }, { fixed: "1.2.4" })]), {
      "v1.2.3": "y",
      "v1.2.4-0.20191109021931-daa7c04131f5": "y",
      "v1.2.4": "n",
      "1.2.4": "n",
    });
    // Elsewhere the prefix is not a version.
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "0" }, { fixed: "1.2.4" })]), { "v1.2.3": "?" });
  });

  it("matches the versions list exactly, and by order in an ecosystem with one", () => {
    expectAnswers(pkg("Hackage", [], ["1.0", "1.0.1"]), { "1.0": "y", "1.0.1": "y", "1.0.0": "n", "1.1": "n" });
    expectAnswers(pkg("PyPI", [], ["1.0.0", "2.0"]), { "1.0": "y", "2.0.0.0": "y", "1.0.1": "n" });
    expectAnswers(pkg("Go", [], ["1.2.3"]), { "v1.2.3": "y", "v1.2.4": "n" });
    // Even a text the ecosystem cannot read is affected when listed verbatim.
    expectAnswers(pkg("PyPI", [], ["weird-1"]), { "weird-1": "y" });
  });

  it("skips ECOSYSTEM ranges of ecosystems without an order, and GIT ranges", () => {
    expectAnswers(pkg("Hackage", [range("ECOSYSTEM", { introduced: "0" })], ["0.1"]), { "0.1": "y", "1.5": "n" });
    expectAnswers(pkg("npm", [{ type: "GIT", repo: "https://github.com/o/r", events: [{ introduced: "0" }] }]), { "1.0.0": "n" });
    expectAnswers({ ranges: [{ type: "GIT", repo: "https://github.com/o/r", events: [{ introduced: "0" }] }] }, { "1.0.0": "n" });
  });

  it("reads SEMVER ranges in SemVer whatever the ecosystem", () => {
    expectAnswers(pkg("Hackage", [range("SEMVER", { introduced: "1.0.0" }, { fixed: "2.0.0" })]), {
      "1.5.0": "y",
      "2.0.0": "n",
      "1.5": "?",
    });
    expectAnswers(pkg("PyPI", [range("SEMVER", { introduced: "1.0.0" }, { fixed: "2.0.0" })]), { "1.5.0": "y", "1.5a1": "?" });
  });
});

describe("affects: cannot tell", () => {
  it("when the version does not parse in its ecosystem, even with no range", () => {
    const answer = affects(pkg("PyPI", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" })]), "not a version");
    expect(answer).toEqual({
      status: "cannot_tell",
      cause: {
        subject: "version",
        value: "not a version",
        error: { ordering: "pep440", reason: "MALFORMED", at: 3, message: "unexpected character" },
      },
    });
    expectAnswers(pkg("Debian", [], ["1.0-1"]), { "bad version": "?", "": "?" });
    expect(affects(pkg("npm", []), "x".repeat(300))).toMatchObject({ status: "cannot_tell", cause: { error: { reason: "TOO_LONG" } } });
  });

  it("when an event does not parse and nothing else matched", () => {
    const affected = pkg("npm", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" })]);
    expect(affects(affected, "2.0.0")).toEqual({
      status: "cannot_tell",
      cause: {
        subject: "event",
        value: "1.0",
        error: { ordering: "semver", reason: "MALFORMED", at: 3, message: "expected major.minor.patch" },
      },
    });
    // Another range that matches still answers.
    expectAnswers(pkg("npm", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" }), range("SEMVER", { introduced: "1.5.0" })]), {
      "2.0.0": "y",
      "1.0.0": "?",
    });
    // And the versions list.
    expectAnswers(pkg("npm", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" })], ["2.0.0"]), { "2.0.0": "y" });
  });

  it("except where a range covers every version, as malicious package advisories do", () => {
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "0" })]), { "not-semver": "y", "1.0": "y" });
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "0" }, { limit: "*" })]), { "1.0": "y" });
    expectAnswers(pkg("npm", [range("SEMVER", { introduced: "0" }, { limit: "2.0.0" })]), { "1.0": "?" });
  });

  it("reports the version rather than an event when both fail", () => {
    const answer = affects(pkg("npm", [range("ECOSYSTEM", { introduced: "0" }, { fixed: "1.0" })]), "1.0");
    expect(answer).toMatchObject({ status: "cannot_tell", cause: { subject: "version", value: "1.0" } });
  });

  it("never throws, whatever the advisory holds", () => {
    const odd = pkg("Maven", [range("ECOSYSTEM", { introduced: "" }, { fixed: "\u0000" }), range("ECOSYSTEM", { limit: "x" })], ["", "1"]);
    expect(affects(odd, "1.0").status).toBe("affected");
    expect(affects(odd, "2.0").status).toBe("cannot_tell");
  });
});
