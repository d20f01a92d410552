/**
 * Where this source tree is on disk (the folder that holds index.ts). `npm run acp` serves the tree named by
 * KIT_SRC, so a test that starts the server as an editor would (a child process over stdio) can make it run exactly
 * the code the test itself imports: the learner's, the reference, or a copy under test.
 */
import { fileURLToPath } from 'node:url';

export const KIT_SOURCE = fileURLToPath(new URL('..', import.meta.url));
