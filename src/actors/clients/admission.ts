import { BridgeError, CLOSE_CODES } from "../../protocol/index.js";
import type { Logger } from "../../logger.js";
import type { LogicalClient } from "./client.js";
import { messageCount, sendFrame } from "./frames.js";
import type { Admitted, ClientSocket, ClientsPort, ConnectRequest, Greeter, Opened, Refused } from "./port.js";
import type { ClientRegistry } from "./registry.js";
import type { ReplayBatch } from "./replay.js";

/*
 * Who gets a logical client, decided in one place: a transport asks once per connection and writes the answer. Before
 * the upgrade: the editor asked for, shutdown, a client another bridge of a cluster holds, room at `maxClients`
 * (evicting the longest-detached client). After it: the plugin endpoint, a resume refused while another socket holds
 * the client (`takeover=0`), a resume or takeover, a new client, and a plugin's `onConnect`.
 */

/** What admission asks of the rest of the bridge. */
export interface AdmissionRules {
  readonly log: Logger;
  /** Whether the bridge still accepts connections (false once shutdown began). */
  accepting(): boolean;
  /** `null` when the bridge has an editor with this id, else the `BAD_REQUEST` to answer (`?editor=`). */
  checkEditor(editorId: string): BridgeError | null;
  /** Null when the endpoint (`"root"` or a plugin id) accepts connections, else why not. */
  endpointError(endpoint: string): BridgeError | null;
  /** Admits a new logical client of a plugin endpoint (its `onConnect`); rejects with the refusal. */
  admitToPlugin(endpoint: string, clientId: string): Promise<void>;
  /**
   * In a cluster: makes a client another bridge holds or held resumable here (`?resume=` of an id this bridge does
   * not have). Resolves with a refusal to answer instead, or undefined to go on with the resume.
   */
  resumeElsewhere?: ((id: string, endpoint: string, takeover: boolean) => Promise<BridgeError | undefined>) | undefined;
}

function before(refusal: BridgeError): Refused {
  return { refusal, closeCode: undefined };
}

/** The logical clients' door: see the comment at the top of this file. */
export class Admission implements ClientsPort {
  constructor(
    private readonly clients: ClientRegistry,
    private readonly rules: AdmissionRules,
  ) {}

  admit(request: ConnectRequest): Refused | Admitted | Promise<Refused | Admitted | undefined> {
    return this.decide(request, false);
  }

  /** `claimed`: the cluster was already asked for the client to resume. */
  private decide(request: ConnectRequest, claimed: boolean): Refused | Admitted | Promise<Refused | Admitted | undefined> {
    const { endpoint, resume } = request;
    const editorRefusal = request.editor === undefined ? null : this.rules.checkEditor(request.editor);
    if (editorRefusal !== null) return before(editorRefusal);
    if (!this.rules.accepting()) return before(new BridgeError("SHUTTING_DOWN", "The bridge is shutting down"));
    const resumable = resume !== undefined && this.clients.find(resume, endpoint) !== undefined;
    const elsewhere = this.rules.resumeElsewhere;
    // In a cluster, a client this bridge does not have may be another bridge's: brought here first, then resumed.
    if (!claimed && !resumable && resume !== undefined && elsewhere !== undefined) {
      return elsewhere(resume, endpoint, request.takeover).then(
        (refused) => {
          if (!request.connected()) return undefined;
          if (refused === undefined) return this.decide(request, true);
          // As on one bridge: attached elsewhere is refused after the upgrade (error event, close 4409), the rest before.
          return { refusal: refused, closeCode: refused.code === "CLIENT_ATTACHED" ? CLOSE_CODES.CLIENT_ATTACHED : undefined };
        },
        (error: unknown) => {
          this.rules.log.warn({ reason: String(error) }, "looking for a resumed client on the cluster failed; resuming here as on one bridge");
          return request.connected() ? this.decide(request, true) : undefined;
        },
      );
    }
    if (!resumable && !this.clients.reserve()) {
      const limit = this.clients.limit;
      return before(new BridgeError("HOST_BUSY", `The bridge already serves ${limit} clients`, { details: { limit } }));
    }
    return { open: (socket, address, greet) => this.open(request, socket, address, greet) };
  }

  /**
   * Binds an upgraded socket to its logical client: resumed (or taken over), or new. A new client of a plugin endpoint
   * is admitted by the plugin's `onConnect` first; a refusal is an `error` event and close 1011. A resume with
   * `takeover=0` of a client another socket holds is refused (CLIENT_ATTACHED, close 4409) and binds nothing.
   */
  private open(request: ConnectRequest, socket: ClientSocket, address: string, greet: Greeter): Opened | Promise<Opened> {
    const { endpoint } = request;
    const endpointError = this.rules.endpointError(endpoint);
    if (endpointError !== null) return { refusal: endpointError, closeCode: CLOSE_CODES.PLUGIN_UNAVAILABLE };
    const resumable = request.resume === undefined ? undefined : this.clients.find(request.resume, endpoint);
    if (resumable !== undefined && !request.takeover && resumable.attachedSocket !== null) {
      // The live socket keeps the client; the refusal names no id (the asker has it, logs must not).
      this.rules.log.info({ actor: resumable.logName, endpoint }, "resume refused: the client is attached and takeover=0");
      return {
        refusal: new BridgeError("CLIENT_ATTACHED", "That client is attached to another connection, and takeover=0 was given"),
        closeCode: CLOSE_CODES.CLIENT_ATTACHED,
      };
    }
    if (resumable !== undefined) {
      if (request.name !== undefined) resumable.name = request.name;
      return this.greeted(resumable, socket, address, greet, resumable.attach(socket));
    }
    let client: LogicalClient;
    try {
      client = this.clients.create(endpoint, socket, request.name, request.editor);
    } catch (error) {
      return { refusal: error as BridgeError, closeCode: CLOSE_CODES.INTERNAL };
    }
    if (endpoint === "root") return this.greeted(client, socket, address, greet, undefined);
    // A plugin's onConnect decides whether a new client may stay; the transport holds its frames until it has.
    return this.rules.admitToPlugin(endpoint, client.id).then(
      () => {
        if (!request.connected()) {
          client.dispose("closed");
          return undefined;
        }
        return this.greeted(client, socket, address, greet, undefined);
      },
      (error: unknown) => {
        client.dispose("closed");
        return { refusal: error as BridgeError, closeCode: CLOSE_CODES.INTERNAL };
      },
    );
  }

  /** Logs the connection, then sends the handshake and what a resumed client missed. */
  private greeted(client: LogicalClient, socket: ClientSocket, address: string, greet: Greeter, batch: ReplayBatch | undefined): Opened {
    const resumed = batch === undefined ? undefined : { lost: batch.lost, replayed: messageCount(socket, batch.frames) };
    client.address = address;
    const fields = { actor: client.logName, endpoint: client.endpoint, name: client.name, resumed: batch !== undefined, replayed: resumed?.replayed ?? 0, binary: socket.binary };
    this.clients.churn.write(address, "connected", fields, "client connected");
    socket.send(greet(client, socket, resumed));
    for (const frame of batch?.frames ?? []) sendFrame(socket, frame);
    return { client };
  }
}
