/** Version of the wire protocol this package speaks. Carried in the `connected` handshake. */
export const PROTOCOL_VERSION = 1 as const;
