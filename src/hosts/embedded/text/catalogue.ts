/**
 * The embedded editor's fonts: every OpenType / TrueType face in fontconfig's font folders (those `fonts.conf`
 * names, else fontconfig's defaults) and in the operator's `--fonts-dir`, found once, when text is first used, by
 * reading each file's `name` table (`sfnt.ts`). A text edit names a face as `font:list` shows it (`matchFont`); a
 * character the face lacks is drawn with the first face that has it, in the order of {@link fallbackOrder}.
 */
import { open, readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { extname, join, resolve } from "node:path";
import type { FontInfo } from "../../../protocol/text.js";
import { fontNotFound, matchFont } from "../../_internal/fonts.js";
import { covers, type FaceNames, faceOffsets, readCoverage, readFaceNames } from "./sfnt.js";

/** Most font files the editor reads; the rest of a huge font folder is left out (the list says what it has). */
export const MAX_FONT_FILES = 20_000;
/** How deep below a font folder the editor looks. */
const MAX_FONT_DIR_DEPTH = 8;
/** Files HarfBuzz can shape: OpenType and TrueType fonts and collections (Type 1 fonts are not). */
const FONT_EXTENSIONS = new Set([".ttf", ".otf", ".ttc", ".otc"]);
/** fontconfig's own folders when no `fonts.conf` says otherwise. */
const FONTCONFIG_DEFAULT_DIRS = ["/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts"];
const FONTS_CONF = "/etc/fonts/fonts.conf";

/** A face of a font file on disk. */
export interface FontFace extends FaceNames {
  readonly path: string;
  /** Which face of the file (0 for a plain font file; the face's index in a collection). */
  readonly index: number;
  readonly offset: number;
}

/** The font folders `fonts.conf` names (`~` and `prefix="xdg"` resolved), else fontconfig's defaults. */
async function fontconfigDirs(): Promise<string[]> {
  const home = homedir();
  const xdg = process.env.XDG_DATA_HOME ?? join(home, ".local/share");
  const expand = (dir: string): string => (dir.startsWith("~") ? join(home, dir.slice(1)) : dir);
  try {
    const conf = await readFile(FONTS_CONF, "utf8");
    const dirs = [...conf.matchAll(/<dir(\s+prefix="([^"]*)")?[^>]*>([^<]+)<\/dir>/g)].map((m) => (m[2] === "xdg" ? join(xdg, m[3]!.trim()) : expand(m[3]!.trim())));
    if (dirs.length > 0) return dirs;
  } catch {
    // No fontconfig configuration: its defaults.
  }
  return FONTCONFIG_DEFAULT_DIRS.map(expand);
}

async function fontFiles(dir: string, depth: number, into: string[]): Promise<void> {
  if (depth > MAX_FONT_DIR_DEPTH || into.length >= MAX_FONT_FILES) return;
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // A folder that is not there (fontconfig lists folders that may not exist).
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (into.length >= MAX_FONT_FILES) return;
    const path = join(dir, entry.name);
    if (entry.isDirectory() || (entry.isSymbolicLink() && (await stat(path).catch(() => undefined))?.isDirectory())) await fontFiles(path, depth + 1, into);
    else if (FONT_EXTENSIONS.has(extname(entry.name).toLowerCase())) into.push(path);
  }
}

/** Every face of the files found, each PostScript name once (the first folder's wins, as fontconfig's order). */
async function readFaces(paths: readonly string[]): Promise<FontFace[]> {
  const faces = new Map<string, FontFace>();
  for (const path of paths) {
    let file: Awaited<ReturnType<typeof open>> | undefined;
    try {
      file = await open(path, "r");
      const offsets = await faceOffsets(file);
      for (const [index, offset] of offsets.entries()) {
        const names = await readFaceNames(file, offset).catch(() => undefined);
        if (names === undefined || faces.has(names.postScriptName)) continue;
        faces.set(names.postScriptName, { ...names, path, index, offset });
      }
    } catch {
      // An unreadable or broken file is not a font the editor has.
    } finally {
      await file?.close();
    }
  }
  return [...faces.values()].sort((a, b) => a.family.localeCompare(b.family) || a.style.localeCompare(b.style));
}

/** The faces the editor has, found once, and what each covers, read when needed. */
export class FontCatalogue {
  private faces: Promise<FontFace[]> | undefined;
  private readonly coverage = new Map<FontFace, Promise<Uint32Array>>();

  /** @param fontsDirs the operator's own folders (`--fonts-dir`), searched before fontconfig's. */
  constructor(private readonly fontsDirs: readonly string[] = [], private readonly useSystemFonts = true) {}

  /** Every face, sorted by family then style. */
  all(): Promise<FontFace[]> {
    this.faces ??= (async () => {
      const dirs = [...this.fontsDirs.map((dir) => resolve(dir)), ...(this.useSystemFonts ? await fontconfigDirs() : [])];
      const paths: string[] = [];
      for (const dir of dirs) await fontFiles(dir, 0, paths);
      return readFaces(paths);
    })();
    return this.faces;
  }

  /** `font:list`'s answer. */
  async list(): Promise<FontInfo[]> {
    return (await this.all()).map(({ family, style, postScriptName }) => ({ family, style, postScriptName }));
  }

  /** The face `name` names. @throws BridgeError `FONT_NOT_FOUND {font, near}` */
  async find(name: string): Promise<FontFace> {
    const faces = await this.all();
    const face = matchFont(faces, name) ?? faces.find((f) => f.fullName.toLowerCase() === name.toLowerCase());
    if (face === undefined) throw fontNotFound(faces, name);
    return face;
  }

  /** Whether `face` has a glyph for `codePoint`. */
  async covers(face: FontFace, codePoint: number): Promise<boolean> {
    let ranges = this.coverage.get(face);
    if (ranges === undefined) {
      ranges = (async () => {
        const file = await open(face.path, "r");
        try {
          return await readCoverage(file, face.offset);
        } catch {
          return new Uint32Array(0);
        } finally {
          await file.close();
        }
      })();
      this.coverage.set(face, ranges);
    }
    return covers(await ranges, codePoint);
  }

  /**
   * The face that draws `codePoint` when `primary` lacks it: the first face that has it, looking at the primary's
   * family first, then regular Noto faces (one per script), then DejaVu Sans, then every other face. Undefined when
   * none has it (the primary's missing-glyph box is drawn).
   */
  async fallback(primary: FontFace, codePoint: number): Promise<FontFace | undefined> {
    for (const face of fallbackOrder(await this.all(), primary)) if (await this.covers(face, codePoint)) return face;
    return undefined;
  }
}

const regular = (f: FontFace): boolean => /^(regular|book|roman|normal)$/i.test(f.style);

/** The order faces are tried for a character the chosen face lacks. */
function fallbackOrder(faces: readonly FontFace[], primary: FontFace): FontFace[] {
  const sameFamily = faces.filter((f) => f !== primary && f.family === primary.family && regular(f));
  const noto = faces.filter((f) => /^Noto (Sans|Serif)\b/.test(f.family) && regular(f) && !/\b(UI|Display|Mono)\b/.test(f.family));
  const dejavu = faces.filter((f) => f.family === "DejaVu Sans" && regular(f));
  const seen = new Set<FontFace>([primary]);
  const out: FontFace[] = [];
  for (const face of [...sameFamily, ...noto, ...dejavu, ...faces.filter(regular), ...faces]) {
    if (seen.has(face)) continue;
    seen.add(face);
    out.push(face);
  }
  return out;
}
