/**
 * A TCP proxy a test controls, between Arbor and its database, to take the database away without
 * touching the shared server: `refuse` drops every connection and stops listening (new ones are
 * refused, as from a host that is down); `blackhole` holds every byte in both directions and
 * accepts new connections without ever answering (packets dropped by a broken network).
 * `restore` heals it: held bytes flow again, as TCP retransmission would deliver them.
 */
import net, { type Socket } from "node:net";

/** How the proxy treats connections. */
export type ProxyMode = "open" | "refuse" | "blackhole";

/** A running proxy. */
export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** Takes the target away in the given way. */
  cut(mode: Exclude<ProxyMode, "open">): Promise<void>;
  /** Brings the target back. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

/** Starts a proxy on a free loopback port to host:port. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  let mode: ProxyMode = "open";
  const pairs = new Set<Pair>();
  const held = new Set<Socket>();

  const forward = ({ client, upstream }: Pair) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const hold = ({ client, upstream }: Pair) => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  const server = net.createServer((client) => {
    client.on("error", () => client.destroy());
    if (mode === "blackhole") {
      held.add(client);
      client.once("close", () => held.delete(client));
      return;
    }
    const upstream = net.connect(port, host);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", drop);
    client.once("close", drop);
    upstream.once("close", drop);
    forward(pair);
  });
  const listen = (at: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(at, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const boundPort = await listen(0);

  return {
    port: boundPort,
    get mode() {
      return mode;
    },
    async cut(how) {
      mode = how;
      if (how === "refuse") {
        for (const p of [...pairs]) {
          p.client.destroy();
          p.upstream.destroy();
        }
        await stopListening();
      } else {
        for (const p of pairs) hold(p);
      }
    },
    async restore() {
      if (mode === "refuse") await listen(boundPort);
      for (const s of held) s.destroy();
      for (const p of pairs) {
        forward(p);
        p.client.resume();
        p.upstream.resume();
      }
      mode = "open";
    },
    async close() {
      for (const s of held) s.destroy();
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      if (server.listening) await stopListening();
    },
  };
}
