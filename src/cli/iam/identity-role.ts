/**
 * `--role` of `arbor iam identities create` (and of its presets): the identity and its role
 * binding at its own group in one command. The role is resolved before anything is made, so a
 * wrong name makes nothing. When the binding then fails (the caller may create identities but not
 * grant that role), the identity is deleted again: a retry of the same command works, and no
 * identity is left that nobody meant to keep. Only when that delete fails too does the message
 * name the identity left behind.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { IdentitiesService } from "../../gen/arbor/iam/v2beta1/identities_pb.js";
import { RoleBindingsService } from "../../gen/arbor/iam/v2beta1/role_bindings_pb.js";
import { parentOf } from "../../domain/uid.js";
import type { CommandContext } from "../resource/context.js";
import { resolveUid } from "../resource/resolve.js";
import type { CreateStep } from "../resource/spec.js";
import { ROLE_LOOKUP } from "./lookups.js";

/** The `--role` create step of identities. */
export const ROLE_STEP: CreateStep = {
  flags: "--role <role>",
  help: "also bind this role (name or uid) to the new identity at its group; if that fails, the identity is deleted again",
  async prepare(ctx, role) {
    const roleUid = await resolveUid(ctx, ROLE_LOOKUP, role);
    return (created) => bindOrUndo(ctx, created, roleUid, role);
  },
};

/** A failed --role binding, after the identity was deleted again (or could not be). */
export class RoleBindingFailed extends Error {
  override readonly name = "RoleBindingFailed";
}

async function bindOrUndo(ctx: CommandContext, created: JsonObject, roleUid: string, role: string): Promise<void> {
  const uid = String(created.uid);
  try {
    await ctx.api.call(RoleBindingsService, "createRoleBinding", {
      parent: parentOf(uid) ?? uid,
      roleBinding: { identityUid: uid, roleUid },
    });
  } catch (bindError) {
    const why = reason(bindError);
    try {
      await ctx.api.call(IdentitiesService, "deleteIdentity", { uid });
    } catch (deleteError) {
      throw new RoleBindingFailed(
        `identity ${uid} was created, but binding role ${role} failed (${why}), ` +
          `and deleting the identity failed too (${reason(deleteError)}): ` +
          `delete it with arbor iam identities delete ${uid}`,
      );
    }
    throw new RoleBindingFailed(
      `binding role ${role} to the new identity failed (${why}); the identity was deleted again, nothing was made`,
    );
  }
}

function reason(e: unknown): string {
  return e instanceof ConnectError ? `${e.rawMessage}, code ${e.code}` : (e as Error).message;
}
