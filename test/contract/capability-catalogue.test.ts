import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_CAPABILITIES, capabilityName } from "../../src/domain/capabilities.js";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";
import { CATALOGUE_PATH, renderCapabilityCatalogue } from "../../src/docs/capability-catalogue.js";

const root = join(import.meta.dirname, "../..");

describe("docs/capabilities.md", () => {
  it("is what `npm run docs` generates from the code now (run it and commit the file)", () => {
    expect(readFileSync(join(root, CATALOGUE_PATH), "utf8")).toBe(renderCapabilityCatalogue());
  });

  it("names every capability and every built-in role with its uid", () => {
    const text = renderCapabilityCatalogue();
    for (const cap of ALL_CAPABILITIES) expect(text).toContain(`| \`${capabilityName(cap)}\` |`);
    for (const role of BUILTIN_ROLES.values()) expect(text).toContain(`| \`${role.name}\` | \`${role.uid}\` |`);
  });

  it("is linked from docs/api.md, which lists every built-in role's uid", () => {
    const api = readFileSync(join(root, "docs/api.md"), "utf8");
    expect(api).toContain("(capabilities.md)");
    for (const role of BUILTIN_ROLES.values()) expect(api).toContain(`| \`${role.name}\` | \`${role.uid}\` | ${role.description} |`);
  });
});
