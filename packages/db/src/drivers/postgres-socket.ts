import net from "node:net";

/**
 * A socket factory for postgres.js (its `socket` option), made for one reason: under Bun a socket
 * whose peer closed while a write was under way emits "end" but never "close", so postgres.js (which
 * waits for "close") never fails the statement; ending the socket ourselves on "end" makes it close.
 * The socket is handed over still connecting: postgres.js's connect_timeout covers the TCP connect too.
 */
export function postgresSocketFactory(): (o: { host: string[]; port: number[]; path?: string }) => net.Socket {
  let nextHost = 0;
  return (o) => {
    // Several hosts in the URL are tried in turn, as postgres.js does with its own sockets.
    const at = nextHost++ % o.host.length;
    const socket = o.path ? net.connect(o.path) : net.connect(o.port[at] ?? o.port[0]!, o.host[at]);
    socket.on("end", () => socket.destroy());
    return socket;
  };
}
