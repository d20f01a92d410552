/**
 * Drives headless Chromium over the DevTools protocol to check a built guide page as a reader would:
 *   node --experimental-websocket --import tsx tests/kit/browser-check.ts <page url> <screenshot.png>
 * Prints one JSON object: what rendered, what search found, what the quiz said. Used by site.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [url, screenshot] = process.argv.slice(2) as [string, string];
const profile = mkdtempSync(path.join(tmpdir(), 'kit-chromium-'));
const chrome = spawn('/usr/bin/chromium', [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${profile}`,
  '--window-size=1280,1000', 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe'] });

const wsUrl = await new Promise<string>((resolve, reject) => {
  let err = '';
  chrome.stderr.on('data', (chunk) => {
    err += chunk;
    const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
    if (m) resolve(m[1]!);
  });
  chrome.on('close', () => reject(new Error(`chromium exited: ${err}`)));
  setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 20_000);
});

const ws = new WebSocket(wsUrl);
await new Promise((resolve) => ws.addEventListener('open', resolve, { once: true }));
let nextId = 1;
const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
ws.addEventListener('message', (event) => {
  const msg = JSON.parse(String(event.data));
  const p = msg.id && pending.get(msg.id);
  if (!p) return;
  pending.delete(msg.id);
  if (msg.error) p.reject(new Error(JSON.stringify(msg.error)));
  else p.resolve(msg.result);
});
const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });

const result: Record<string, unknown> = {};
try {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const page = (method: string, params: object = {}) => send(method, params, sessionId);
  await page('Emulation.setDeviceMetricsOverride', { width: 1280, height: 1000, deviceScaleFactor: 1, mobile: false });
  await page('Page.navigate', { url });
  const evaluate = async (expression: string) => (await page('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })).result.value;
  const waitFor = async (expression: string, ms = 15_000) => {
    const start = Date.now();
    while (Date.now() - start < ms) {
      if (await evaluate(`Boolean(${expression})`)) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return false;
  };
  result.loaded = await waitFor(`document.querySelector('.VPDoc h1')`);
  result.title = await evaluate(`document.querySelector('.VPDoc h1')?.textContent`);
  result.header = await evaluate(`document.querySelector('.chapter-header')?.innerText ?? null`);
  result.mermaid = await waitFor(`document.querySelector('.mermaid svg')`);
  // A label taller than the box mermaid measured for it is clipped (page styles leaking into the diagram).
  result.clippedLabels = await evaluate(`[...document.querySelectorAll('.mermaid svg foreignObject')].filter((f) => { const d = f.firstElementChild; return d && d.getBoundingClientRect().height > Number(f.getAttribute('height')) + 1; }).length`);
  result.highlighted = await evaluate(`document.querySelectorAll('div[class*="language-ts"] pre.shiki span[style*="--shiki"]').length`);
  result.prev = await evaluate(`document.querySelector('.pager-link.prev')?.getAttribute('href') ?? null`);
  result.next = await evaluate(`document.querySelector('.pager-link.next')?.getAttribute('href') ?? null`);
  result.comingSoon = await evaluate(`document.querySelectorAll('.VPSidebar .coming-soon').length`);

  // Quiz: a wrong answer, then the right one.
  result.quizzes = await evaluate(`document.querySelectorAll('.quiz').length`);
  const click = (index: number) => evaluate(`document.querySelectorAll('.quiz')[0].querySelectorAll('button.quiz-choice')[${index}].click()`);
  await click(0);
  await waitFor(`document.querySelector('.quiz-feedback')`);
  result.quizFirst = await evaluate(`document.querySelector('.quiz-feedback')?.innerText`);
  await click(1);
  await new Promise((r) => setTimeout(r, 300));
  result.quizSecond = await evaluate(`document.querySelector('.quiz-feedback')?.innerText`);
  await evaluate(`window.scrollTo(0, 0)`);
  const shot = await page('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: await evaluate(`({ x: 0, y: 0, width: 1280, height: Math.min(document.documentElement.scrollHeight, 3000), scale: 1 })`) });
  writeFileSync(screenshot, Buffer.from(shot.data, 'base64'));

  // Search: open the local search box and type a word from the page.
  await evaluate(`document.querySelector('.DocSearch-Button, .VPNavBarSearchButton')?.click()`);
  result.searchOpened = await waitFor(`document.querySelector('.VPLocalSearchBox input')`);
  await evaluate(`document.querySelector('.VPLocalSearchBox input').focus()`);
  await page('Input.insertText', { text: process.env.SEARCH_WORD ?? 'zebra' });
  result.searchFound = await waitFor(`document.querySelectorAll('.VPLocalSearchBox .result').length > 0`);
  result.searchResults = await evaluate(`[...document.querySelectorAll('.VPLocalSearchBox .result .titles')].map(e => e.innerText.replace(/\\s+/g, ' ').trim())`);
  const shot2 = await page('Page.captureScreenshot', { format: 'png' });
  writeFileSync(screenshot.replace(/\.png$/, '-search.png'), Buffer.from(shot2.data, 'base64'));
} catch (error) {
  result.error = String(error);
} finally {
  ws.close();
  chrome.kill();
  await new Promise((r) => chrome.once('close', r));
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
process.exit(0);
