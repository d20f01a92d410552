/**
 * The language switcher's links: VitePress's own (the same page in the other language), except on a page that has no
 * counterpart there (zh/glossary.md has no English page): that language's home page instead of a 404. config.ts puts
 * this module in place of the default theme's composables/langs.js (every switcher imports it) and names, in each
 * page's `noCounterpartIn`, the locales without its page.
 */
import { computed } from 'vue';
import { useData } from 'vitepress';
// @ts-expect-error VitePress ships its theme's composables without types; the signature is useLangs's below.
import { useLangs as vitepressLangs } from 'vitepress/dist/client/theme-default/composables/langs.js';

type Link = { text: string; link: string };

export function useLangs(options: { correspondingLink?: boolean } = {}) {
  const langs = vitepressLangs(options) as { localeLinks: { value: Link[] }; currentLang: unknown };
  const { site, frontmatter } = useData();
  const localeLinks = computed(() => {
    const missing: string[] = frontmatter.value.noCounterpartIn ?? [];
    return langs.localeLinks.value.map((item) => {
      const key = Object.keys(site.value.locales).find((k) => site.value.locales[k]!.label === item.text);
      if (!key || !missing.includes(key)) return item;
      return { ...item, link: site.value.locales[key]!.link ?? (key === 'root' ? '/' : `/${key}/`) };
    });
  });
  return { ...langs, localeLinks };
}
