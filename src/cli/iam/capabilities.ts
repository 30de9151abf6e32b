/**
 * `arbor iam capabilities list`: every capability a role can hold, with what it lets one do and
 * which built-in roles grant it. Read from the code, not the server: the catalogue is fixed per
 * release, so it works offline and before logging in.
 */
import type { Command } from "commander";
import { ALL_CAPABILITIES, capabilityEnumName, capabilityName } from "../../domain/capabilities.js";
import { capabilityDescription } from "../../domain/capability-descriptions.js";
import { BUILTIN_ROLES } from "../../domain/roles.js";
import { isTable, outputOption, resolveFormat } from "../output/format.js";
import { bold, colorAllowed, tableWidth, type CliIo } from "../output/io.js";
import { printData } from "../output/print.js";
import { renderTable } from "../output/table.js";
import { withExamples } from "../resource/help-text.js";

/** One capability as the command prints it. */
interface CapabilityRow {
  /** The dotted name roles and `--capabilities` take (`groups.list`). */
  name: string;
  /** The v2 JSON name (`CAP_IAM_GROUPS_LIST`). */
  enumName: string;
  number: number;
  description: string;
  /** The built-in roles that hold it. */
  builtinRoles: string[];
}

/** Every capability, in catalogue order. */
export function capabilityRows(): CapabilityRow[] {
  return ALL_CAPABILITIES.map((c) => ({
    name: capabilityName(c),
    enumName: capabilityEnumName(c),
    number: c,
    description: capabilityDescription(c),
    builtinRoles: [...BUILTIN_ROLES.values()].filter((r) => r.capabilities.has(c)).map((r) => r.name),
  }));
}

/** Adds `capabilities list` under iam. */
export function addCapabilitiesCommand(iam: Command, io: CliIo): void {
  const group = iam
    .command("capabilities")
    .description("capabilities: what roles grant, one permission each (read from this release, offline)");
  withExamples(group, ["arbor iam capabilities list"]);
  const list = group
    .command("list")
    .description("list every capability with what it allows and the built-in roles that hold it")
    .addOption(outputOption());
  withExamples(
    list,
    [
      "arbor iam capabilities list",
      "arbor iam capabilities list -o json | jq -r '.[].name'",
      "arbor iam roles create auditor --capabilities groups.list --capabilities audit.read",
    ],
    "Custom roles take the dotted names (--capabilities groups.list); v2 JSON uses the enum names.",
  );
  list.action((flags: { output?: string }) => {
    const format = resolveFormat(flags.output, io.stdout.isTTY === true);
    const rows = capabilityRows();
    if (isTable(format)) {
      const columns = [
        { header: "NAME", value: (r: CapabilityRow) => r.name },
        { header: "DESCRIPTION", value: (r: CapabilityRow) => r.description },
        { header: "BUILT-IN ROLES", value: (r: CapabilityRow) => r.builtinRoles.join(",") },
      ];
      io.stdout.write(
        renderTable(columns, rows, { width: tableWidth(io), wide: format === "wide", header: (h) => bold(h, colorAllowed(io)) }),
      );
      return;
    }
    printData(
      io,
      format,
      rows,
      rows.map((r) => r.name),
    );
  });
}
