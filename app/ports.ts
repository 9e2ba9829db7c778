// Loopback ports: a free one (tests and benchmarks start servers on them), and whether one accepts.
import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

/** Whether a server can listen on the loopback port now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The lowest port the kernel hands out to outgoing connections (Linux; 32768 elsewhere). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A loopback port free now, picked at random below the kernel's range for outgoing connections:
 * a port the kernel picked (listen on 0) comes from that range, and every client socket of the
 * machine (database, gRPC, HTTP) could take it as its local port before the server meant for it
 * listened. Falls back to the kernel's pick when no lower range exists.
 */
export async function freePort(): Promise<number> {
  const low = 10_000;
  const high = ephemeralLow();
  for (let attempt = 0; high - low >= 1000 && attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on the loopback port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}
