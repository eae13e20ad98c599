/**
 * The parameter shapes clients of the Photoshop Generator bridge service (1.2.x) and its SDK send, turned into this
 * bridge's own shapes before validation, in one place for every transport. The bridge's published schemas stay its
 * own; an alias only renames or converts a value the bridge has an equivalent for, and refuses the rest by name.
 */
import { z } from "zod";
import { BridgeError, type BuiltinMethodName } from "../../protocol/index.js";
import { fieldKinds, type FieldKinds } from "./fields.js";

type Params = Record<string, unknown>;

/** How one method's legacy params map onto its own. */
interface AliasSpec {
  /** Bare-number params (`5`) mean this param. */
  readonly bare?: string;
  /** Legacy param name → this bridge's name for the same value. */
  readonly renames?: Readonly<Record<string, string>>;
  /** `options: { getChildren }` → `getChildren`. */
  readonly options?: boolean;
  /**
   * `layerSpec` (a layer id, or `{firstLayerIndex, lastLayerIndex, hidden}`): `ref` maps it to `layerId` /
   * `layerIndex`; `spec` keeps it as this method's own `layerSpec` (`"index:N"` for a one-layer range).
   */
  readonly layerSpec?: "ref" | "spec";
  /** The Generator's pixmap `settings` object → `format`, `quality`, `scale`, `maxSize`. */
  readonly settings?: boolean;
  /** `jpegQuality` on Photoshop's 0–12 scale → `quality` (1–100); `format: "jpg"|"tif"` → `"jpeg"|"tiff"`. */
  readonly saveAs?: boolean;
  /** Legacy flags with no equivalent: accepted when off (`false`), `NOT_SUPPORTED` when on. */
  readonly offOnly?: readonly string[];
  /** Legacy params this method does not take here, with the call that does. */
  readonly moved?: Readonly<Record<string, string>>;
}

/** Highest `jpegQuality` of Photoshop's JPEG scale (0–12), mapped linearly onto the bridge's 1–100 `quality`. */
export const LEGACY_JPEG_QUALITY_MAX = 12;

const LEGACY_FORMATS: Readonly<Record<string, string>> = { jpg: "jpeg", tif: "tiff" };

/**
 * Pixmap settings that ask for nothing when they hold these values (what the Generator assumes when they are
 * absent): the bridge's export already behaves that way, so they are accepted and dropped.
 */
const SETTINGS_DEFAULTS: Readonly<Record<string, unknown>> = {
  boundsOnly: false,
  useJPGEncoding: "",
  useSmartScaling: false,
  convertToWorkingRGBProfile: false,
  useICCProfile: "",
  getICCProfileData: false,
  allowDither: false,
  useColorSettingsDither: false,
  forceSmartPSDPixelScaling: false,
  clipToDocumentBounds: false,
  includeAncestorMasks: false,
  includeAdjustors: true,
  includeChildren: true,
  includeClipBase: true,
  includeClipped: true,
};

const layerId = { layerID: "layerId" } as const;

/** Every built-in method that takes a legacy shape, and how. */
export const LEGACY_ALIASES: Readonly<Partial<Record<BuiltinMethodName, AliasSpec>>> = {
  "layer:getInfo": {
    renames: { ...layerId, id: "layerId", index: "layerIndex" },
    offOnly: ["getGeneratorSettings"],
    moved: { selection: "layer:getInfoBySelectionIndex with selectionIndex" },
  },
  "layer:getInfoById": { bare: "layerId", renames: layerId, options: true },
  "layer:getInfoByIndex": { bare: "layerIndex", options: true },
  "layer:getInfoBySelectionIndex": { bare: "selectionIndex", renames: { selection: "selectionIndex" }, options: true },
  "layer:importImage": { renames: layerId, offOnly: ["useWorkpath"] },
  "action:autoCutout": { renames: layerId },
  "action:removeBackground": { renames: layerId },
  "document:export": { renames: { filePath: "path" }, saveAs: true },
  "image:exportLayer": { renames: layerId, layerSpec: "ref", settings: true },
  "image:exportLayerWithSelectedPath": { renames: layerId, layerSpec: "ref", settings: true },
  "image:exportDocument": { settings: true },
  "image:getPreview": { layerSpec: "spec" },
};

const isRecord = (value: unknown): value is Params => typeof value === "object" && value !== null && !Array.isArray(value);

function badRequest(message: string, details: Params): BridgeError {
  return new BridgeError("BAD_REQUEST", message, { details });
}

function notSupported(message: string, details: Params): BridgeError {
  return new BridgeError("NOT_SUPPORTED", message, { details });
}

/**
 * Sets `params[to]` from the legacy param `from`; the two given with different values is a `BAD_REQUEST` naming
 * both, since either reading would silently ignore what the caller wrote.
 */
function put(params: Params, to: string, value: unknown, from: string): void {
  const own = params[to];
  if (own !== undefined && JSON.stringify(own) !== JSON.stringify(value)) {
    throw badRequest(`${from} and ${to} were both given, with different values (${JSON.stringify(value)} and ${JSON.stringify(own)}): pass one of them`, {
      param: from,
      conflictsWith: to,
      values: [value, own],
    });
  }
  params[to] = value;
}

function takeOptions(params: Params): void {
  const options = params.options;
  delete params.options;
  if (options === undefined || options === null) return;
  if (!isRecord(options)) throw badRequest("options must be an object such as { getChildren: true }", { param: "options" });
  const { getChildren, ...rest } = options;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw badRequest(`options takes only getChildren; got ${unknown.join(", ")}`, { param: "options", unknown });
  if (getChildren !== undefined) put(params, "getChildren", getChildren, "options.getChildren");
}

/** The one layer index a legacy range names, or `NOT_SUPPORTED`: the bridge exports one layer, never a composite of a range. */
function rangeIndex(range: Params): number {
  const { firstLayerIndex: first, lastLayerIndex: last, hidden = [] } = range;
  if (!Number.isInteger(first) || !Number.isInteger(last) || !Array.isArray(hidden)) {
    throw badRequest("layerSpec must be a layer id or { firstLayerIndex, lastLayerIndex, hidden } with integer indexes", { param: "layerSpec" });
  }
  if (first !== last || hidden.includes(first)) {
    throw notSupported(
      `layerSpec names layers ${first} to ${last}${hidden.length > 0 ? ` hiding ${hidden.join(", ")}` : ""}: this bridge exports one layer at a time, so only a range of one layer (firstLayerIndex equal to lastLayerIndex) is taken`,
      { param: "layerSpec", firstLayerIndex: first, lastLayerIndex: last, hidden },
    );
  }
  return first as number;
}

function takeLayerSpec(params: Params, mode: "ref" | "spec"): void {
  const spec = params.layerSpec;
  if (spec === undefined || (mode === "spec" && !isRecord(spec))) return;
  if (mode === "spec") {
    params.layerSpec = `index:${rangeIndex(spec as Params)}`;
    return;
  }
  delete params.layerSpec;
  if (typeof spec === "number") put(params, "layerId", spec, "layerSpec");
  else if (isRecord(spec)) put(params, "layerIndex", rangeIndex(spec), "layerSpec");
  else throw badRequest("layerSpec must be a layer id or { firstLayerIndex, lastLayerIndex, hidden }", { param: "layerSpec" });
}

function takeSettings(params: Params): void {
  const settings = params.settings;
  delete params.settings;
  if (settings === undefined || settings === null) return;
  if (!isRecord(settings)) throw badRequest("settings must be an object of pixmap settings", { param: "settings" });
  const { format, quality, scaleX, scaleY, maxDimension, ...rest } = settings;
  if (format !== undefined) put(params, "format", typeof format === "string" ? (LEGACY_FORMATS[format] ?? format) : format, "settings.format");
  if (quality !== undefined) put(params, "quality", quality, "settings.quality");
  if (maxDimension !== undefined) put(params, "maxSize", maxDimension, "settings.maxDimension");
  if (scaleX !== undefined || scaleY !== undefined) {
    if (scaleX !== undefined && scaleY !== undefined && scaleX !== scaleY) {
      throw notSupported(`settings.scaleX (${String(scaleX)}) and settings.scaleY (${String(scaleY)}) differ: this bridge scales both edges alike`, {
        param: "settings",
        unsupported: ["scaleX", "scaleY"],
      });
    }
    put(params, "scale", scaleX ?? scaleY, scaleX !== undefined ? "settings.scaleX" : "settings.scaleY");
  }
  const unsupported = Object.entries(rest)
    .filter(([key, value]) => value !== undefined && value !== null && (!Object.hasOwn(SETTINGS_DEFAULTS, key) || SETTINGS_DEFAULTS[key] !== value))
    .map(([key]) => key);
  if (unsupported.length > 0) {
    throw notSupported(
      `settings ${unsupported.join(", ")} ${unsupported.length === 1 ? "has" : "have"} no equivalent here; the bridge takes format, quality, scaleX/scaleY (equal) and maxDimension`,
      { param: "settings", unsupported },
    );
  }
}

function takeSaveAs(params: Params): void {
  if (typeof params.format === "string") params.format = LEGACY_FORMATS[params.format] ?? params.format;
  const jpegQuality = params.jpegQuality;
  delete params.jpegQuality;
  if (jpegQuality === undefined) return;
  if (!Number.isInteger(jpegQuality) || (jpegQuality as number) < 0 || (jpegQuality as number) > LEGACY_JPEG_QUALITY_MAX) {
    throw badRequest(`jpegQuality must be an integer from 0 to ${LEGACY_JPEG_QUALITY_MAX}`, { param: "jpegQuality", value: jpegQuality });
  }
  put(params, "quality", Math.max(1, Math.round(((jpegQuality as number) * 100) / LEGACY_JPEG_QUALITY_MAX)), "jpegQuality");
}

/**
 * A renamed value that came as text (an HTTP query, e.g. `GET /layer/info?id=3`) read as the number or boolean its
 * own name takes, as the transports read the bridge's own names; any other text is left for the schema to refuse.
 */
function asKind(value: unknown, kinds: ReadonlySet<string> | undefined): unknown {
  if (typeof value !== "string" || kinds === undefined) return value;
  if (kinds.has("number") && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (kinds.has("boolean") && (value === "true" || value === "false")) return value === "true";
  return value;
}

/**
 * Legacy params → this method's own, or the input untouched when it is not an object (the schema then says why).
 * `kinds` are the own params' kinds, for renamed values given as text.
 */
export function fromLegacy(spec: AliasSpec, raw: unknown, kinds: () => FieldKinds = () => new Map()): unknown {
  if (typeof raw === "number" && spec.bare !== undefined) return { [spec.bare]: raw };
  if (!isRecord(raw)) return raw;
  const params: Params = { ...raw };
  for (const [name, call] of Object.entries(spec.moved ?? {})) {
    if (params[name] !== undefined) throw badRequest(`${name} is not taken here: call ${call}`, { param: name });
  }
  for (const name of spec.offOnly ?? []) {
    const value = asKind(params[name], new Set(["boolean"]));
    delete params[name];
    if (value === true) throw notSupported(`${name} has no equivalent on this bridge`, { param: name });
    if (value !== undefined && value !== false && value !== null) throw badRequest(`${name} must be a boolean`, { param: name });
  }
  for (const [from, to] of Object.entries(spec.renames ?? {})) {
    if (!(from in params)) continue;
    const value = asKind(params[from], kinds().get(to));
    delete params[from];
    if (value !== undefined) put(params, to, value, from);
  }
  if (spec.options === true) takeOptions(params);
  if (spec.layerSpec !== undefined) takeLayerSpec(params, spec.layerSpec);
  if (spec.settings === true) takeSettings(params);
  if (spec.saveAs === true) takeSaveAs(params);
  return params;
}

/**
 * A method's params schema that also takes the legacy shapes of {@link LEGACY_ALIASES}. The published JSON Schema
 * (and so HTTP's field kinds) is still the bridge's own: a preprocess step publishes the schema it feeds.
 */
export function withAliases<S extends z.ZodType>(name: BuiltinMethodName, schema: S): z.ZodType<z.output<S>> {
  const spec = LEGACY_ALIASES[name];
  if (spec === undefined) return schema as z.ZodType<z.output<S>>;
  let kinds: FieldKinds | undefined;
  const kindsOf = (): FieldKinds => (kinds ??= fieldKinds(schema));
  return z.preprocess((raw) => fromLegacy(spec, raw, kindsOf), schema);
}
