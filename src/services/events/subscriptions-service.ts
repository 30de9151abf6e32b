/**
 * The v2beta1 subscriptions service: the HTTP sinks a group's changes are delivered to
 * (docs/events.md). A subscription remembers its creator, whoever created it or last gave it another
 * sink: delivery sends an event only while the creator may read what it is about.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs, type Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { failedPrecondition, invalidArgument, notFound } from "../../domain/errors.js";
import {
  MAX_SUBSCRIPTIONS_PER_ORGANIZATION,
  subscriptionUpdatable,
  validateSink,
  validateSubscription,
  validateTypes,
  type SinkPolicy,
} from "../../domain/event-subscription-rules.js";
import {
  subscriptionSortable,
  subscriptionSortValue,
  type SubscriptionRecord,
  type SubscriptionSettings,
} from "../../domain/event-subscriptions.js";
import { hierarchyFilter } from "../../domain/hierarchy.js";
import { newChildUid, requireUid, rootOf } from "../../domain/uid.js";
import {
  ListSubscriptionsResponseSchema,
  SubscriptionSchema,
  type CreateSubscriptionRequest,
  type DeleteSubscriptionRequest,
  type GetSubscriptionRequest,
  type ListSubscriptionsRequest,
  type ReplaySubscriptionRequest,
  type Subscription,
  type UpdateSubscriptionRequest,
} from "../../gen/arbor/events/v2beta1/subscriptions_pb.js";
import type { Store } from "../../store/store.js";
import { callerOf, type CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { deletedOrNotFound, found, setFields, updateHead } from "../crud.js";
import { listRpc } from "../list-page.js";

const LIST = [Capability.CAP_EVENTS_SUBSCRIPTIONS_LIST];

/** The subscription as the API shows it, with how many events wait for it. */
async function subscriptionMessage(store: Store, s: SubscriptionRecord): Promise<Subscription> {
  const pending = await store.outbox.pending(s.cursor, { groupUid: s.parentUid, includeDescendants: s.includeDescendants });
  return create(SubscriptionSchema, {
    uid: s.uid,
    sink: s.sink,
    types: [...s.types],
    includeDescendants: s.includeDescendants,
    creator: s.creatorUid,
    createTime: timestampFromMs(s.createTime),
    updateTime: timestampFromMs(s.updateTime),
    ...(s.lastDeliveryTime !== undefined && { lastDeliveryTime: timestampFromMs(s.lastDeliveryTime) }),
    lastError: s.lastError,
    pending: BigInt(pending),
  });
}

export function createSubscriptionsService(deps: ServiceDeps) {
  const { store, clock, ids, pageTokens } = deps;
  const policy: SinkPolicy = { allowLoopback: deps.settings.allowHttpLoopbackSinks, allowPrivate: deps.settings.allowPrivateSinks };
  const message = (s: SubscriptionRecord) => subscriptionMessage(store, s);
  /** With events off nothing would ever be delivered: a new subscription, or a replay, would only mislead. */
  const requireEvents = (subject: string) => {
    if (!deps.settings.events)
      throw failedPrecondition(
        "EVENTS_OFF",
        subject,
        "events are off on this server (ARBOR_EVENTS=off): changes write no events and nothing is delivered; " +
          "existing subscriptions can be listed, read, updated and deleted",
      );
  };
  return {
    listSubscriptions: listRpc(pageTokens, {
      resource: "subscriptions",
      sortable: subscriptionSortable,
      sortValue: subscriptionSortValue,
      source: () => store.subscriptions,
      query: (req: ListSubscriptionsRequest) => ({ uidp: hierarchyFilter(req.uidp) }),
      visibleWith: LIST,
      respond: async (items, page) =>
        create(ListSubscriptionsResponseSchema, { subscriptions: await Promise.all(items.map(message)), ...page }),
    }),

    async getSubscription(req: GetSubscriptionRequest): Promise<Subscription> {
      const uid = requireUid("uid", req.uid);
      return message(found(await store.subscriptions.get(uid), "subscription", uid));
    },

    async createSubscription(req: CreateSubscriptionRequest, ctx: CallContext): Promise<Subscription> {
      const parent = requireUid("parent", req.parent);
      requireEvents(parent);
      const sent = req.subscription;
      if (sent === undefined) throw invalidArgument("subscription", "is required");
      const settings: SubscriptionSettings = { sink: sent.sink, types: [...sent.types], includeDescendants: sent.includeDescendants };
      validateSubscription(settings, policy);
      // The organization's row held while counting, so creates racing at the limit cannot pass it.
      const org = rootOf(parent);
      await store.groups.lock(org);
      if ((await store.subscriptions.count({ uidp: { descendantsOf: org } })) >= MAX_SUBSCRIPTIONS_PER_ORGANIZATION) {
        throw failedPrecondition(
          "SUBSCRIPTION_LIMIT",
          org,
          `an organization has at most ${MAX_SUBSCRIPTIONS_PER_ORGANIZATION} subscriptions`,
        );
      }
      const now = clock.now();
      const created = await store.subscriptions.insert({
        uid: newChildUid(ids, parent),
        parentUid: parent,
        ...settings,
        creatorUid: callerOf(ctx).uid,
        createTime: now,
        updateTime: now,
        cursor: { xid: 0, position: 0 },
        attempts: 0,
        nextAttemptTime: 0,
        lastError: "",
      });
      return message(created);
    },

    async updateSubscription(req: UpdateSubscriptionRequest, ctx: CallContext): Promise<Subscription> {
      const { sent, uid, mask } = updateHead("subscription", req.subscription, req.updateMask, subscriptionUpdatable, (s) =>
        setFields(SubscriptionSchema, s, ["sink", "types", "include_descendants"]),
      );
      const changes: Partial<SubscriptionSettings> = {};
      if (mask.has("sink")) validateSink((changes.sink = sent.sink), policy);
      if (mask.has("types")) validateTypes((changes.types = [...sent.types]));
      if (mask.has("include_descendants")) changes.includeDescendants = sent.includeDescendants;
      // A new sink makes the caller the creator: deliveries carry what whoever chose where they go
      // may read, so holding subscriptions.update reads nothing more than the caller could.
      return message(found(await store.subscriptions.update(uid, changes, clock.now(), callerOf(ctx).uid), "subscription", uid));
    },

    async replaySubscription(req: ReplaySubscriptionRequest): Promise<Subscription> {
      const uid = requireUid("uid", req.uid);
      requireEvents(uid);
      const from =
        req.from.case === "fromTime"
          ? { time: timestampMs(req.from.value) }
          : req.from.case === "fromEventId"
            ? { id: req.from.value }
            : undefined;
      if (from === undefined) throw invalidArgument("from", "from_time or from_event_id is required");
      const stored = found(await store.subscriptions.get(uid), "subscription", uid);
      const cursor = await store.outbox.before({ groupUid: stored.parentUid, includeDescendants: stored.includeDescendants }, from);
      if (cursor === undefined && req.from.case === "fromEventId") throw notFound("event", req.from.value);
      // Nothing at or after the time: delivery restarts after everything there is.
      const end = cursor ?? (await store.outbox.end());
      return message(found(await store.subscriptions.rewind(uid, end, clock.now()), "subscription", uid));
    },

    async deleteSubscription(req: DeleteSubscriptionRequest): Promise<Empty> {
      const uid = requireUid("uid", req.uid);
      return deletedOrNotFound(await store.subscriptions.delete(uid), "subscription", uid);
    },
  };
}
