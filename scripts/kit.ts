/**
 * The learner's and instructor's commands, one program with subcommands (each an npm script):
 *
 *   watch [chapterN] [--plain] [--poll]   re-run the current chapter on every save
 *   hint chapterN [--reset]               the next hint for the first unfinished stub
 *   progress | list                       every chapter with passed/total
 *   grade [--solution] [--json F] [--junit F]
 *   solution chapterN                     the reference diff for a chapter's stubs
 *   reset chapterN [--yes]                put a chapter's stubs back
 *   doctor                                check the set-up
 */
import { ROOT } from './lib/paths.js';
import { UsageError } from './kit/args.js';
import { doctorCommand } from './kit/doctor.js';
import { gradeCommand } from './kit/grade.js';
import { hintCommand } from './kit/hint.js';
import { progressCommand } from './kit/progress.js';
import { resetCommand } from './kit/reset.js';
import { KitRunError } from './kit/run-tests.js';
import { solutionCommand } from './kit/solution.js';
import { watchCommand } from './kit/watch.js';

const commands: Record<string, (root: string, args: string[]) => Promise<number>> = {
  watch: watchCommand,
  hint: hintCommand,
  progress: progressCommand,
  list: progressCommand,
  grade: gradeCommand,
  solution: solutionCommand,
  reset: resetCommand,
  doctor: doctorCommand,
};

// Output piped into `head` and closed early is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  console.error(`Usage: tsx scripts/kit.ts <${Object.keys(commands).join('|')}> [args]`);
  process.exit(2);
}
try {
  process.exitCode = await command(process.env.KIT_ROOT ?? ROOT, args);
} catch (error) {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exitCode = 2;
  } else if (error instanceof KitRunError) {
    console.error(`The kit could not run the tests.\n${error.message}`);
    process.exitCode = 3;
  } else throw error;
}
process.exit(process.exitCode ?? 0);
