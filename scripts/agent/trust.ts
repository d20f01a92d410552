import path from 'node:path';
import type { Kit } from '../lib/agent-kit.js';
import { note } from './output.js';

type WorkspaceTrust = import('../../solution/src/capstone/trust.js').WorkspaceTrust;
type AgentSettings = import('../../solution/src/capstone/trust.js').AgentSettings;

/**
 * Chapter 15's trust decision at start-up: what the folder asks to run (its hooks, .mcp.json servers, raised
 * settings), and the person's answer: --trust-workspace, else the remembered answer, else (interactive) a question
 * whose answer is remembered in ~/.coding-agent/trust.json, else (-p) untrusted, said on stderr.
 */
export async function decideTrust(
  kit: Kit,
  where: {
    cwd: string;
    home: string;
    settings: AgentSettings;
    interactive: boolean;
    flag: boolean;
    style: ReturnType<Kit['styleFor']>;
    askLine(): Promise<string | undefined>;
  },
): Promise<WorkspaceTrust> {
  const { cwd, home, settings, style } = where;
  if (where.flag) return { trusted: true, servers: 'all' };
  const mcpFile = path.join(cwd, '.mcp.json');
  let mcpJson: { file: string; json: unknown } | undefined;
  try {
    mcpJson = { file: mcpFile, json: JSON.parse(kit.readConfigFile(mcpFile, { roots: [cwd] })) };
  } catch {
    mcpJson = undefined; // missing, refused or broken: the factory says which
  }
  const requests = kit.folderRequests(settings, mcpJson);
  const remembered = kit.rememberedTrust(home, cwd);
  const servers = requests.flatMap((request) => (request.server === undefined ? [] : [request.server]));
  /** The folder's servers the answer has not approved (the person's answer only: never the folder's own files). */
  const unapproved = (answer: WorkspaceTrust) =>
    servers.filter((name) => answer.servers !== 'all' && !answer.servers?.includes(name));
  if (requests.length === 0) return remembered ?? { trusted: false };
  if (remembered && (!remembered.trusted || unapproved(remembered).length === 0)) return remembered;
  if (!where.interactive) {
    note(
      style.yellow(
        remembered?.trusted
          ? `(this folder is trusted, but .mcp.json servers you have not approved are skipped: ${kit.visible(unapproved(remembered).join(', '))}; npm run agent asks about them, --trust-workspace approves them)`
          : `(this folder is not trusted: its hooks, .mcp.json servers and raised settings are skipped; --trust-workspace trusts it)`,
      ),
    );
    return remembered ?? { trusted: false };
  }
  note(style.yellow(`This folder asks to run or change:`));
  for (const line of kit.describeRequests(requests)) note(`  ${line}`);
  note(
    style.yellow(
      `Trust ${kit.visible(cwd)}? Its hooks and servers run as you, with what you give them. [y]es / [n]o (remembered)`,
    ),
  );
  const answer = (await where.askLine()) ?? '';
  const trust: WorkspaceTrust = /^y(es)?$/i.test(answer.trim()) ? { trusted: true, servers } : { trusted: false };
  kit.rememberTrust(home, cwd, trust);
  note(
    style.dim(
      trust.trusted
        ? '(trusted; remembered in ~/.coding-agent/trust.json)'
        : "(not trusted: the folder's hooks, servers and raised settings are skipped; remembered)",
    ),
  );
  return trust;
}
