/**
 * The URLs a server answers by. Configured ones are fixed; the defaults name the port, which is
 * known only once the listener is bound (port 0 picks one), so every reader asks here rather
 * than holding a copy made too early.
 */
import { baseUrlOf, errorDomainOf, issuerUrlOf, type Config } from "../config.js";

export interface ServerUrls {
  /** {base_url}: where the API is, and the audience of its tokens. */
  base(): string;
  /** {auth_url}: the issuer of Arbor's tokens and the home of the login endpoints. */
  issuer(): string;
  /** The suffix of every error domain (`iam.<domain>`). */
  domain(): string;
  /** The port the listener is bound to (the configured one until it is). */
  readonly port: number;
  /** Records the port the listener was bound to. */
  bound(port: number): void;
}

export function createServerUrls(config: Config): ServerUrls {
  let port = config.port;
  return {
    base: () => baseUrlOf(config, port),
    issuer: () => issuerUrlOf(config, port),
    domain: () => errorDomainOf(config, port),
    get port() {
      return port;
    },
    bound(p) {
      port = p;
    },
  };
}
