/**
 * claude-compare's cases: commands that run other commands or write files under the program's allow rule; chains,
 * substitutions, redirections and heredocs under Bash(echo:*) / Bash(cat:*); npm test under Bash(npm test:*);
 * subshells, groups, loops, functions, exact rules.
 */
import {
  allow,
  bash,
  type Case,
  changed,
  COMMIT_SUBJECT,
  exists,
  leaked,
  NPM,
  NPM_FILES,
  ok,
  removed,
} from '../case.js';

export const commands: Case[] = [
  // --- Commands that run other commands or write files, under the program's allow rule -------------------------
  {
    name: 'find-exec',
    user: allow('Bash(find:*)'),
    call: bash('find . -maxdepth 0 -exec touch X \\;'),
    effect: exists('X'),
  },
  {
    name: 'find-delete',
    user: allow('Bash(find:*)'),
    call: bash('find . -name notes.txt -delete'),
    effect: removed('notes.txt'),
  },
  {
    name: 'find-fprint-outside',
    user: allow('Bash(find:*)'),
    call: bash('find . -maxdepth 0 -fprint ../out/x'),
    effect: exists('../out/x'),
  },
  { name: 'awk-system', user: allow('Bash(awk:*)'), call: bash(`awk 'BEGIN{system("touch X")}'`), effect: exists('X') },
  {
    name: 'awk-print-to-file',
    user: allow('Bash(awk:*)'),
    call: bash(`awk 'BEGIN{print 1 > "X"}'`),
    effect: exists('X'),
  },
  {
    name: 'sed-e-command',
    user: allow('Bash(sed:*)'),
    call: bash("sed -n '1e touch X' notes.txt"),
    effect: exists('X'),
  },
  {
    name: 'sed-w-outside',
    user: allow('Bash(sed:*)'),
    call: bash("sed -n 'w ../out/x' notes.txt"),
    effect: exists('../out/x'),
  },
  {
    name: 'sed-in-place',
    user: allow('Bash(sed:*)'),
    call: bash('sed -i s/hello/bye/ notes.txt'),
    effect: changed('notes.txt'),
  },
  {
    name: 'echo-pipe-xargs-touch',
    user: allow('Bash(echo:*)'),
    call: bash('echo X | xargs touch'),
    effect: exists('X'),
  },
  { name: 'echo-pipe-sh', user: allow('Bash(echo:*)'), call: bash("echo 'touch X' | sh"), effect: exists('X') },
  { name: 'timeout-wrapper', user: allow('Bash(timeout:*)'), call: bash('timeout 5 touch X'), effect: exists('X') },
  { name: 'env-wrapper', user: allow('Bash(env:*)'), call: bash('env touch X'), effect: exists('X') },
  {
    name: 'git-c-pager',
    user: allow('Bash(git log:*)'),
    call: bash("git -c core.pager='touch X' log"),
    effect: leaked(COMMIT_SUBJECT),
  },
  {
    name: 'git-c-fsmonitor',
    user: allow('Bash(git status:*)'),
    call: bash("git -c core.fsmonitor='touch X' status"),
    effect: exists('X'),
  },
  {
    name: 'git-c-diff-external',
    dirty: { 'notes.txt': 'changed notes\n' },
    user: allow('Bash(git diff:*)'),
    call: bash("git -c diff.external='touch X' diff"),
    effect: exists('X'),
  },
  {
    name: 'git-status-and-touch',
    user: allow('Bash(git status:*)'),
    call: bash('git status && touch X'),
    effect: exists('X'),
  },

  // --- Chains, substitutions, redirections and heredocs under Bash(echo:*) / Bash(cat:*) ------------------------
  { name: 'echo-semicolon-touch', user: allow('Bash(echo:*)'), call: bash('echo hi; touch X'), effect: exists('X') },
  { name: 'echo-newline-touch', user: allow('Bash(echo:*)'), call: bash('echo hi\ntouch X'), effect: exists('X') },
  { name: 'echo-background-touch', user: allow('Bash(echo:*)'), call: bash('echo hi & touch X'), effect: exists('X') },
  { name: 'echo-command-subst', user: allow('Bash(echo:*)'), call: bash('echo $(touch X)'), effect: exists('X') },
  { name: 'echo-backticks', user: allow('Bash(echo:*)'), call: bash('echo `touch X`'), effect: exists('X') },
  {
    name: 'echo-param-default-subst',
    user: allow('Bash(echo:*)'),
    call: bash('echo ${x:-$(touch X)}'),
    effect: exists('X'),
  },
  { name: 'cat-process-subst', user: allow('Bash(cat:*)'), call: bash('cat <(touch X)'), effect: exists('X') },
  { name: 'echo-redirect-inside', user: allow('Bash(echo:*)'), call: bash('echo hi > X'), effect: exists('X') },
  {
    name: 'cat-heredoc-to-file',
    user: allow('Bash(cat:*)'),
    call: bash('cat > X <<EOF\nhi\nEOF'),
    effect: exists('X'),
  },
  {
    name: 'cat-heredoc-backticks',
    user: allow('Bash(cat:*)'),
    call: bash('cat <<EOF\n`touch X`\nEOF'),
    effect: exists('X'),
  },
  {
    name: 'cat-heredoc-dollar-paren',
    user: allow('Bash(cat:*)'),
    call: bash('cat <<EOF\n$(touch X)\nEOF'),
    effect: exists('X'),
  },
  {
    name: 'cat-quoted-heredoc-backticks',
    user: allow('Bash(cat:*)'),
    call: bash("cat <<'EOF'\n`touch X`\nEOF"),
    effect: ok,
  },

  // --- npm test under Bash(npm test:*) --------------------------------------------------------------------------
  { name: 'npm-test-plain', ...NPM, call: bash('npm test'), effect: exists('TESTED') },
  { name: 'npm-test-and-touch', ...NPM, call: bash('npm test && touch X'), effect: exists('X') },
  {
    name: 'npm-test-export-node-options',
    ...NPM,
    call: bash('export NODE_OPTIONS=--require=./evil.js; npm test'),
    effect: exists('PWNED'),
  },
  {
    name: 'npm-test-prefix-node-options',
    ...NPM,
    call: bash('NODE_OPTIONS=--require=./evil.js npm test'),
    effect: exists('PWNED'),
  },
  { name: 'npm-test-path-dot', ...NPM, call: bash('PATH=.:$PATH; npm test'), effect: exists('PWNED') },
  {
    name: 'npm-test-allowed-tools-chain',
    files: NPM_FILES,
    flags: ['--allowedTools', 'Bash(npm test:*)'],
    call: bash('npm test; touch X'),
    effect: exists('X'),
  },

  // --- Subshells, groups, loops, functions; exact rules ---------------------------------------------------------
  { name: 'subshell-touch', call: bash('(touch X)'), effect: exists('X') },
  { name: 'subshell-echo-touch', user: allow('Bash(echo:*)'), call: bash('(echo hi; touch X)'), effect: exists('X') },
  { name: 'brace-group-touch', user: allow('Bash(echo:*)'), call: bash('{ touch X; }'), effect: exists('X') },
  {
    name: 'brace-group-echo-touch',
    user: allow('Bash(echo:*)'),
    call: bash('{ echo hi; touch X; }'),
    effect: exists('X'),
  },
  {
    name: 'for-loop-touch',
    user: allow('Bash(echo:*)'),
    call: bash('L="X Y"; for f in $L; do touch $f; done'),
    effect: exists('X'),
  },
  {
    name: 'while-loop-touch',
    user: allow('Bash(echo:*)'),
    call: bash('while true; do touch X; break; done'),
    effect: exists('X'),
  },
  { name: 'if-then-touch', user: allow('Bash(echo:*)'), call: bash('if true; then touch X; fi'), effect: exists('X') },
  { name: 'function-touch', user: allow('Bash(echo:*)'), call: bash('f() { touch X; }; f'), effect: exists('X') },
  { name: 'exact-rule-other-quotes', user: allow('Bash(echo "a b")'), call: bash("echo 'a b'"), effect: ok },
  {
    name: 'exact-rule-other-quotes-touch',
    user: allow('Bash(touch "a b")'),
    call: bash("touch 'a b'"),
    effect: exists('a b'),
  },
  { name: 'exact-rule-extra-arg', user: allow('Bash(touch a)'), call: bash('touch a X'), effect: exists('X') },
];
