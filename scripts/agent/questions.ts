/**
 * The two questions npm run agent asks in the terminal while a run is under way: may this call run (chapter 15's
 * terminalQuestion, one key press), and is the plan approved (chapter 13's plan mode). With -p nobody is asked.
 */
import type { EventDisplay } from './event-display.js';
import { out } from './output.js';
import type { Program } from './program.js';

type FactoryConfig = import('../../solution/src/capstone/factory.js').FactoryConfig;

/** The permission question, asked until the answer is one of its keys; "always" says what is remembered. */
export function permissionQuestion(program: Program, display: EventDisplay): NonNullable<FactoryConfig['ask']> {
  const { kit, reader, cwd, style } = program;
  const question = kit.terminalQuestion(
    { write: (text) => display.say(text), read: (signal) => reader.key(signal) },
    { cwd, width: process.stdout.columns, style },
  );
  return async (request, signal) => {
    const answer = await question(request, signal);
    if (answer === 'allow_always') {
      out(
        style.dim(
          request.stillAsks
            ? `  ✓ allowed this time; asked again next time: ${request.stillAsks}\n`
            : request.suggestedRules.length > 0
              ? `  ✓ allowed from now on in this session: ${request.suggestedRules.join(', ')}\n`
              : '  ✓ allowed (no narrower rule to remember: asked again next time)\n',
        ),
      );
    }
    return answer;
  };
}

/** A key answering the plan question: y (default mode), a (accept edits), n (keep planning), else undefined. */
function planKey(line: string): 'default' | 'acceptEdits' | 'keep' | undefined {
  const key = line.trim().toLowerCase();
  if (key === 'y' || key === 'yes') return 'default';
  if (key === 'a' || key === 'accept') return 'acceptEdits';
  if (key === 'n' || key === 'no') return 'keep';
  return undefined;
}

/** The plan question: the plan, then one key; "no" asks what should change (the feedback goes back to the model). */
export function planQuestion(program: Program, display: EventDisplay): NonNullable<FactoryConfig['approvePlan']> {
  const { kit, reader, style } = program;
  const say = (text: string) => display.say(text);
  return async (plan, signal) => {
    display.planShown = true;
    const keys = '[y]es, ask before edits / [a]ccept edits / [n]o, keep planning';
    say(
      `${style.bold('  The plan:')}\n${plan
        .split('\n')
        .map((line) => `    ${kit.visible(line, '\t')}`)
        .join('\n')}\n`,
    );
    say(`  ${style.yellow('Approve this plan?')} ${keys}\n`);
    let mode: ReturnType<typeof planKey>;
    for (;;) {
      const line = await reader.key(signal);
      if (line === undefined) return { approved: false, feedback: 'Nobody answered: give the plan as your answer.' };
      mode = planKey(line);
      if (mode) break;
      say(`  ${style.yellow('Answer with one key:')} ${keys}\n`);
    }
    if (mode !== 'keep') return { approved: true, mode };
    out(`  ${style.dim('What should change? (Enter to skip)')}\n`);
    const feedback = (await reader.next(signal))?.trim();
    return { approved: false, ...(feedback ? { feedback } : {}) };
  };
}
