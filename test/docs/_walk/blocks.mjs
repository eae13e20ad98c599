// The shell blocks of Markdown pages, and which of them the docs walk knows (see test/docs/walk.mjs).

/** Info strings of the fenced blocks a reader would paste into a shell. */
const SHELL_INFO = /^(sh|bash|shell|console|zsh)\b/;

/** The marker a block the walk cannot run carries on the line right above its fence. */
const MARKER = /^\s*<!--\s*walk:\s*form-only\s*\(([^)]+)\)\s*-->\s*$/;

/**
 * The fenced shell blocks of a Markdown text, each with its commands as a reader would paste them: backslash
 * continuations joined, blank and comment-only lines left out, `console` blocks' `$ ` lines only.
 */
export function shellBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/.exec(lines[i]);
    if (open === null) continue;
    const [, indent, fence, info] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    if (SHELL_INFO.test(info)) {
      const marker = i > 0 ? MARKER.exec(lines[i - 1]) : null;
      const body = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
      blocks.push({ line: i + 1, info, formOnly: marker === null ? undefined : marker[1].trim(), commands: commandsOf(body, info === "console") });
    }
    i = end;
  }
  return blocks;
}

/** The commands of a block's lines, each `{ text, key }`: the literal text to run, and the text without its comment. */
function commandsOf(body, isConsole) {
  const commands = [];
  let pending = "";
  for (const raw of body) {
    let line = raw;
    if (isConsole && pending === "") {
      if (!line.startsWith("$ ")) continue; // output, not a command
      line = line.slice(2);
    }
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += `${line}\n`;
      continue;
    }
    const text = pending + line;
    pending = "";
    commands.push({ text, key: keyOf(text) });
  }
  return commands;
}

/** A command without its trailing comment and with its whitespace (continuations included) collapsed. */
export function keyOf(text) {
  let quote = "";
  let cut = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== "") {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && /\s/.test(text[i - 1] ?? " ")) {
      cut = i;
      break;
    }
  }
  return text.slice(0, cut).replace(/\\\n/g, " ").replace(/\s+/g, " ").trim();
}

/**
 * What the walk would miss in these pages: a command of an unmarked block the plan does not run, a command of a
 * marked block the plan does not check for form, and plan entries that name a command no page has any more.
 */
export function coverageProblems(pages, plan) {
  const problems = [];
  const seen = new Set();
  for (const { path, text } of pages) {
    const steps = plan[path] ?? [];
    for (const block of shellBlocks(text)) {
      for (const { key } of block.commands) {
        const step = steps.find((s) => s.cmd === key);
        const where = `${path}:${block.line}`;
        if (step === undefined) {
          problems.push(
            block.formOnly === undefined
              ? `${where}: the walk neither runs "${key}" nor is its block marked <!-- walk: form-only (reason) -->`
              : `${where}: "${key}" is marked form-only but the walk has no form check for it`,
          );
          continue;
        }
        seen.add(`${path}\n${key}`);
        if (block.formOnly !== undefined && step.form === undefined) problems.push(`${where}: "${key}" is marked form-only, but the walk's plan runs it`);
        if (block.formOnly === undefined && step.form !== undefined) problems.push(`${where}: the walk checks "${key}" for form only, but its block has no form-only marker saying why`);
      }
    }
  }
  for (const [path, steps] of Object.entries(plan)) {
    for (const step of steps) {
      if (step.cmd !== undefined && !seen.has(`${path}\n${step.cmd}`)) problems.push(`${path}: the walk's plan names "${step.cmd}", which the page no longer has`);
    }
  }
  return problems;
}
