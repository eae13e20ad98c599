import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A loopback TCP proxy in front of a bridge, so tests can drop a client's socket abruptly (as a network does) and
 * hold reconnects until they are ready for them.
 */
export class DropProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private held: Socket[] | null = null;
  private arrivals: Array<() => void> = [];
  /** Connections accepted so far (including held ones). */
  accepted = 0;

  private constructor(
    private readonly server: Server,
    private readonly target: number,
  ) {}

  static async start(targetPort: number): Promise<DropProxy> {
    const server = createServer();
    const proxy = new DropProxy(server, targetPort);
    server.on("connection", (socket) => proxy.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resets every open connection on both sides, like a network failure. */
  drop(): void {
    for (const [a, b] of this.pairs) {
      a.resetAndDestroy();
      b.resetAndDestroy();
    }
    this.pairs.clear();
  }

  /** New connections wait (unanswered) until {@link release}. */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const socket of held) this.pipe(socket);
  }

  /** Resolves once `count` connections have arrived in total. */
  async whenAccepted(count: number): Promise<void> {
    while (this.accepted < count) await new Promise<void>((resolve) => this.arrivals.push(resolve));
  }

  async close(): Promise<void> {
    this.drop();
    for (const socket of this.held ?? []) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.accepted++;
    for (const wake of this.arrivals.splice(0)) wake();
    socket.on("error", () => {});
    if (this.held !== null) {
      socket.pause();
      this.held.push(socket);
      return;
    }
    this.pipe(socket);
  }

  private pipe(socket: Socket): void {
    const upstream = createConnection(this.target, "127.0.0.1");
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
    const pair: [Socket, Socket] = [socket, upstream];
    this.pairs.add(pair);
    const forget = (): void => {
      this.pairs.delete(pair);
    };
    socket.on("close", () => {
      forget();
      upstream.destroy();
    });
    upstream.on("close", () => {
      forget();
      socket.destroy();
    });
    socket.pipe(upstream);
    upstream.pipe(socket);
    socket.resume();
  }
}
