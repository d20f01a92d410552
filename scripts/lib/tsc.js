/**
 * The one way the kit starts the TypeScript compiler: `npm test`'s type check (scripts/test.mjs), watch and doctor
 * (scripts/kit/typecheck.ts) and verify all go through `runTsc`.
 *
 * Plain JavaScript (types in tsc.d.ts) so that `npm test` can use it with no TypeScript loader. TypeScript 7's tsc is
 * a native binary behind a small Node wrapper: the binary is spawned directly when it can be found (no second Node
 * in front of it, about 0.1 s less per check), else the wrapper is run by this Node.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The command that runs tsc in `root`'s node_modules, or undefined when typescript is not installed. */
export async function tscCommand(root) {
  const exe = process.platform === 'win32' ? 'tsc.exe' : 'tsc';
  const native = path.join(root, `node_modules/@typescript/typescript-${process.platform}-${process.arch}/lib/${exe}`);
  if (existsSync(native)) return { command: native, args: [] };
  const lib = path.join(root, 'node_modules/typescript/lib');
  // Where the package itself looks for its binary (a platform package installed somewhere else).
  const helper = path.join(lib, 'getExePath.js');
  if (existsSync(helper)) {
    try {
      const found = (await import(pathToFileURL(helper).href)).default();
      if (found && existsSync(found)) return { command: found, args: [] };
    } catch {
      // fall back to the wrapper
    }
  }
  for (const script of [path.join(lib, 'tsc.js'), path.join(root, 'node_modules/typescript/bin/tsc')])
    if (existsSync(script)) return { command: process.execPath, args: [script] };
  return undefined;
}

/**
 * Runs `tsc ...args` in `root` and resolves to its exit code (null when it was killed) and everything it printed,
 * stdout and stderr together; undefined when typescript is not installed. Rejects when tsc cannot start or `signal`
 * aborts it. The compiler never outlives this process (an interrupted run, an exit on an error).
 */
export async function runTsc(root, args, options = {}) {
  const tsc = await tscCommand(root);
  if (!tsc) return undefined;
  return new Promise((resolve, reject) => {
    const child = spawn(tsc.command, [...tsc.args, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: options.signal,
    });
    const stop = () => child.kill();
    process.once('exit', stop);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      process.off('exit', stop);
      reject(error);
    });
    child.on('close', (code) => {
      process.off('exit', stop);
      resolve({ code, output });
    });
  });
}
