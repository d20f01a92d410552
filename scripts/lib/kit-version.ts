import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './paths.js';

/** The kit's version (package.json): what --version prints, and what the agent tells a client it is. */
export function kitVersion(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
