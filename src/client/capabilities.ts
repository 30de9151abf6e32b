/**
 * The capability catalogue as a client spells it: each capability's dotted name (`groups.list`),
 * read from the proto enum's option as the server reads it (src/domain/capabilities.ts; the
 * client may import only the generated code, so the few lines are repeated here).
 */
import { getOption } from "@bufbuild/protobuf";
import { Capability, CapabilitySchema, name as capabilityNameOption } from "../gen/arbor/api/v1/authz_pb.js";

const byValue = new Map<Capability, string>();
for (const value of CapabilitySchema.values) {
  if (value.number !== Capability.CAPABILITY_UNSPECIFIED) byValue.set(value.number, getOption(value, capabilityNameOption));
}

/** Every capability, in catalogue order. */
export const CAPABILITIES: readonly Capability[] = [...byValue.keys()];

/** The dotted name of a capability (`groups.list`); the number as text for one this client does not know. */
export function capabilityName(cap: Capability): string {
  return byValue.get(cap) ?? String(cap);
}
