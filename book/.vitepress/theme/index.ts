import DefaultTheme from 'vitepress/theme';
import { useData, useRoute, type Theme } from 'vitepress';
import { onMounted, watch } from 'vue';
import Quiz from './Quiz.vue';
import { keepTypedAhead, warmSearch } from './search';
import { markTables } from './tables';
import './custom.css';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('Quiz', Quiz);
  },
  setup() {
    if (import.meta.env.SSR) return;
    // Diagrams come drawn in the page (lib/diagram-store.ts); once it answers clicks, theme/diagrams.ts (loaded only
    // then) lets those shown too small open full size, and draws any without a stored drawing. Tables say when they
    // scroll (theme/tables.ts).
    const draw = (redraw = false) => void import('./diagrams').then((m) => m.drawDiagrams(redraw));
    const route = useRoute();
    const { isDark, localeIndex } = useData();
    onMounted(() => {
      // The app has hydrated: the page answers clicks from here (tests/kit/browser-check.ts reads this mark).
      performance.mark('guide:hydrated');
      draw();
      markTables();
      // The first search after loading finds what the reader typed (theme/search.ts).
      keepTypedAhead();
      warmSearch(() => localeIndex.value);
    });
    watch(
      () => route.path,
      () => {
        draw();
        markTables();
      },
      { flush: 'post' },
    );
    watch(isDark, () => draw(true), { flush: 'post' });
  },
} satisfies Theme;
