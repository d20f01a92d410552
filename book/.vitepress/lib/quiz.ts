/**
 * The "Check yourself" quiz blocks of the guide:
 *
 *   ```quiz
 *   Q: Why must the assistant turn be appended before its tool results?
 *   - [ ] Because providers sort messages by time.
 *     > No: nothing is re-sorted.
 *   - [x] Because every result has to follow the call it answers.
 *     > Right: ...
 *   ```
 *
 * One question per block, at least two choices, exactly one marked [x], and an explanation (`>` lines) for each.
 */
export interface QuizChoice {
  text: string;
  correct: boolean;
  explanation: string;
}

export interface Quiz {
  question: string;
  choices: QuizChoice[];
}

export function parseQuiz(source: string): { quiz: Quiz; problems: string[] } {
  const problems: string[] = [];
  const quiz: Quiz = { question: '', choices: [] };
  let questions = 0;
  let inQuestion = false;
  for (const raw of source.split('\n')) {
    const line = raw.trimEnd();
    if (line.trim() === '') continue;
    const q = /^Q:\s*(.*)$/.exec(line.trim());
    const choice = /^[-*]\s+\[( |x|X)\]\s+(.*)$/.exec(line.trim());
    const explanation = /^>\s?(.*)$/.exec(line.trim());
    if (q) {
      questions++;
      quiz.question = q[1]!;
      inQuestion = true;
    } else if (choice) {
      inQuestion = false;
      quiz.choices.push({ text: choice[2]!, correct: choice[1] !== ' ', explanation: '' });
    } else if (explanation && quiz.choices.length > 0) {
      const last = quiz.choices.at(-1)!;
      last.explanation = last.explanation ? `${last.explanation} ${explanation[1]}` : explanation[1]!;
    } else if (inQuestion) {
      quiz.question += ` ${line.trim()}`;
    } else if (quiz.choices.length > 0 && /^\s+\S/.test(raw) && !quiz.choices.at(-1)!.explanation) {
      quiz.choices.at(-1)!.text += ` ${line.trim()}`;
    } else {
      problems.push(`unexpected line: "${line.trim()}"`);
    }
  }
  if (questions !== 1)
    problems.push(
      questions === 0
        ? 'no question (a line starting with "Q:")'
        : `${questions} questions in one block (one per block)`,
    );
  if (quiz.choices.length < 2)
    problems.push(`${quiz.choices.length} choice(s); a quiz needs at least two ("- [ ]" / "- [x]")`);
  const correct = quiz.choices.filter((c) => c.correct).length;
  if (correct !== 1) problems.push(`${correct} correct answers; mark exactly one with [x]`);
  quiz.choices.forEach((c, i) => {
    if (!c.explanation.trim())
      problems.push(`choice ${i + 1} ("${c.text}") has no explanation (an indented "> ..." line)`);
  });
  return { quiz, problems };
}
