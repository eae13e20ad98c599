/*
 * The logical clients as a transport sees them: it hands over a connection, is told once what to do with it, and then
 * writes frames through the client it was given. Everything about who may connect, resume or take over, and when a
 * flooding client is closed, is decided behind this port (see `./admission.ts` and `./frame-rate.ts`).
 */
import type { BridgeError, EditorChangedEventData, RequestCancelResult, RequestId } from "../../protocol/index.js";
import type { BinaryImageResponse, SubscribingClient } from "../../methods/index.js";
import type { RequestControl } from "./requests.js";

/** What a client writes: a text frame, or an image answer (its JSON, then its bytes as a binary message). */
export type OutboundFrame = string | Buffer | BinaryImageResponse;

/** What a transport hands a logical client to write frames to. */
export interface ClientSocket {
  /** Sends one text frame (a string, or its UTF-8 bytes). */
  send(text: string | Buffer): void;
  /** Whether the connection negotiated `binary` (`?binary=1`): image answers may be written as binary messages. */
  readonly binary: boolean;
  /** Sends one binary message: `header` then `payload`, the payload not copied. */
  sendBinary(header: Uint8Array, payload: Uint8Array): void;
  /** Bytes accepted by `send` but not yet written to the network. */
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
}

/** One call begun by a client: what to pass with it, and what to call once it is answered. */
export interface CallTicket {
  readonly control: RequestControl;
  end(): void;
}

/** What the client's frame rate says about one inbound text frame. */
export type FrameAnswer =
  /** Dispatch it. */
  | { readonly admitted: true }
  /**
   * Refused for the rate: answer `error` (TOO_MANY_REQUESTS) on the frame's id. `pauseMs`: stop reading the socket
   * that long (what the client sends meanwhile waits in the kernel). `close`: the client kept flooding; once the
   * answer is written, close its socket with this code and reason ({@link ClientHandle.closeSocket}).
   */
  | {
      readonly admitted: false;
      readonly error: BridgeError;
      readonly pauseMs: number | undefined;
      readonly close: { readonly code: number; readonly reason: string } | undefined;
    };

/** A logical client as the transports and the calls see it; `LogicalClient` is the one implementation. */
export interface ClientHandle extends SubscribingClient {
  /** The full id: a bearer secret, never logged (see `logName`). */
  readonly id: string;
  /** How logs name it (`client:<prefix>`). */
  readonly logName: string;
  /** The editor its calls go to when they name no document; read per call (the bridge may move it). */
  readonly editorId: string | undefined;
  /** The socket frames are written to now, or null while detached. */
  readonly attachedSocket: ClientSocket | null;
  /** Sends a response; while detached it waits for a resume. */
  deliverResponse(frame: OutboundFrame): void;
  /** Sends a notice about this socket only (an `error` event about a frame): never kept for replay. */
  deliverNotice(text: string): void;
  /** Begins a call: counted in flight, registered for `request:cancel`; refused at `maxInFlightPerClient`. */
  beginCall(id: RequestId | undefined): CallTicket | BridgeError;
  /** Registers a request for `request:cancel` without counting it in flight (a batch). */
  register(id: RequestId): CallTicket;
  /** Cancels one of its own unanswered requests. */
  cancel(id: RequestId): RequestCancelResult;
  /** Moves it to another editor (its own is gone), telling it with `editor:changed`. */
  moveTo(data: EditorChangedEventData): void;
  /**
   * What the client's frame rate says about one more inbound text frame from its attached socket (see
   * {@link FrameAnswer}); `socketOpen`: whether that socket can still be paused or closed.
   */
  admitFrame(socketOpen: boolean): FrameAnswer;
  /** Detaches the client from `socket` (it stays resumable), then closes the socket. */
  closeSocket(socket: ClientSocket, code: number, reason: string): void;
  /** `socket` closed with `code`: the client is detached (resumable), or disposed for 4000; logged. */
  socketClosed(socket: ClientSocket, code: number): void;
  /** Ends the client for good (`closed`: its socket went before it was admitted). */
  dispose(reason: "closed"): void;
}

/** A connection asking for a logical client: what its upgrade request said, already parsed and past the access check. */
export interface ConnectRequest {
  /** `"root"` or the plugin id of `/ws/{pluginId}`. */
  readonly endpoint: string;
  /** The full id of the client to resume (`?resume=`). */
  readonly resume: string | undefined;
  /** Whether a resume may close another socket holding the client (`?takeover=`). */
  readonly takeover: boolean;
  readonly name: string | undefined;
  /** The editor a new client asks for (`?editor=`). */
  readonly editor: string | undefined;
  /** Whether the connection is still there: a cluster lookup or a plugin's `onConnect` may outlive it. */
  connected(): boolean;
}

/** A refusal: before the upgrade (`closeCode` undefined) an HTTP answer with the error table's status; after it an `error` event, then a close with `closeCode`. */
export interface Refused {
  readonly refusal: BridgeError;
  readonly closeCode: number | undefined;
}

/** What replay a resumed client gets: how many messages were replayed, how many frames were lost. */
export interface Resumed {
  readonly lost: number;
  readonly replayed: number;
}

/** Builds the `connected` frame for a client bound to a socket: the transport's own words (features, server). */
export type Greeter = (client: ClientHandle, socket: ClientSocket, resumed: Resumed | undefined) => string;

/**
 * The connection may be upgraded: `open` then binds the socket. A new client of a plugin endpoint waits for the
 * plugin's `onConnect` (a promise: keep the socket's frames waiting until it settles). Undefined: the connection
 * went away meanwhile, and nothing is to be written.
 */
export interface Admitted {
  readonly refusal?: undefined;
  open(socket: ClientSocket, address: string, greet: Greeter): Opened | Promise<Opened>;
}

/** A socket bound to its client (greeted and replayed to), or refused after the upgrade, or gone meanwhile. */
export type Opened = { readonly client: ClientHandle; readonly refusal?: undefined } | Refused | undefined;

/** The logical clients' one door for a transport. */
export interface ClientsPort {
  /**
   * Decides once what becomes of a connection: refused (before or after the upgrade), or admitted. A promise only
   * when another bridge of a cluster must be asked for the client to resume first; it resolves undefined when the
   * connection went away meanwhile.
   */
  admit(request: ConnectRequest): Refused | Admitted | Promise<Refused | Admitted | undefined>;
}
