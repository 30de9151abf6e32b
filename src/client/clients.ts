/**
 * Typed clients for a tree of service descriptors over one transport, and the interceptor that
 * sends the API token. Platform-neutral: nothing here imports from `node:`.
 */
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";

/** A tree of service descriptors (leaves) under names. */
export interface ServiceTree {
  readonly [name: string]: DescService | ServiceTree;
}

/** The tree of typed clients for a tree of services: the same names, a Client at each leaf. */
export type Clients<T> = { readonly [K in keyof T]: T[K] extends DescService ? Client<T[K]> : Clients<T[K]> };

/** Where the API token comes from: a fixed token, or a function asked before every call (to refresh it). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

/** Creates a client for every service of the tree, all sharing the transport. */
export function createClients<T extends ServiceTree>(tree: T, transport: Transport): Clients<T> {
  const out: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(tree)) {
    out[name] = isService(node) ? createClient(node, transport) : createClients(node, transport);
  }
  return out as Clients<T>;
}

/** Sends `Authorization: Bearer <token>` on every call, asking a token function each time. */
export function bearerToken(token: TokenSource): Interceptor {
  return (next) => async (req) => {
    const value = typeof token === "function" ? await token() : token;
    if (value !== undefined && value !== "") req.header.set("authorization", `Bearer ${value}`);
    return next(req);
  };
}

function isService(node: DescService | ServiceTree): node is DescService {
  return (node as { kind?: unknown }).kind === "service";
}
