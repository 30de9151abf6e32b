/**
 * The API, through the project's own typed client (Connect over fetch), with the signed-in
 * person's token; and what a failed call says: Arbor's message, the field it names, and the
 * preconditions that refused it.
 */
import { BadRequestSchema, ConnectError, PreconditionFailureSchema, createArborClient, type ArborClient } from "../../src/client/index.js";
import { accessToken } from "./auth.js";
import { BASE_URL } from "./config.js";

/** The client every view uses. */
export const api: ArborClient = createArborClient({ baseUrl: BASE_URL, token: accessToken });

/** A failed call as the console shows it. */
export interface Problem {
  message: string;
  /** The field the API names, if it names one. */
  field?: string;
  /** Preconditions that refused the change (what to remove first, say). */
  violations: { type: string; subject: string; description: string }[];
  /** The gRPC code's name, for a test or a reader who wants it. */
  code: string;
}

/** Turns any error into what to show. */
export function problemOf(e: unknown): Problem {
  const err = ConnectError.from(e);
  const field = err.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field;
  const violations = err
    .findDetails(PreconditionFailureSchema)
    .flatMap((p) => p.violations.map((v) => ({ type: v.type, subject: v.subject, description: v.description })));
  return { message: err.rawMessage, ...(field ? { field } : {}), violations, code: String(err.code) };
}

/** A group as the API answers it. */
export type Group = Awaited<ReturnType<ArborClient["iam"]["v2beta1"]["groups"]["getGroup"]>>;

/** An identity as the API answers it. */
export type Identity = Awaited<ReturnType<ArborClient["iam"]["v2beta1"]["identities"]["getIdentity"]>>;

/** A role as the API answers it. */
export type Role = Awaited<ReturnType<ArborClient["iam"]["v2beta1"]["roles"]["getRole"]>>;
/** A role binding as the API answers it. */
export type RoleBinding = Awaited<ReturnType<ArborClient["iam"]["v2beta1"]["roleBindings"]["getRoleBinding"]>>;

/** Every page of a list, for the small lists the console needs whole (the caller's own bindings, the roles). */
export async function allPages<T>(page: (token: string) => Promise<{ items: T[]; next: string | undefined }>, limit = 20): Promise<T[]> {
  const out: T[] = [];
  let token = "";
  for (let i = 0; i < limit; i++) {
    const { items, next } = await page(token);
    out.push(...items);
    if (!next) break;
    token = next;
  }
  return out;
}
export type { ArborClient };
