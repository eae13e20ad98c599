/** Version of the wire protocol this package speaks (spec §9). Carried in the `connected` handshake. */
export const PROTOCOL_VERSION = 1 as const;
