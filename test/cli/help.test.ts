/**
 * Every command's `--help` ends with examples: the test walks the whole command tree, so a new
 * command without them fails here.
 */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { helpOf } from "../../src/docs/cli-reference.js";

function everyCommand(root: Command): [string, Command][] {
  const out: [string, Command][] = [];
  const visit = (cmd: Command, path: string) => {
    out.push([path, cmd]);
    for (const sub of cmd.commands) visit(sub, `${path} ${sub.name()}`);
  };
  visit(root, root.name());
  return out;
}

describe("arbor --help", () => {
  const commands = everyCommand(buildProgram());

  it("covers the resource commands", () => {
    const paths = commands.map(([p]) => p);
    for (const noun of ["groups", "identities", "roles", "role-bindings", "identity-providers", "account-associations", "invites"]) {
      for (const verb of ["list", "get", "create", "update", "delete"]) expect(paths).toContain(`arbor iam ${noun} ${verb}`);
    }
    expect(paths).toEqual(
      expect.arrayContaining(["arbor iam groups tree", "arbor advisories list", "arbor advisories get", "arbor completion"]),
    );
  });

  for (const [path, cmd] of commands) {
    it(`${path} --help has a description and an Examples: section`, () => {
      const help = helpOf(cmd);
      expect(cmd.description(), path).not.toBe("");
      expect(help, path).toMatch(/\nExamples:\n {2}\S/);
    });
  }
});
