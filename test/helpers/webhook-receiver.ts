import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";

/** One POST a webhook receiver got. */
export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const receivers: Receiver[] = [];

/** Closes every receiver the test started (call from `afterEach`). */
export async function closeReceivers(): Promise<void> {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
}

/** A loopback webhook receiver; `answer` decides each response (by arrival number), or leaves it hanging. */
export class Receiver {
  readonly received: Received[] = [];
  private waiters: Array<() => void> = [];
  private constructor(
    readonly server: Server,
    readonly url: string,
  ) {}

  static async start(answer: (n: number, res: ServerResponse) => void = (_n, res) => res.writeHead(200).end()): Promise<Receiver> {
    const holder: { receiver?: Receiver } = {};
    const server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        const receiver = holder.receiver!;
        receiver.received.push({ headers: req.headers, body });
        answer(receiver.received.length, res);
        for (const wake of receiver.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`);
    holder.receiver = receiver;
    receivers.push(receiver);
    return receiver;
  }

  /** Resolves once `n` POSTs arrived, with all of them. */
  async count(n: number): Promise<Received[]> {
    while (this.received.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.received;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

/** What a receiver does with the documented headers: recompute the HMAC over `<timestamp>.<body>` and compare. */
export function signedWith(secret: string, delivery: Received): boolean {
  const timestamp = String(delivery.headers["x-bridge-timestamp"]);
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${delivery.body}`).digest("hex")}`;
  const given = String(delivery.headers["x-bridge-signature"]);
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
