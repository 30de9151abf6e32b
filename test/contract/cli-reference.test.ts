import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { CLI_REFERENCE_PATH, renderCliReference } from "../../src/docs/cli-reference.js";

const root = join(import.meta.dirname, "../..");

describe("docs/cli.md", () => {
  it("is what `npm run docs` generates from the command tree now (run it and commit the file)", () => {
    expect(readFileSync(join(root, CLI_REFERENCE_PATH), "utf8")).toBe(renderCliReference(buildProgram()));
  });

  it("shows every command's usage and examples", () => {
    const text = renderCliReference(buildProgram());
    for (const usage of [
      "Usage: arbor iam groups list [options]",
      "Usage: arbor iam role-bindings create [options]",
      "Usage: arbor completion [options] <shell>",
    ]) {
      expect(text).toContain(usage);
    }
    expect(text).toContain("## Exit codes");
  });
});
