import { BINARY_FEATURE, BridgeError, MAX_CLIENT_NAME_LENGTH } from "../../protocol/index.js";

/** Control, format (bidi overrides, zero-width) and line/paragraph separators: they could forge or hide log text. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Values of the switches `takeover` and `binary`. */
const SWITCH_VALUES: ReadonlyMap<string, boolean> = new Map([
  ["1", true],
  ["true", true],
  ["0", false],
  ["false", false],
]);

/** What the query of a WebSocket upgrade asks for. */
export interface ConnectParams {
  /** The full id of the logical client to resume; a prefix never resolves. */
  readonly resume: string | undefined;
  /** Whether a resume may close another socket that holds the client; false refuses with CLIENT_ATTACHED. */
  readonly takeover: boolean;
  /** Display name for `server:clients` and logs; on a resume it replaces the one the client had. */
  readonly name: string | undefined;
  /** The editor a new client asks for (`<kind>-<n>`); ignored on a resume (a client keeps its editor). */
  readonly editor: string | undefined;
  /**
   * `?binary=1`: image results come as a JSON reference followed by a binary message, and requests may attach
   * binary parts (the `binary` feature). Per connection: a resume decides again.
   */
  readonly binary: boolean;
}

/** Reads `resume`, `takeover`, `name`, `editor` and `binary` from an upgrade's query; a bad value is a BAD_REQUEST refusal. */
export function parseConnectParams(query: URLSearchParams): ConnectParams | BridgeError {
  const name = query.get("name") ?? undefined;
  if (name !== undefined) {
    const length = [...name].length;
    if (length === 0 || length > MAX_CLIENT_NAME_LENGTH) {
      return new BridgeError("BAD_REQUEST", `name must be 1 to ${MAX_CLIENT_NAME_LENGTH} characters, got ${length}`, {
        details: { param: "name", maxLength: MAX_CLIENT_NAME_LENGTH },
      });
    }
    if (UNPRINTABLE.test(name)) {
      return new BridgeError("BAD_REQUEST", "name must be printable: no control, format or line-separator characters", {
        details: { param: "name" },
      });
    }
  }
  const rawTakeover = query.get("takeover");
  const takeover = rawTakeover === null ? true : SWITCH_VALUES.get(rawTakeover);
  if (takeover === undefined) {
    return new BridgeError("BAD_REQUEST", "takeover must be 0, 1, false or true", { details: { param: "takeover" } });
  }
  const rawBinary = query.get(BINARY_FEATURE);
  const binary = rawBinary === null ? false : SWITCH_VALUES.get(rawBinary);
  if (binary === undefined) {
    return new BridgeError("BAD_REQUEST", `${BINARY_FEATURE} must be 0, 1, false or true`, { details: { param: BINARY_FEATURE } });
  }
  return { resume: query.get("resume") ?? undefined, takeover, name, editor: query.get("editor") ?? undefined, binary };
}

/** What an upgrade with no query asks for (a new client, takeover allowed, no name, no editor, no `binary`). */
export const NO_CONNECT_PARAMS: ConnectParams = Object.freeze({ resume: undefined, takeover: true, name: undefined, editor: undefined, binary: false });
