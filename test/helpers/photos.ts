import { existsSync } from "node:fs";
import { join } from "node:path";

/** The real photos the cutout tests use, from Debian's scikit-image package (`.ci/run` unpacks it). */
export const PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png"] as const;
export type Photo = (typeof PHOTOS)[number];

const CANDIDATES = [
  process.env["BRIDGE_TEST_PHOTOS"],
  "/opt/image-editor-bridge-photos/usr/lib/python3/dist-packages/skimage/data",
  "/usr/lib/python3/dist-packages/skimage/data",
];

/** The folder holding all of {@link PHOTOS}, or undefined (the tests then skip, saying why). */
export function photoDir(): string | undefined {
  return CANDIDATES.find((dir): dir is string => dir !== undefined && PHOTOS.every((name) => existsSync(join(dir, name))));
}
