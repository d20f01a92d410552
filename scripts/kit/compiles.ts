/**
 * Whether vitest could still load a source file, asked without running vitest: the results cache (cache.ts) reuses a
 * test file's results after an edit inside a region its run never reached, but a syntax error there would still stop
 * every test that loads the file. Each file goes through the same steps as in vitest: vite's TypeScript transform
 * (oxc), then the module runner's transform, then V8 compiles (and does not run) the result, so V8's own early errors
 * (a bad regular expression, a name declared twice) count too.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

/** The files among `files` that would not load, each with the first line of its error. */
export async function compileErrors(files: readonly string[]): Promise<Map<string, string>> {
  const errors = new Map<string, string>();
  if (files.length === 0) return errors;
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch (error) {
    // Without vite there is no telling: every file counts as broken, so its tests run rather than being reused.
    for (const file of files)
      errors.set(file, `vite did not load: ${String((error as Error)?.message ?? error).split('\n')[0]}`);
    return errors;
  }
  const { transformWithOxc, moduleRunnerTransform } = vite;
  for (const file of files) {
    try {
      const code = readFileSync(file, 'utf8');
      const js = await transformWithOxc(code, file, { lang: 'ts', sourcemap: false });
      const runnable = await moduleRunnerTransform(js.code, null, file, code);
      // The module runner evaluates a module as the body of a strict async function: compile it the same way.
      new vm.Script(`'use strict';(async function () {${runnable?.code ?? js.code}\n})`, { filename: file });
    } catch (error) {
      errors.set(file, String((error as Error)?.message ?? error).split('\n')[0]!);
    }
  }
  return errors;
}
