/*
 * The ActionManager objects the operations build (https://theiviaxx.github.io/photoshop-docs/Photoshop/ActionDescriptor.html,
 * ActionReference.html, ActionList.html). Type ids are opaque numbers; a four-character id and its string id are
 * the same type (`charIDToTypeID("Lyr ") === stringIDToTypeID("layer")`), so the table below holds the pairs
 * the scripts use: an unknown char id is a failure, not a guess.
 */

export const CHAR_IDS: Record<string, string> = {
  Dcmn: "document", "Lyr ": "layer", Ordn: "ordinal", Trgt: "targetEnum", null: "null", slct: "select", setd: "set",
  Chnl: "channel", fsel: "selection", Elps: "ellipse", "T   ": "to", "Top ": "top", Left: "left", Btom: "bottom",
  Rght: "right", "#Pxl": "pixelsUnit", "Add ": "add", Sbtr: "subtract", Intr: "intersect", AntA: "antiAlias", MkVs: "makeVisible", Wdth: "width", Hght: "height",
  save: "save", "As  ": "as", "In  ": "in", Cpy: "copy", LwCs: "lowerCase", Prpr: "property", dlfx: "disableLayerStyle",
  // The Image > Adjustments and Filter events edit.filter plays (action-filters.ts).
  GrMp: "gradientMapEvent", "Msc ": "mosaic", ClSz: "cellSize", Embs: "emboss", Angl: "angle", Amnt: "amount",
};

export interface TypeIds {
  charIDToTypeID(id: string): number;
  stringIDToTypeID(id: string): number;
  typeIDToStringID(id: number): string;
}

export function typeIds(fail: (message: string) => void): TypeIds {
  const byName = new Map<string, number>();
  const names: string[] = [];
  const s2t = (id: string): number => {
    let n = byName.get(id);
    if (n === undefined) {
      n = 1000 + names.length;
      byName.set(id, n);
      names.push(id);
    }
    return n;
  };
  return {
    stringIDToTypeID: s2t,
    charIDToTypeID(id) {
      const name = CHAR_IDS[id];
      if (name === undefined) {
        fail(`charIDToTypeID("${id}"): a four-character id the stub does not know`);
        return -1;
      }
      return s2t(name);
    },
    typeIDToStringID: (n) => names[n - 1000] ?? "",
  };
}

export interface Item {
  type: string;
  value: unknown;
  classID?: number;
  enumType?: number;
}

export class StubActionDescriptor {
  readonly typename = "ActionDescriptor";
  readonly items = new Map<number, Item>();
  get count(): number {
    return this.items.size;
  }
  private put(key: number, type: string, value: unknown, extra: Partial<Item> = {}): void {
    this.items.set(key, { type, value, ...extra });
  }
  putBoolean(k: number, v: boolean): void { this.put(k, "boolean", v); }
  putInteger(k: number, v: number): void {
    if (!Number.isInteger(v)) throw new Error(`putInteger: ${v} is not an integer`);
    this.put(k, "integer", v);
  }
  putDouble(k: number, v: number): void { this.put(k, "double", v); }
  putUnitDouble(k: number, unit: number, v: number): void { this.put(k, "unitDouble", v, { classID: unit }); }
  putString(k: number, v: string): void { this.put(k, "string", String(v)); }
  putClass(k: number, v: number): void { this.put(k, "class", v); }
  putEnumerated(k: number, enumType: number, v: number): void { this.put(k, "enumerated", v, { enumType }); }
  putReference(k: number, v: StubActionReference): void { this.put(k, "reference", v); }
  putObject(k: number, classID: number, v: StubActionDescriptor): void { this.put(k, "object", v, { classID }); }
  putList(k: number, v: StubActionList): void { this.put(k, "list", v); }
  putPath(k: number, v: unknown): void { this.put(k, "path", v); }
  hasKey(k: number): boolean { return this.items.has(k); }
  private get(k: number, type: string): unknown {
    const item = this.items.get(k);
    // Photoshop answers a missing key with an error ("General Photoshop error ... not currently available").
    if (!item) throw new Error("The requested property does not exist.");
    if (item.type !== type) throw new Error(`key holds a ${item.type}, not a ${type}`);
    return item.value;
  }
  getBoolean(k: number): boolean { return this.get(k, "boolean") as boolean; }
  getInteger(k: number): number { return this.get(k, "integer") as number; }
  getDouble(k: number): number { return this.get(k, "double") as number; }
  getUnitDoubleValue(k: number): number { return this.get(k, "unitDouble") as number; }
  getEnumerationValue(k: number): number { return this.get(k, "enumerated") as number; }
  getString(k: number): string { return this.get(k, "string") as string; }
  getList(k: number): StubActionList { return this.get(k, "list") as StubActionList; }
  getReference(k: number): StubActionReference { return this.get(k, "reference") as StubActionReference; }
  getObjectValue(k: number): StubActionDescriptor { return this.get(k, "object") as StubActionDescriptor; }
  getClass(k: number): number { return this.get(k, "class") as number; }
  /** The item under `k`, for the stub's own reading. */
  item(k: number): Item | undefined { return this.items.get(k); }
}

export type RefPart =
  | { form: "property"; desiredClass: number; property: number }
  | { form: "enumerated"; desiredClass: number; enumType: number; value: number }
  | { form: "identifier"; desiredClass: number; id: number }
  | { form: "index"; desiredClass: number; index: number }
  | { form: "name"; desiredClass: number; name: string }
  | { form: "class"; desiredClass: number };

export class StubActionReference {
  readonly typename = "ActionReference";
  readonly parts: RefPart[] = [];
  putProperty(desiredClass: number, property: number): void { this.parts.push({ form: "property", desiredClass, property }); }
  putEnumerated(desiredClass: number, enumType: number, value: number): void { this.parts.push({ form: "enumerated", desiredClass, enumType, value }); }
  putIdentifier(desiredClass: number, id: number): void { this.parts.push({ form: "identifier", desiredClass, id }); }
  putIndex(desiredClass: number, index: number): void { this.parts.push({ form: "index", desiredClass, index }); }
  putName(desiredClass: number, name: string): void { this.parts.push({ form: "name", desiredClass, name }); }
  putClass(desiredClass: number): void { this.parts.push({ form: "class", desiredClass }); }
  getEnumeratedValue(): number {
    const part = this.parts[0];
    if (part?.form !== "enumerated") throw new Error("the reference is not enumerated");
    return part.value;
  }
  getIdentifier(): number {
    const part = this.parts[0];
    if (part?.form !== "identifier") throw new Error("the reference is not by identifier");
    return part.id;
  }
}

export class StubActionList {
  readonly typename = "ActionList";
  readonly values: unknown[] = [];
  /** The class of each object put in, by position. */
  readonly classes = new Map<number, number>();
  get count(): number { return this.values.length; }
  putReference(v: StubActionReference): void { this.values.push(v); }
  putInteger(v: number): void { this.values.push(v); }
  putDouble(v: number): void { this.values.push(v); }
  getDouble(i: number): number { return this.values[i] as number; }
  putObject(classID: number, v: StubActionDescriptor): void {
    this.classes.set(this.values.length, classID);
    this.values.push(v);
  }
  getObjectValue(i: number): StubActionDescriptor {
    const v = this.values[i];
    if (!(v instanceof StubActionDescriptor)) throw new Error(`list item ${i} is not an object`);
    return v;
  }
  getObjectType(i: number): number {
    const c = this.classes.get(i);
    if (c === undefined) throw new Error(`list item ${i} is not an object`);
    return c;
  }
  getReference(i: number): StubActionReference { return this.values[i] as StubActionReference; }
  getInteger(i: number): number { return this.values[i] as number; }
}

/** A descriptor as plain data with every type id as its string id: what the tests read recorded events as. */
export function plainDescriptor(desc: StubActionDescriptor | undefined, s: (n: number) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of desc?.items ?? []) out[s(key)] = plainItem(item, s);
  return out;
}

function plainItem(item: Item, s: (n: number) => string): unknown {
  if (item.type === "object") return { _class: s(item.classID!), ...plainDescriptor(item.value as StubActionDescriptor, s) };
  if (item.type === "unitDouble") return { _unit: s(item.classID!), _value: item.value };
  if (item.type === "enumerated") return { _enum: s(item.enumType!), _value: s(item.value as number) };
  if (item.type === "class") return { _class: s(item.value as number) };
  if (item.type === "path") return { _path: (item.value as { fsName: string }).fsName };
  if (item.type === "list") {
    const list = item.value as StubActionList;
    return list.values.map((v, i) => {
      if (v instanceof StubActionDescriptor) return { _class: s(list.classes.get(i)!), ...plainDescriptor(v, s) };
      return v instanceof StubActionReference ? plainItem({ type: "reference", value: v }, s) : v;
    });
  }
  if (item.type === "reference") {
    return (item.value as StubActionReference).parts.map((p) => {
      const base = { _ref: s(p.desiredClass) };
      if (p.form === "property") return { ...base, _property: s(p.property) };
      if (p.form === "enumerated") return { ...base, _enum: s(p.enumType), _value: s(p.value) };
      if (p.form === "identifier") return { ...base, _id: p.id };
      if (p.form === "index") return { ...base, _index: p.index };
      if (p.form === "class") return base;
      return { ...base, _name: p.name };
    });
  }
  return item.value;
}

/**
 * A descriptor kept in the model (which must stay plain data, cloned for the History panel): every type id as its
 * string id, so that a later script run, whose ids are numbered anew, reads it back as it was put.
 */
export type StoredItem = { type: string; value: unknown; cls?: string; enumType?: string };
export type StoredDescriptor = { [key: string]: StoredItem };

export function storeDescriptor(desc: StubActionDescriptor, s: (n: number) => string): StoredDescriptor {
  const out: StoredDescriptor = {};
  for (const [key, item] of desc.items) out[s(key)] = storeItem(item, s);
  return out;
}

function storeItem(item: Item, s: (n: number) => string): StoredItem {
  if (item.type === "object") return { type: "object", cls: s(item.classID!), value: storeDescriptor(item.value as StubActionDescriptor, s) };
  if (item.type === "unitDouble") return { type: "unitDouble", cls: s(item.classID!), value: item.value };
  if (item.type === "enumerated") return { type: "enumerated", enumType: s(item.enumType!), value: s(item.value as number) };
  if (item.type === "class") return { type: "class", value: s(item.value as number) };
  if (item.type === "list") {
    const list = item.value as StubActionList;
    return {
      type: "list",
      value: list.values.map((v, i) => {
        if (v instanceof StubActionDescriptor) return storeItem({ type: "object", value: v, classID: list.classes.get(i)! }, s);
        if (v instanceof StubActionReference) return storeItem({ type: "reference", value: v }, s);
        return { type: "number", value: v };
      }),
    };
  }
  if (item.type === "reference") return { type: "reference", value: storeReference(item.value as StubActionReference, s) };
  if (item.type === "path") throw new Error("a path is not kept in the stub's model");
  return { type: item.type, value: item.value };
}

type StoredPart = { form: string; desiredClass: string; value?: string; enumType?: string; id?: number; index?: number; name?: string };

function storeReference(ref: StubActionReference, s: (n: number) => string): StoredPart[] {
  return ref.parts.map((p) => {
    if (p.form === "enumerated") return { form: p.form, desiredClass: s(p.desiredClass), enumType: s(p.enumType), value: s(p.value) };
    if (p.form === "property") return { form: p.form, desiredClass: s(p.desiredClass), value: s(p.property) };
    if (p.form === "identifier") return { form: p.form, desiredClass: s(p.desiredClass), id: p.id };
    if (p.form === "index") return { form: p.form, desiredClass: s(p.desiredClass), index: p.index };
    if (p.form === "name") return { form: p.form, desiredClass: s(p.desiredClass), name: p.name };
    return { form: p.form, desiredClass: s(p.desiredClass) };
  });
}

function loadReference(parts: StoredPart[], k: (id: string) => number): StubActionReference {
  const ref = new StubActionReference();
  for (const p of parts) {
    if (p.form === "enumerated") ref.putEnumerated(k(p.desiredClass), k(p.enumType!), k(p.value!));
    else if (p.form === "property") ref.putProperty(k(p.desiredClass), k(p.value!));
    else if (p.form === "identifier") ref.putIdentifier(k(p.desiredClass), p.id!);
    else if (p.form === "index") ref.putIndex(k(p.desiredClass), p.index!);
    else if (p.form === "name") ref.putName(k(p.desiredClass), p.name!);
    else ref.putClass(k(p.desiredClass));
  }
  return ref;
}

/** A kept descriptor as a descriptor of this run's type ids. */
export function loadDescriptor(stored: StoredDescriptor, k: (id: string) => number): StubActionDescriptor {
  const out = new StubActionDescriptor();
  for (const [key, item] of Object.entries(stored)) {
    const id = k(key);
    if (item.type === "object") out.putObject(id, k(item.cls!), loadDescriptor(item.value as StoredDescriptor, k));
    else if (item.type === "unitDouble") out.putUnitDouble(id, k(item.cls!), item.value as number);
    else if (item.type === "enumerated") out.putEnumerated(id, k(item.enumType!), k(item.value as string));
    else if (item.type === "class") out.putClass(id, k(item.value as string));
    else if (item.type === "list") {
      const list = new StubActionList();
      for (const v of item.value as StoredItem[]) {
        if (v.type === "object") list.putObject(k(v.cls!), loadDescriptor(v.value as StoredDescriptor, k));
        else if (v.type === "reference") list.putReference(loadReference(v.value as StoredPart[], k));
        else list.putDouble(v.value as number);
      }
      out.putList(id, list);
    } else if (item.type === "reference") out.putReference(id, loadReference(item.value as StoredPart[], k));
    else if (item.type === "boolean") out.putBoolean(id, item.value as boolean);
    else if (item.type === "integer") out.putInteger(id, item.value as number);
    else if (item.type === "double") out.putDouble(id, item.value as number);
    else if (item.type === "string") out.putString(id, item.value as string);
    else throw new Error(`a kept ${item.type} is not modelled`);
  }
  return out;
}
