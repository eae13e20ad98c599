/** Types of generate-product-shots.js (a plain script, so tests can import it from TypeScript). */
export declare const SCENE_NAMES: readonly string[];
export interface ProductShot {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  /** Opaque straight RGBA. */
  readonly rgba: Buffer;
  /** Exact subject mask, 255 = subject. */
  readonly mask: Uint8Array;
}
export declare function renderScene(name: string, options?: { width?: number; height?: number; seed?: number }): ProductShot;
export declare function maskIoU(a: ArrayLike<number>, b: ArrayLike<number>): number;
export declare function writeScenes(
  dir: string,
  options?: { width?: number; height?: number; seed?: number },
): Promise<Array<{ name: string; image: string; mask: string }>>;
