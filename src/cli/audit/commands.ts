/**
 * `arbor audit`: the audit log through the API (AuditService), for owners and whoever holds
 * audit.read, with the same filters, paging and output formats as every other list. Operators
 * holding the store read it with `arbor admin audit` instead.
 */
import type { Command } from "commander";
import { AuditService } from "../../gen/arbor/audit/v1beta1/audit_pb.js";
import { IDENTITY_LOOKUP, uidOf } from "../iam/lookups.js";
import { fieldColumn, textAt, timeColumn } from "../output/cells.js";
import type { CliIo } from "../output/io.js";
import { withExamples } from "../resource/help-text.js";
import { addGetCommand } from "../resource/item-commands.js";
import { addListCommand } from "../resource/list-command.js";
import { timestamp } from "../resource/parsers.js";
import { resourceSpec } from "../resource/spec.js";

/** Audit events as commands see them: read-only, unnamed, under the group each change was made in. */
export const AUDIT_EVENTS = resourceSpec({
  noun: "events",
  singular: "audit event",
  service: AuditService,
  listRpc: "listAuditEvents",
  items: "events",
  named: false,
  scope: "subtree",
  hierarchical: true,
  description: "the audit log: one event for every change made through the API, newest first",
  rpcs: { get: "getAuditEvent" },
  body: "event",
  columns: [
    timeColumn("TIME", "createTime"),
    fieldColumn("ACTOR", "actor.uid"),
    fieldColumn("ACTION", "action"),
    { header: "TYPE", value: (item) => textAt(item, "resourceType").split(".").at(-1) ?? "" },
    fieldColumn("RESOURCE", "resourceUid"),
  ],
  filters: [
    {
      flags: "--actor <identity>",
      path: "actorUid",
      help: "only changes made by this identity (uid, or the name of an identity in the default group)",
      parse: uidOf(IDENTITY_LOOKUP),
    },
    { flags: "--resource <uid>", path: "resourceUid", help: "only changes of this resource" },
    { flags: "--method <name>", path: "method", help: "only calls of this RPC (arbor.iam.v2beta1.GroupsService/DeleteGroup)" },
    {
      flags: "--since <time>",
      path: "createdSince",
      help: "only events created at or after this time (RFC 3339, such as 2026-01-01T00:00:00Z)",
      parse: timestamp("--since"),
    },
    {
      flags: "--before <time>",
      path: "createdBefore",
      help: "only events created before this time (RFC 3339)",
      parse: timestamp("--before"),
    },
  ],
  defaultScoped: true,
  createsNamed: false,
  notes: {
    list:
      "Lists the events under the groups where you hold audit.read (owners do), below the default group\n" +
      "when one is set. Orders: create_time (default, newest first), uid.",
  },
  examples: {
    list: [
      "arbor audit list",
      "arbor audit list --descendants-of acme --method arbor.iam.v2beta1.RoleBindingsService/CreateRoleBinding -o json",
      "arbor audit list --actor ci-bot --since 2026-03-01T00:00:00Z --before 2026-04-01T00:00:00Z --all",
      "arbor audit list --resource $(arbor iam groups get team -o id) --all -o yaml",
    ],
    get: ["arbor audit get 0123456789abcdef0123456789abcdef01234567/0123456789abcdef -o yaml"],
  },
});

/** Adds `arbor audit` (list, get) to program. */
export function addAuditApiCommands(program: Command, io: CliIo): void {
  const audit = program.command("audit").description("the audit log through the API (who changed what, when, before and after)");
  withExamples(audit, ["arbor audit list", "arbor audit list --method arbor.iam.v2beta1.GroupsService/DeleteGroup -o json"]);
  addListCommand(audit, AUDIT_EVENTS, io);
  addGetCommand(audit, AUDIT_EVENTS, io);
}
