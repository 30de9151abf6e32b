/**
 * `arbor events subscriptions`: the HTTP sinks a group's changes are delivered to as CloudEvents
 * (SubscriptionsService, docs/events.md).
 */
import { SubscriptionsService } from "../../gen/arbor/events/v2beta1/subscriptions_pb.js";
import { fieldColumn, uidColumn, timeColumn } from "../output/cells.js";
import { boolean } from "../resource/parsers.js";
import type { ResourceSpec } from "../resource/spec.js";

const UID = "0123456789abcdef0123456789abcdef01234567/0123456789abcdef";

/** Subscriptions as commands see them. */
export const SUBSCRIPTIONS: ResourceSpec = {
  noun: "subscriptions",
  singular: "subscription",
  service: SubscriptionsService,
  listRpc: "listSubscriptions",
  items: "subscriptions",
  named: false,
  scope: "subtree",
  hierarchical: true,
  description: "event subscriptions: HTTP sinks a group's changes are delivered to as CloudEvents",
  rpcs: { get: "getSubscription", create: "createSubscription", update: "updateSubscription", delete: "deleteSubscription" },
  body: "subscription",
  columns: [
    uidColumn(),
    fieldColumn("SINK", "sink"),
    fieldColumn("PENDING", "pending"),
    timeColumn("LAST DELIVERY", "lastDeliveryTime"),
    fieldColumn("LAST ERROR", "lastError", 1),
  ],
  fields: [
    { flags: "--sink <url>", path: "sink", help: "where events are POSTed: an https URL", required: true },
    {
      flags: "--types <type>",
      path: "types",
      help: "an event type, or a prefix ending in . (repeatable; none: every type)",
      shape: "list",
    },
    { flags: "--include-descendants", path: "includeDescendants", help: "send the events of the groups below too", on: "create" },
    {
      flags: "--include-descendants <true|false>",
      path: "includeDescendants",
      help: "whether the events of the groups below are sent too",
      parse: boolean("--include-descendants"),
      on: "update",
    },
  ],
  defaultScoped: true,
  createsNamed: false,
  notes: { update: "--types replaces the whole list." },
  examples: {
    list: ["arbor events subscriptions list"],
    get: [`arbor events subscriptions get ${UID}`],
    create: [
      "arbor events subscriptions create --parent acme --sink https://siem.example/arbor --include-descendants \\\n" +
        "      --types dev.arbor.api.iam.",
    ],
    update: [`arbor events subscriptions update ${UID} --sink https://siem.example/arbor/v2`],
    delete: [`arbor events subscriptions delete ${UID}`],
  },
};
