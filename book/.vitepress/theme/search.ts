/**
 * The first search after a page loads (VitePress's local search). The search box is not part of the page: its code
 * (VPLocalSearchBox, with MiniSearch) and the index of the whole guide (some 350 KB) are fetched the first time the
 * reader opens it. Until then there is no input to type into: a reader who presses `/` and types straight away lost
 * every key, and saw an empty box, "nothing found", for a search that was never run. Two things fix it:
 * - warmSearch(): when the pointer or focus reaches the search button, or the page is idle a few seconds after
 *   hydration, fetch the box's code and the page's language's index (only that one: the box searches only it), so
 *   they are there by the time the reader types;
 * - keepTypedAhead(): the keys typed after the search was asked for (`/`, Ctrl-K or a click on the search button) and
 *   before its input exists are kept, and given to the input when it appears, as if typed into it.
 */
const INPUT = '.VPLocalSearchBox input';
const BUTTON = '.VPNavBarSearchButton, .DocSearch-Button';

/** How long after hydration the search is fetched unasked (ms): the first seconds belong to the page's own clicks. */
const WARM_AFTER_MS = 3000;

export function warmSearch(localeIndex: () => string): void {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    void import('vitepress/dist/client/theme-default/components/VPLocalSearchBox.vue').catch(() => {});
    // The virtual module VitePress's local search serves: one loader per locale ('root', 'zh'), each fetching that
    // index. The box loads the reader's locale's (VPLocalSearchBox: localeIndex); so does this, and no other.
    void import('@localSearchIndex')
      .then((m: { default: Record<string, () => Promise<unknown>> }) => m.default[localeIndex()]?.())
      .catch(() => {});
  };
  // At once when the reader heads for the search button; otherwise when the page is idle, a few seconds in.
  for (const type of ['pointerover', 'focusin', 'touchstart']) {
    document.addEventListener(
      type,
      (event) => {
        if ((event.target as Element | null)?.closest?.(BUTTON)) start();
      },
      { passive: true },
    );
  }
  setTimeout(() => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(start);
    else start();
  }, WARM_AFTER_MS);
}

/** Whether a key goes to something being edited (VitePress's own test for its `/` shortcut). */
function editing(event: KeyboardEvent): boolean {
  const element = event.target as HTMLElement | null;
  return !!element && (element.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(element.tagName));
}

export function keepTypedAhead(): void {
  // The keys typed since the search was asked for, until they are handed to its input; undefined when not waiting.
  let typed: string | undefined;
  let asked = 0;
  const input = () => document.querySelector<HTMLInputElement>(INPUT);
  // Hand the keys over as soon as the input exists: on the next frame, or on the next key, whichever comes first.
  // Until then every key is kept here, even once the input is there: a key that reached the input before the hand-over
  // would be overwritten by it, and one typed before the input had focus would be lost.
  const handOver = () => {
    if (typed === undefined) return;
    const box = input();
    if (!box) {
      // Still loading; give up after 20 s (the reader has long since moved on).
      if (performance.now() - asked < 20_000) requestAnimationFrame(handOver);
      else typed = undefined;
      return;
    }
    if (typed) {
      box.value = typed;
      box.dispatchEvent(new Event('input', { bubbles: true }));
    }
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
    typed = undefined;
  };
  const askedFor = () => {
    if (input() || typed !== undefined) return;
    typed = '';
    asked = performance.now();
    requestAnimationFrame(handOver);
  };
  window.addEventListener(
    'keydown',
    (event) => {
      if (typed !== undefined) {
        // Escape gives up the search: nothing is handed over, and the key goes on to close the box if it is open.
        if (event.key === 'Escape') {
          typed = undefined;
          return;
        }
        if (event.key === 'Backspace') typed = typed.slice(0, -1);
        else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) typed += event.key;
        else return;
        event.preventDefault();
        event.stopPropagation();
        handOver();
        return;
      }
      if (
        (event.key.toLowerCase() === 'k' && (event.ctrlKey || event.metaKey)) ||
        (event.key === '/' && !editing(event))
      )
        askedFor();
    },
    true,
  );
  document.addEventListener(
    'click',
    (event) => {
      if ((event.target as Element | null)?.closest?.(BUTTON)) askedFor();
    },
    true,
  );
}
