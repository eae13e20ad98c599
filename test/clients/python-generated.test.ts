import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonClientModule } from "../../src/methods/contract/index.js";
import { snakeCase } from "../../src/methods/contract/python.js";
import { BUILTIN_METHODS } from "../../src/methods/index.js";
import { PACKAGE } from "../../src/version.js";

const ROOT = join(import.meta.dirname, "../..");

describe("the Python client's generated module", () => {
  it("is what the build generates from the method table now", () => {
    const committed = readFileSync(join(ROOT, "clients/python/image_editor_bridge/_generated.py"), "utf8");
    expect(committed).toBe(pythonClientModule({ methods: BUILTIN_METHODS, server: PACKAGE }));
  });

  it("has a typed helper for every built-in method but the ones the client implements itself", () => {
    const module = pythonClientModule({ methods: BUILTIN_METHODS, server: PACKAGE });
    for (const method of BUILTIN_METHODS.map((m) => m.name).filter((name) => !name.startsWith("event:"))) {
      expect(module, method).toContain(`self._invoke_method(${JSON.stringify(method)},`);
    }
    expect(module).not.toContain('self._invoke_method("event:subscribe"');
  });

  it("a method added to the table appears with snake-case keyword arguments", () => {
    const [template] = BUILTIN_METHODS.filter((m) => m.name === "layer:update");
    const renamed = { ...template!, name: "poster:makeBig" };
    const module = pythonClientModule({ methods: [...BUILTIN_METHODS, renamed], server: PACKAGE });
    expect(module).toContain("class PosterMethods:");
    expect(module).toContain("    poster: PosterMethods");
    expect(module).toMatch(/async def make_big\(\n {8}self,\n {8}\*,\n {8}document_id: int \| None = None,/);
  });

  it("names arguments in snake case and keeps them clear of Python keywords", () => {
    expect(snakeCase("getInfoById")).toBe("get_info_by_id");
    expect(snakeCase("exportLayerWithSelectedPath")).toBe("export_layer_with_selected_path");
    expect(snakeCase("from")).toBe("from_");
    expect(snakeCase("maxSize")).toBe("max_size");
  });
});
