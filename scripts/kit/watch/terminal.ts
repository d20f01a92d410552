/** npm run watch's terminal: lines out, a note for anything slow, and the keys in (one key, or a line with --plain). */
import { createInterface } from 'node:readline';
import { dim } from '../ui.js';

export const print = (text: string) => process.stdout.write(`${text}\n`);

/** Clears the terminal and puts the cursor at the top left (each screen is drawn whole). */
export const CLEAR_SCREEN = '\u001b[2J\u001b[H';

/** Prints `text` if `work` is still going after a second: a progress line for anything slow. */
export async function slow<T>(text: string, work: Promise<T>): Promise<T> {
  const timer = setTimeout(() => print(dim(text)), 1000);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
  }
}

/** Calls `onKey` with each key (on a terminal) or the first letter of each line (plain); returns how to stop. */
export function listenForKeys(plain: boolean, onKey: (key: string) => Promise<void>): () => void {
  if (plain) {
    const rl = createInterface({ input: process.stdin, terminal: false });
    rl.on('line', (line) => void onKey(line.trim().charAt(0)));
    return () => {
      process.stdin.pause();
      rl.close();
    };
  }
  process.stdin.setRawMode(true);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (data: string) => void onKey(data));
  process.stdin.resume();
  return () => {
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    process.stdin.pause();
  };
}
