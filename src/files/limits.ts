const MiB = 1024 * 1024;

/**
 * Largest document file `document:open`, `--open` and scripts' `app.open` read. A layered PSD of a 100 MP
 * document fits; a multi-gigabyte file is refused from its size instead of being read whole into memory.
 * @default 1 GiB
 */
export const DEFAULT_MAX_OPEN_FILE_BYTES = 1024 * MiB;
