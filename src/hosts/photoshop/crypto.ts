import { createCipheriv, createDecipheriv, pbkdf2Sync } from "node:crypto";

/** PBKDF2 salt Photoshop uses for Remote Connections. */
export const KEY_SALT = "Adobe Photoshop";
export const KEY_ITERATIONS = 1000;
export const KEY_BYTES = 24;
export const CIPHER = "des-ede3-cbc";
/**
 * generator-core's IV. It differs from the SDK's all-zero IV only in bytes 4–5, which CBC applies to the
 * transaction id alone, and the server echoes ids verbatim, so both interoperate.
 */
export const GENERATOR_IV: Buffer = Buffer.from("000000005d260000", "hex");

/** The 24-byte 3DES key of a Remote Connections password. */
export function deriveKey(password: string): Buffer {
  return pbkdf2Sync(Buffer.from(password, "utf8"), KEY_SALT, KEY_ITERATIONS, KEY_BYTES, "sha1");
}

/** Encrypts one payload; a fresh cipher per message, as Photoshop expects. */
export function encryptPayload(key: Buffer, plain: Uint8Array, iv: Buffer = GENERATOR_IV): Buffer {
  const cipher = createCipheriv(CIPHER, key, iv);
  return Buffer.concat([cipher.update(plain), cipher.final()]);
}

/** Decrypts one payload; throws on bad padding (wrong key). */
export function decryptPayload(key: Buffer, data: Uint8Array, iv: Buffer = GENERATOR_IV): Buffer {
  const decipher = createDecipheriv(CIPHER, key, iv);
  return Buffer.concat([decipher.update(data), decipher.final()]);
}
