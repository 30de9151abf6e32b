/**
 * What the Get, Update and Delete RPCs of every resource share: NOT_FOUND for what is not there,
 * and the head of an update (the resource sent, its uid, the fields the update mask names).
 */
import { create, isFieldSet, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { EmptySchema, timestampFromMs, type Empty, type FieldMask } from "@bufbuild/protobuf/wkt";
import { invalidArgument, notFound } from "../domain/errors.js";
import { resolveUpdateMask, type Updatable } from "../domain/field-mask.js";
import { requireUid } from "../domain/uid.js";

/** A resource in a group with a name, as its record holds it. */
export interface NamedRecord {
  uid: string;
  name: string;
  description: string;
  createTime: number;
  updateTime: number;
}

/** The fields every named resource's message shows alike: uid, name, description and its times. */
export function namedFields(r: NamedRecord) {
  return {
    uid: r.uid,
    name: r.name,
    description: r.description,
    createTime: timestampFromMs(r.createTime),
    updateTime: timestampFromMs(r.updateTime),
  };
}

/** The record read, or NOT_FOUND (`<kind> <uid>`) when there is none. */
export function found<R>(record: R | null | undefined, kind: string, uid: string): R {
  if (record === undefined || record === null) throw notFound(kind, uid);
  return record;
}

/** The Empty answer of a Delete that deleted (deleted: the store's answer), else NOT_FOUND (`<kind> <uid>`). */
export function deletedOrNotFound(deleted: boolean, kind: string, uid: string): Empty {
  if (!deleted) throw notFound(kind, uid);
  return create(EmptySchema);
}

/** An update request as every Update RPC reads it first. */
export interface UpdateHead<M> {
  /** The resource sent. */
  sent: M;
  /** Its uid, checked. */
  uid: string;
  /** The fields (snake_case paths) to change: the mask's, else the populated ones (resolveUpdateMask). */
  mask: Set<string>;
}

/**
 * The head of an update: INVALID_ARGUMENT (`field`) when no resource is sent, then its uid
 * checked (`uid`), then the fields to change, `populated` naming those an update without a mask
 * changes.
 */
export function updateHead<M extends { uid: string }>(
  field: string,
  sent: M | undefined,
  updateMask: FieldMask | undefined,
  updatable: Updatable,
  populated: (sent: M) => readonly string[],
): UpdateHead<M> {
  if (sent === undefined) throw invalidArgument(field, "is required");
  const uid = requireUid("uid", sent.uid);
  return { sent, uid, mask: resolveUpdateMask(updateMask?.paths, updatable, populated(sent)) };
}

/**
 * The fields among `names` (proto field names) that message sets: for a field without presence
 * one that is not its zero value (not "", 0, false or empty), for the others one that is present.
 * What an update without a mask changes (gRPC sends no mask).
 */
export function setFields<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>, names: readonly string[]): string[] {
  return names.filter((name) => {
    const field = schema.fields.find((f) => f.name === name);
    if (field === undefined) throw new Error(`${schema.typeName} has no field ${name}`);
    return isFieldSet(message, field);
  });
}
