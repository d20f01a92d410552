// One-off (issue 45): rewrites the graded messages of the test files named: "stub step N: text" becomes "stub: text (guided step N)". Run from the repository root: node scripts/authors/migrations/step-messages.mjs tests/chapter05/*.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from '@babel/parser';
const STEP = String.raw`steps? \d+[a-z]?(?:(?:/|-| and | or |, )\d+[a-z]?)*`;
const NAME = String.raw`[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*`;
function fix(body) {
  if (!new RegExp(String.raw`(?<![\w.])` + STEP).test(body)) return body;
  const lead = new RegExp(String.raw`^(?:(${NAME}) )?(${STEP}): ([\s\S]*)$`).exec(body);
  if (lead && !/^(?:\S+ )?steps? \d+ comes before/.test(body)) {
    const [, name, step, rest0] = lead;
    let rest = rest0;
    const tag = `(guided ${step})`;
    const got = /[;,:] (?:got|but got|received) /.exec(rest);
    rest = got ? `${rest.slice(0, got.index)} ${tag}${rest.slice(got.index)}` : `${rest} ${tag}`;
    return (name ? `${name}: ` : '') + rest;
  }
  // elsewhere: "(step 3)" and "chat step 1" become guided steps
  return body
    .replace(new RegExp(String.raw`\((${STEP})\)`, 'g'), '(guided $1)')
    .replace(new RegExp(String.raw`(?<![\w.(])(?<!guided )(${STEP})`, 'g'), 'guided $1');
}
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  const ast = parse(text, { sourceType: 'module', plugins: ['typescript'], errorRecovery: true });
  const spans = [];
  const walk = (node, inTemplate) => {
    if (!node || typeof node.type !== 'string') return;
    if (node.type === 'StringLiteral') spans.push([node.start + 1, node.end - 1]);
    if (node.type === 'TemplateLiteral') {
      spans.push([node.start + 1, node.end - 1]);
      return;
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'loc' || k.endsWith('Comments')) continue;
      for (const c of Array.isArray(v) ? v : [v]) if (c && typeof c === 'object' && typeof c.type === 'string') walk(c);
    }
  };
  walk(ast.program);
  spans.sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [s, e] of spans) {
    const body = out.slice(s, e);
    const fixed = fix(body);
    if (fixed !== body) out = out.slice(0, s) + fixed + out.slice(e);
  }
  if (out !== text) {
    writeFileSync(file, out);
    console.log('rewrote', file);
  }
}
