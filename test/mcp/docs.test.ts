import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILTIN_METHODS } from "../../src/methods/index.js";
import { EXCLUDED_METHODS, PROMPTS, SCRIPT_METHODS, toolTable } from "../../src/mcp/index.js";

const DOC = readFileSync(new URL("../../docs/mcp.md", import.meta.url), "utf8");

/** The tool table of docs/mcp.md, between its markers. */
function documentedRows(): string[] {
  const section = /<!-- tools -->\n([\s\S]*?)\n<!-- \/tools -->/.exec(DOC);
  if (section === null) throw new Error("docs/mcp.md has no <!-- tools --> section");
  return section[1]!.split("\n").slice(2);
}

describe("docs/mcp.md", () => {
  it("lists exactly the tools derived from the built-in methods, with their kind", () => {
    const rows = [...toolTable(BUILTIN_METHODS, { allowScripts: true }).values()].map(({ tool, method }) => {
      const kind = tool.annotations.destructiveHint ? "destructive" : tool.annotations.readOnlyHint ? "read-only" : "changes the document";
      const scripts = SCRIPT_METHODS.includes(method.name) ? ", only with `--mcp-allow-scripts`" : "";
      return `| \`${tool.name}\` | \`${method.name}\` | ${kind}${scripts} |`;
    });
    expect(documentedRows()).toEqual(rows);
  });

  it("names every method left out", () => {
    for (const name of EXCLUDED_METHODS) expect(DOC).toContain(`\`${name}\``);
  });

  it("documents every prompt, and each prompt names only tools that exist", () => {
    const prompts = /## Prompts\n([\s\S]*?)\n## /.exec(DOC)![1]!;
    const tools = new Set([...toolTable(BUILTIN_METHODS, { allowScripts: false }).values()].map(({ tool }) => tool.name));
    for (const prompt of PROMPTS) {
      expect(prompts).toContain(`\`${prompt.name}\``);
      const args = Object.fromEntries(prompt.arguments.map((a) => [a.name, `<${a.name}>`]));
      const named = prompt.text(args).match(/\b[a-z]+_[a-zA-Z]+\b/g) ?? [];
      expect(named.length, prompt.name).toBeGreaterThan(0);
      for (const name of named) expect(tools.has(name), `${prompt.name} names ${name}`).toBe(true);
    }
  });
});
