/** Limits of `layer:importImage`, from any source; each is a bridge limit (`createBridge({ limits })`). */
export interface ImportLimits {
  /** Largest encoded image, in bytes, from any source (64 MiB); bounds memory before decoding. */
  readonly maxBytes: number;
  /** Largest decoded image (width × height); a small file can declare a huge image (decompression bomb). */
  readonly maxPixels: number;
  /** Deadline of a URL download, headers to last byte; a slow server must not hold the editor. */
  readonly urlTimeoutMs: number;
  /** Redirects followed per URL import; each hop is checked again against private targets. */
  readonly maxRedirects: number;
}
