import { readFile } from "node:fs/promises";
import { z } from "zod";
import { writeFileAtomic } from "../files/index.js";
import { BridgeError } from "../protocol/index.js";

/*
 * The webhooks file (`--webhooks-file`): the webhooks clients added, with their ids and secrets, so they come back
 * after a restart. Written whole after each change, atomically (a crash leaves the old file or the new one), and
 * readable by the bridge's user only: it holds the signing secrets.
 */

/** A webhook as the webhooks file keeps it, so it comes back after a restart with the same id and secret. */
export interface StoredWebhook {
  readonly id: string;
  readonly url: string;
  readonly types: readonly string[];
  readonly secret: string;
  readonly documentId?: number | undefined;
  readonly enabled: boolean;
}

/** The file's format version: a later bridge that changes the shape reads this one and writes its own. */
const FORMAT = 1;

/** New webhooks files are readable and writable by the bridge's user only. */
const FILE_MODE = 0o600;

const FileSchema = z.object({
  format: z.literal(FORMAT),
  webhooks: z.array(
    z.object({
      id: z.string().min(1).max(64),
      url: z.string().min(1),
      types: z.array(z.string().min(1)).min(1),
      secret: z.string().min(1),
      documentId: z.number().int().optional(),
      enabled: z.boolean(),
    }),
  ),
});

/**
 * Reads the webhooks kept in `path`; none when the file does not exist yet (it is made at the first change).
 * @throws BridgeError `BAD_REQUEST` for a file that is not one the bridge wrote (a configuration error at start).
 */
export async function readWebhooksFile(path: string): Promise<StoredWebhook[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new BridgeError("BAD_REQUEST", `Cannot read the webhooks file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, {
      details: { path },
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BridgeError("BAD_REQUEST", `The webhooks file ${path} is not JSON`, { details: { path }, cause: error });
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BridgeError("BAD_REQUEST", `The webhooks file ${path} is not one this bridge wrote: ${issue?.path.join(".") || "(top)"}: ${issue?.message ?? "invalid"}`, {
      details: { path },
    });
  }
  return parsed.data.webhooks;
}

/** Writes the whole list to `path`, atomically; mode 0600 when the file is new. */
export async function writeWebhooksFile(path: string, webhooks: readonly StoredWebhook[]): Promise<void> {
  const text = `${JSON.stringify({ format: FORMAT, webhooks }, null, 2)}\n`;
  await writeFileAtomic(path, Buffer.from(text), { mode: FILE_MODE, label: "the webhooks file" });
}
