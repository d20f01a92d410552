/** A vitest reporter that writes every test's outcome, with its project, to the file named by KIT_VERIFY_OUT. */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export interface TestOutcome {
  project: string;
  file: string;
  name: string;
  state: string;
  messages: string[];
  /** The chapter regions the test reached, with those its file's run reached outside any test (where traced). */
  regions?: string[];
  /** How long the test took, in milliseconds (for verify's summary of where the workspaces' run waits). */
  ms?: number;
}

export default class VerifyReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<{ message?: string }>) {
    const outcomes: TestOutcome[] = [];
    // The known-wrong workspaces share one project: a file there is <workspace>/tests/…, and its project is <workspace>.
    const shared = process.env.KIT_VERIFY_WORKSPACES_PROJECT;
    for (const module of modules) {
      const inShared = shared !== undefined && module.project.name === shared;
      const [head, ...rest] = module.relativeModuleId.split('/');
      const file = inShared ? rest.join('/') : module.relativeModuleId;
      const project = inShared ? head! : module.project.name;
      for (const error of module.errors()) {
        outcomes.push({ project, file, name: '(file failed to load)', state: 'failed', messages: [error.message] });
      }
      const outside = (module.meta() as { kitRegions?: string[] }).kitRegions ?? [];
      for (const test of module.children.allTests()) {
        const result = test.result();
        const own = (test.meta() as { kitRegions?: string[] }).kitRegions;
        outcomes.push({
          project,
          file,
          name: test.fullName,
          state: result.state,
          messages: (result.errors ?? []).map((error) => `${error.name ?? 'Error'}: ${error.message}`),
          ms: test.diagnostic()?.duration,
          ...(own || outside.length ? { regions: [...new Set([...(own ?? []), ...outside])] } : {}),
        });
      }
    }
    writeFileSync(
      process.env.KIT_VERIFY_OUT!,
      JSON.stringify({ outcomes, unhandled: unhandled.map((error) => String(error.message)) }),
    );
  }
}
