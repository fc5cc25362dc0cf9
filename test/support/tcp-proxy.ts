import type { Socket } from "bun";

/** One direction of a proxied connection: what waits to be written to `to`, and whether its source ended. */
interface Pipe {
  to: Socket<Side> | undefined;
  pending: Uint8Array[];
  ended: boolean;
}

interface Side {
  /** Where this socket's bytes go. */
  out: Pipe;
  /** Where the bytes for this socket wait. */
  in: Pipe;
}

export interface TcpProxy {
  /** The port on 127.0.0.1 to connect to instead of the target. */
  port: number;
  /** A partition: bytes and closes stop crossing in either direction (connections still open, and wait). */
  hold(): void;
  /** Forwards what waited, and everything after. */
  release(): void;
  /** Destroys every proxied connection at once (both sides see a reset). */
  reset(): void;
  stop(): void;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target`, for tests that cut the path between a process and
 * PostgreSQL the way a network does: `hold()` stops forwarding without closing anything (sockets
 * stay open and silent, as in a partition), `reset()` kills the connections. `port` unset: one the
 * system picks; set: a server that comes up on a port its clients were already told.
 */
export function startTcpProxy(target: { host: string; port: number }, port = 0): TcpProxy {
  let held = false;
  const pairs = new Set<{ client: Socket<Side>; upstream?: Socket<Side> }>();

  const flush = (pipe: Pipe) => {
    if (held || !pipe.to) return;
    while (pipe.pending.length > 0) {
      const chunk = pipe.pending[0]!;
      const written = pipe.to.write(chunk);
      if (written < chunk.length) {
        pipe.pending[0] = chunk.subarray(Math.max(written, 0));
        return; // the rest goes on `drain`
      }
      pipe.pending.shift();
    }
    if (pipe.ended) pipe.to.end();
  };
  const forward = (pipe: Pipe, data: Uint8Array) => {
    pipe.pending.push(new Uint8Array(data));
    flush(pipe);
  };
  const ended = (pipe: Pipe) => {
    pipe.ended = true;
    flush(pipe);
  };

  const listener = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(client) {
        const toUpstream: Pipe = { to: undefined, pending: [], ended: false };
        const toClient: Pipe = { to: client, pending: [], ended: false };
        client.data = { out: toUpstream, in: toClient };
        const pair: { client: Socket<Side>; upstream?: Socket<Side> } = { client };
        pairs.add(pair);
        Bun.connect<Side>({
          hostname: target.host,
          port: target.port,
          data: { out: toClient, in: toUpstream },
          socket: {
            open(upstream) {
              pair.upstream = upstream;
              toUpstream.to = upstream;
              flush(toUpstream);
            },
            data: (upstream, data) => forward(upstream.data.out, data),
            drain: (upstream) => flush(upstream.data.in),
            end: (upstream) => ended(upstream.data.out),
            close: (upstream) => ended(upstream.data.out),
            error: (upstream) => ended(upstream.data.out),
          },
        }).catch(() => {
          ended(toClient);
        });
      },
      data: (client, data) => forward(client.data.out, data),
      drain: (client) => flush(client.data.in),
      end: (client) => ended(client.data.out),
      close(client) {
        ended(client.data.out);
        for (const pair of pairs) if (pair.client === client) pairs.delete(pair);
      },
      error: (client) => ended(client.data.out),
    },
  });

  return {
    port: listener.port,
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const { client, upstream } of pairs) {
        flush(client.data.out);
        if (upstream) flush(upstream.data.out);
      }
    },
    reset() {
      for (const { client, upstream } of pairs) {
        client.terminate();
        upstream?.terminate();
      }
      pairs.clear();
    },
    stop() {
      this.reset();
      listener.stop(true);
    },
  };
}
