/**
 * `arbor iam invites`: codes that, redeemed at login, give a person a role in a group
 * (GroupInvitesService). The code is shown once, by create.
 */
import { GroupInvitesService } from "../../gen/arbor/iam/v2beta1/group_invites_pb.js";
import { fieldColumn, uidColumn, timeColumn } from "../output/cells.js";
import { resourceSpec } from "../resource/spec.js";
import { ROLE_LOOKUP, uidOf } from "./lookups.js";
import { boolean, duration } from "../resource/parsers.js";

/** Group invites as commands see them. */
export const INVITES = resourceSpec({
  noun: "invites",
  singular: "invite",
  service: GroupInvitesService,
  listRpc: "listGroupInvites",
  items: "groupInvites",
  named: false,
  scope: "subtree",
  hierarchical: true,
  description: "group invites: codes that give whoever logs in with them a role in a group",
  rpcs: { get: "getGroupInvite", create: "createGroupInvite", update: "updateGroupInvite", delete: "deleteGroupInvite" },
  body: "groupInvite",
  columns: [
    uidColumn(),
    fieldColumn("KEY ID", "keyId", 1),
    fieldColumn("ROLE", "role.name"),
    fieldColumn("EMAIL", "email", 1),
    fieldColumn("SINGLE USE", "singleUse", 1),
    timeColumn("EXPIRES", "expirationTime"),
  ],
  filters: [{ flags: "--key-id <id>", path: "keyId", help: "only the invite with this key id" }],
  fields: [
    {
      flags: "--role <role>",
      path: "roleUid",
      help: "the role the invited person gets (name or uid)",
      parse: uidOf(ROLE_LOOKUP),
      required: true,
      on: "create",
    },
    {
      flags: "--ttl <duration>",
      path: "ttl",
      help: "how long the invite works, at most 30d (e.g. 30m, 24h, 7d); on update, from now",
      parse: duration("--ttl"),
      required: true,
    },
    { flags: "--email <address>", path: "email", help: "only a person with this verified email may redeem it" },
    { flags: "--single-use", path: "singleUse", help: "the invite works once", on: "create" },
    {
      flags: "--single-use <true|false>",
      path: "singleUse",
      help: "whether the invite works only once",
      parse: boolean("--single-use"),
      on: "update",
    },
  ],
  defaultScoped: true,
  createsNamed: false,
  notes: { create: "The code is printed only now: hand it over with `arbor auth login --invite CODE`." },
  examples: {
    list: ["arbor iam invites list", "arbor iam invites list --key-id 3f2a9c"],
    get: ["arbor iam invites get 0123456789abcdef0123456789abcdef01234567/0123456789abcdef"],
    create: [
      "arbor iam invites create --parent engineering --role viewer --ttl 7d --single-use",
      "arbor iam invites create --role editor --ttl 24h -o json | jq -r .code",
    ],
    update: ["arbor iam invites update 0123456789abcdef0123456789abcdef01234567/0123456789abcdef --ttl 48h"],
    delete: ["arbor iam invites delete 0123456789abcdef0123456789abcdef01234567/0123456789abcdef"],
  },
});
