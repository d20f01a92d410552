/**
 * The learner's and instructor's commands, one program with subcommands (each an npm script):
 *
 *   watch [chapterN] [--plain] [--poll]   re-run the current chapter on every save
 *   hint chapterN [--reset] [--lang zh]   the next hint for the first unfinished stub (in Chinese: --lang zh or LANG=zh_CN…)
 *   progress | list                       every chapter with passed/total
 *   grade [--solution] [--json F] [--junit F]
 *   solution chapterN                     the reference diff for a chapter's stubs
 *   reset chapterN [--yes]                put a chapter's stubs back
 *   doctor                                check the set-up
 */
import { exitWhenStdoutCloses } from './lib/exit.js';
import { ROOT } from './lib/paths.js';
import { UsageError } from './kit/args.js';
import { KitRunError } from './kit/run-tests.js';

type Command = (root: string, args: string[]) => Promise<number>;
// Each command is loaded when it is asked for, so one command does not pay for the others' imports.
const commands: Record<string, () => Promise<Command>> = {
  watch: async () => (await import('./kit/watch.js')).watchCommand,
  hint: async () => (await import('./kit/hint.js')).hintCommand,
  progress: async () => (await import('./kit/progress.js')).progressCommand,
  list: async () => (await import('./kit/progress.js')).progressCommand,
  grade: async () => (await import('./kit/grade.js')).gradeCommand,
  solution: async () => (await import('./kit/solution.js')).solutionCommand,
  reset: async () => (await import('./kit/reset.js')).resetCommand,
  doctor: async () => (await import('./kit/doctor.js')).doctorCommand,
};

exitWhenStdoutCloses();

const [name, ...args] = process.argv.slice(2);
const load = name && Object.hasOwn(commands, name) ? commands[name] : undefined;
if (!load) {
  console.error(`Usage: tsx scripts/kit.ts <${Object.keys(commands).join('|')}> [args]`);
  process.exit(2);
}
try {
  const command = await load();
  process.exitCode = await command(process.env.KIT_ROOT ?? ROOT, args);
} catch (error) {
  if (error instanceof UsageError && error.asked) console.log(error.message);
  else if (error instanceof UsageError) {
    console.error(error.message);
    process.exitCode = 2;
  } else if (error instanceof KitRunError) {
    console.error(`The kit could not run the tests.\n${error.message}`);
    process.exitCode = 3;
  } else throw error;
}
process.exit(process.exitCode ?? 0);
