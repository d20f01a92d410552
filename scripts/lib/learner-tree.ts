/**
 * The tree `npm run agent -- --starter` and `npm run acp -- --starter` run: the learner's own code, built by chapter
 * 15's factory in every case, so there is one wiring of the agent and one trust policy (capstone/trust.ts) at every
 * stage of the course.
 *
 * A learner's tree is rarely whole, so before it runs, three kinds of stub are filled in a copy of it (the learner's
 * files are never touched):
 * - the stubs of chapters 6, 7 and 15 not written yet get the reference's body: they are the glue (the streaming
 *   turn, the loop, the factory and the program's parts), and without them nothing of the learner's would run at all
 *   before chapter 15 (their own SimpleAgent and StreamingAgent are the lessons of chapters 3 and 6, seen in the
 *   tests; the program runs chapter 7's loop, as every part after chapter 7 does);
 * - a chapter of 8 to 13, or 16, with any stub not written yet is left out of the agent: the stand-ins below replace
 *   the entry points the factory reaches, each with the part's neutral form (no retries, no MCP servers, one call at
 *   a time, no sandbox, ...), never a looser one (without chapter 8, every call but a built-in read is asked about;
 *   without chapter 16, a sandbox the settings turn on is off, said in one line, and every command is asked about);
 * - everything else is the learner's, as written: a stub of chapters 1-5 or 14 that is reached throws its TodoError,
 *   and the program says which chapter to finish.
 * A stub is "not written yet" while its body is still the generated `throw new TodoError(...)`.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { ROOT } from './paths.js';
import { listSources, parseRegions, type Region, rewriteRegions, todoImportFor } from './regions.js';

/** The chapters whose part the factory leaves out when they are not finished (with the stand-ins below). */
export const OPTIONAL_CHAPTERS = [8, 9, 10, 11, 12, 13, 16] as const;
/** The chapters whose unwritten stubs run the reference's body: the streaming turn, the loop, the program. */
export const GLUE_CHAPTERS = [6, 7, 15] as const;

/** What each optional chapter's absence means for the person, in a few words. */
const LEFT_OUT: Record<(typeof OPTIONAL_CHAPTERS)[number], string> = {
  8: 'permission rules (8: every call but a read is asked about)',
  9: 'parallel calls (9)',
  10: 'retries (10)',
  11: 'MCP servers (11)',
  12: 'saved sessions (12)',
  13: 'planning tools (13)',
  16: 'the sandbox (16: commands are asked about as without it)',
};

/**
 * The stand-ins: for each optional chapter, the inner lines of the regions that replace its entry points while the
 * chapter is not finished. Each is written for the region's place in the reference (its parameters, its file's
 * imports); tests/kit/learner-tree.test.ts type-checks every stand-in in place and runs the agent at each stage.
 */
export const STAND_INS: Record<(typeof OPTIONAL_CHAPTERS)[number], Record<string, string[]>> = {
  8: {
    'chapter 8: loadSettings': [
      '// Stand-in (chapter 8 not finished): no rules and no settings files are read.',
      'void root;',
      'void home;',
      'return { rules: [], files: [] };',
    ],
    'chapter 8: createPermissionGate.beforeToolCall': [
      '// Stand-in (chapter 8 not finished): no rule can be read, so nothing runs without the person saying yes,',
      '// whatever the mode, but for the built-in tools that only read, and only where no settings file exists (its',
      '// deny rules could not be kept).',
      "const { existsSync } = await import('node:fs');",
      "const { settingsFiles } = await import('./settings.js');",
      'const noSettings = !settingsFiles(options.workspace.root, options.workspace.home).some((file) => existsSync(file));',
      "if (noSettings && ['read', 'glob', 'grep'].includes(call.name)) {",
      "  const why = 'a built-in tool that only reads (chapter 8 is not finished: every other call is asked about)';",
      '  return { type: "allow", permission: { outcome: "allowed", reason: why, mode } };',
      '}',
      "const reason = 'chapter 8 (permissions) is not finished, so every call is asked about';",
      'const note: PermissionNote = { outcome: "asked", reason, mode };',
      'const request: PermissionRequest = { call, reason, suggestedRules: [], stillAsks: reason };',
      'const answer = options.ask && (await rejectOnAbort(options.ask(request, ctx.signal), ctx.signal));',
      'if (answer === "allow_once" || answer === "allow_always") return { type: "allow", permission: { ...note, answer } };',
      'if (answer === undefined) {',
      '  return {',
      '    type: "block",',
      "    message: `Permission needed: ${call.name} needs the person's approval (${reason}), and nobody can answer here.`,",
      '    permission: { ...note, outcome: "denied" },',
      '  };',
      '}',
      'return {',
      '  type: "block",',
      '  message: `The person rejected this ${call.name} call. Do not retry it; ask them what to do instead.`,',
      '  permission: { ...note, answer },',
      '};',
    ],
  },
  9: {
    'chapter 9: runsInParallel': [
      '// Stand-in (chapter 9 not finished): one call at a time.',
      'void call;',
      'void tools;',
      'return false;',
    ],
    'chapter 9: runInParallel': [
      '// Stand-in (chapter 9 not finished): the calls one after another, as chapter 7 runs them.',
      'void concurrency;',
      'for (const call of calls) {',
      '  if (turn.signal.aborted) return;',
      '  const result = yield* runCall(call);',
      '  if (result) turn.record(result);',
      '}',
    ],
    'chapter 9: outputBudget.afterToolCall': [
      '// Stand-in (chapter 9 not finished): results are kept as they are.',
      'void call;',
      'void result;',
      'void cwd;',
      'void tailChars;',
      'void redact;',
      'return undefined;',
    ],
  },
  10: {
    'chapter 10: RetryingProvider.complete': [
      '// Stand-in (chapter 10 not finished): one try.',
      'return this.inner.complete(request);',
    ],
    'chapter 10: RetryingProvider.stream': [
      '// Stand-in (chapter 10 not finished): one try.',
      'yield* turnEvents(this.inner, request);',
    ],
  },
  11: {
    'chapter 15: mcpServerList': [
      '// Stand-in (chapter 11 not finished): no MCP server is started; the person is told which were configured.',
      'void env;',
      'void approve;',
      "const named = [...(existsSync(path.join(cwd, '.mcp.json')) ? ['.mcp.json'] : []), ...files, ...Object.keys(extra)];",
      'return {',
      '  servers: {},',
      '  problems: named.length > 0 ? [`mcp: chapter 11 is not finished, so no MCP server is started (${named.join(", ")})`] : [],',
      '};',
    ],
  },
  12: {
    'chapter 15: openSavedSession': [
      '// Stand-in (chapter 12 not finished): no saved session.',
      'void store;',
      'void model;',
      'if (options.resume !== undefined || options.continue)',
      "  throw new Error('--resume and --continue need chapter 12 (saved sessions), which is not finished yet');",
      'return undefined;',
    ],
    'chapter 12: buildSystemPrompt': [
      "// Stand-in (chapter 12 not finished): the kit's base prompt (or its replacement), no instruction files.",
      'const text = [options.replace ?? basePrompt(options.cwd), ...(options.append ? [options.append] : [])].join("\\n\\n");',
      'return { text, files: [], warnings: [] };',
    ],
    'chapter 12: compactionHook': [
      '// Stand-in (chapter 12 not finished): the history is never compacted.',
      'void request;',
      'void ctx;',
      'return undefined;',
    ],
    'chapter 12: costOf': [
      '// Stand-in (chapter 12 not finished): the cost is unknown.',
      'void usage;',
      'void price;',
      'return undefined;',
    ],
    'chapter 12: SessionStore.list': ['// Stand-in (chapter 12 not finished): no saved sessions.', 'return [];'],
    'chapter 12: priceFor': [
      '// Stand-in (chapter 12 not finished): no prices.',
      'void model;',
      'void table;',
      'return undefined;',
    ],
  },
  13: {
    'chapter 13: planRequest': [
      '// Stand-in (chapter 13 not finished): the request as it is.',
      'void mode;',
      'return request;',
    ],
    'chapter 13: planDecision': [
      '// Stand-in (chapter 13 not finished): in plan mode only read-only tools run.',
      'if (mode !== "plan" || tools?.get(call.name)?.readOnly === true) return undefined;',
      'return { type: "block", message: `Plan mode: ${call.name} changes things, and nothing may change while planning.` };',
    ],
    'chapter 15: agentTools': [
      '// Stand-in (chapter 13 not finished): no todo_write, exit_plan_mode or task tools.',
      'const client = new Map((parts.client ?? []).map((tool) => [tool.name, tool]));',
      'const builtins = [...builtinTools()].map((tool) => client.get(tool.name) ?? tool);',
      'const extra = [...client.values()].filter((tool) => !builtins.includes(tool));',
      'return [...builtins, ...extra, ...(parts.mcp ?? [])];',
    ],
  },
  16: {
    'chapter 16: sandboxPolicy': [
      '// Stand-in (chapter 16 not finished): the sandbox stays off, and a setting that turns it on is said to be unused.',
      'void trusted;',
      'const asked = layers.filter((layer) => layer.sandbox.enabled === true).map((layer) => layer.file);',
      'const dropped = asked.map(',
      '  (file) => `${file}: sandbox.enabled not used: chapter 16 is not finished, so commands are asked about as without a sandbox`,',
      ');',
      'return { policy: defaultSandboxPolicy(workspace), dropped };',
    ],
  },
};

const TODO_LINE = /^\s*throw new TodoError\(\d+, '(?:[^'\\]|\\.)*'\);\s*$/;
const isCode = (line: string) => line.trim() !== '' && !/^\s*\/\//.test(line);

/** True while the region's body is still the generated stub: its only code is the TodoError throw. */
export function notWritten(region: Pick<Region, 'body'>): boolean {
  const code = region.body.filter(isCode);
  return code.length === 1 && TODO_LINE.test(code[0]!);
}

export interface AgentTree {
  /** The folder to load the code from: the tree itself when nothing needed filling, else a filled copy. */
  src: string;
  /** The optional chapters left out (8-13, not finished), in order. */
  leftOut: number[];
  /** The glue chapters (6, 7, 15) with stubs that run the reference's body. */
  filled: number[];
  /** One line for the person about both, or undefined when the tree runs whole. */
  note?: string;
}

/**
 * The tree to run for the learner's `src`: `src` itself when every chapter the agent uses is written, else a copy
 * under `.kit/agent-tree/` (named by its content, so runs side by side share it) with the stubs filled as above.
 */
export function agentTree(src: string, reference = path.join(ROOT, 'solution/src')): AgentTree {
  const files = listSources(src).map((rel) => {
    const text = readFileSync(path.join(src, rel), 'utf8');
    return { rel, text, regions: parseRegions(text, rel) };
  });
  const unfinished = new Set(files.flatMap((file) => file.regions.filter(notWritten).map((region) => region.chapter)));
  const leftOut = OPTIONAL_CHAPTERS.filter((chapter) => unfinished.has(chapter));
  const filled = GLUE_CHAPTERS.filter((chapter) => unfinished.has(chapter));
  const standIns = new Map(leftOut.flatMap((chapter) => Object.entries(STAND_INS[chapter])));
  if (standIns.size === 0 && filled.length === 0) return { src, leftOut, filled };

  // The inner lines of the reference's regions, by file and then by region, read once per file.
  const referenceRegions = new Map<string, Map<string, string[]>>();
  const referenceInner = (rel: string, key: string) => {
    if (!referenceRegions.has(rel)) {
      const file = path.join(reference, rel);
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      const lines = text.split('\n');
      const regions = parseRegions(text, rel).map(
        (region) => [`chapter ${region.chapter}: ${region.name}`, lines.slice(region.start + 1, region.end)] as const,
      );
      referenceRegions.set(rel, new Map(regions));
    }
    return referenceRegions.get(rel)!.get(key);
  };
  const out = files.map(({ rel, text }) => {
    const rewritten = rewriteRegions(
      text,
      todoImportFor(rel),
      (region) => {
        const key = `chapter ${region.chapter}: ${region.name}`;
        const standIn = standIns.get(key);
        if (standIn) return standIn.map((line) => (line ? `${region.indent}${line}` : line));
        if ((GLUE_CHAPTERS as readonly number[]).includes(region.chapter) && notWritten(region))
          return referenceInner(rel, key);
        return undefined;
      },
      rel,
    );
    return { rel, text: rewritten };
  });
  return { src: writeTree(out), leftOut, filled, note: treeNote(leftOut, filled) };
}

/** `(your code, without retries (10), saved sessions (12) until those chapters are done; the kit's code for ...)`. */
function treeNote(leftOut: readonly number[], filled: readonly number[]): string {
  const parts: string[] = [];
  if (leftOut.length > 0) {
    const names = leftOut.map((chapter) => LEFT_OUT[chapter as keyof typeof LEFT_OUT]);
    parts.push(
      `without ${names.join(', ')} until ${leftOut.length > 1 ? 'those chapters are' : 'that chapter is'} done`,
    );
  }
  if (filled.length > 0) {
    const which = `chapter${filled.length > 1 ? 's' : ''} ${filled.length > 1 ? `${filled.slice(0, -1).join(', ')} and ${filled.at(-1)}` : filled[0]}`;
    parts.push(`the kit's code for the stubs of ${which} you have not written`);
  }
  return `(your code, ${parts.join('; ')})`;
}

/** Writes the files into `.kit/agent-tree/<hash>` once (atomically: runs side by side may race) and returns it. */
function writeTree(files: ReadonlyArray<{ rel: string; text: string }>): string {
  const hash = createHash('sha256');
  for (const { rel, text } of files) hash.update(`${rel}\0${text}\0`);
  const base = path.join(ROOT, '.kit/agent-tree');
  const dir = path.join(base, hash.digest('hex').slice(0, 16));
  if (existsSync(path.join(dir, 'package.json'))) {
    utimesSync(dir, new Date(), new Date()); // in use: not pruned
    return dir;
  }
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  for (const { rel, text } of files) {
    mkdirSync(path.dirname(path.join(temp, rel)), { recursive: true });
    writeFileSync(path.join(temp, rel), text);
  }
  // The tree's packages are the kit's; its files are ES modules, as in the kit.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(temp, 'node_modules'), 'dir');
  writeFileSync(path.join(temp, 'package.json'), JSON.stringify({ type: 'module' }));
  try {
    renameSync(temp, dir);
  } catch {
    rmSync(temp, { recursive: true, force: true }); // another run wrote the same tree first
  }
  pruneOldTrees(base, dir);
  return dir;
}

/** Removes the copies not used for a day (a run in progress uses a recent one). */
function pruneOldTrees(base: string, keep: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(base)) {
    const dir = path.join(base, name);
    try {
      if (dir !== keep && statSync(dir).mtimeMs < dayAgo) rmSync(dir, { recursive: true, force: true });
    } catch {
      // removed by another run meanwhile
    }
  }
}
