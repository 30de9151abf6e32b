/**
 * The capability catalogue. The proto enum (arbor.api.v1.Capability) is its single source: each
 * value carries its dotted name as an option, read here once.
 */
import { getOption } from "@bufbuild/protobuf";
import { Capability, CapabilitySchema, name as capabilityNameOption } from "../gen/arbor/api/v1/authz_pb.js";

export { Capability };

const byValue = new Map<Capability, string>();
const byName = new Map<string, Capability>();
for (const value of CapabilitySchema.values) {
  if (value.number === Capability.CAPABILITY_UNSPECIFIED) continue;
  const dotted = getOption(value, capabilityNameOption);
  byValue.set(value.number, dotted);
  byName.set(dotted, value.number);
}

/** Every capability, in catalogue order. */
export const ALL_CAPABILITIES: readonly Capability[] = [...byValue.keys()];

/** The dotted name of a capability (`groups.list`). */
export function capabilityName(cap: Capability): string {
  const name = byValue.get(cap);
  if (name === undefined) throw new RangeError(`unknown capability ${cap}`);
  return name;
}

/** The capability with a dotted name, or undefined. */
export function capabilityByName(name: string): Capability | undefined {
  return byName.get(name);
}

/** The proto enum name of a capability (`CAP_IAM_GROUPS_LIST`), as v2 JSON spells it. */
export function capabilityEnumName(cap: Capability): string {
  const value = CapabilitySchema.values.find((v) => v.number === cap);
  if (value === undefined) throw new RangeError(`unknown capability ${cap}`);
  return value.name;
}
