import { pino, type Logger } from "pino";

export type { Logger };

/** Options for the structured logger; pretty output only on an interactive terminal. */
export interface LoggerOptions {
  /** @default "info" */
  level?: string;
  /** @default process.stdout.isTTY */
  pretty?: boolean;
}

/** Creates the bridge's structured logger (pino). Children carry the actor id, e.g. `{ actor: "client:…" }`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? "info";
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  if (!pretty) return pino({ level, base: { name: "image-editor-bridge" } });
  return pino({
    level,
    base: undefined,
    transport: { target: "pino-pretty", options: { colorize: true, ignore: "pid,hostname", translateTime: "HH:MM:ss" } },
  });
}

/** A logger that drops everything; the default for bridges created in tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
