/**
 * The identities service's calls around the token exchange: LookupIdentity (the uid a person
 * gets from issuer and subject), ExplainExchange (the exchange's checks, shown to an operator)
 * and ExchangeToken (the exchange itself, over gRPC and Connect).
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { invalidArgument, notFound, unauthenticated } from "../../domain/errors.js";
import { userIdentityUid } from "../../domain/identities.js";
import { MAX_ISSUER_LENGTH } from "../../domain/oidc-rules.js";
import { requireUid } from "../../domain/uid.js";
import {
  ExchangeTokenResponseSchema,
  ExplainExchangeResponseSchema,
  LookupIdentityResponseSchema,
  type ExchangeTokenRequest,
  type ExchangeTokenResponse,
  type ExplainExchangeRequest,
  type ExplainExchangeResponse,
  type LookupIdentityRequest,
  type LookupIdentityResponse,
} from "../../gen/arbor/iam/v2beta1/identities_pb.js";
import type { ServiceDeps } from "../deps.js";

/** The longest subject accepted by a lookup. */
const MAX_SUBJECT_LENGTH = 1024;

/** LookupIdentity: the derived uid of (issuer, subject), whether or not that person has logged in. */
export function lookupIdentity(req: LookupIdentityRequest): LookupIdentityResponse {
  if (req.issuer === "") throw invalidArgument("issuer", "is required");
  if (req.issuer.length > MAX_ISSUER_LENGTH || !URL.canParse(req.issuer)) throw invalidArgument("issuer", "must be a URL");
  if (req.subject === "") throw invalidArgument("subject", "is required");
  if (req.subject.length > MAX_SUBJECT_LENGTH) throw invalidArgument("subject", `must be at most ${MAX_SUBJECT_LENGTH} characters`);
  return create(LookupIdentityResponseSchema, { uid: userIdentityUid(req.issuer, req.subject) });
}

/** ExplainExchange: every check an exchange of req.token for the identity would run; issues nothing. */
export async function explainExchange(deps: ServiceDeps, req: ExplainExchangeRequest): Promise<ExplainExchangeResponse> {
  const uid = requireUid("uid", req.uid);
  if (req.token === "") throw invalidArgument("token", "is required");
  const identity = await deps.store.identities.get(uid);
  if (identity === undefined) throw notFound("identity", uid);
  const audience = req.audience === "" ? deps.exchange.defaultAudience : req.audience;
  const { checks, passed } = await deps.exchange.evaluate(identity.relationship, req.token, audience);
  return create(ExplainExchangeResponseSchema, {
    checks: checks.map(({ check, passed, reason }) => ({ check, passed, reason })),
    wouldIssue: passed,
  });
}

/**
 * ExchangeToken: the exchange of `{auth_url}/sts/exchange`, its parameters as fields. Like the
 * HTTP endpoint it answers every refusal with UNAUTHENTICATED, a missing token included.
 */
export async function exchangeToken(deps: ServiceDeps, req: ExchangeTokenRequest): Promise<ExchangeTokenResponse> {
  if (req.token === "") throw unauthenticated("EXCHANGE_TOKEN_REQUIRED");
  const issued = await deps.exchange.exchange({ token: req.token, audience: req.aud, identity: req.identity });
  return create(ExchangeTokenResponseSchema, { token: issued.token, expiry: timestampFromMs(issued.expiry) });
}
