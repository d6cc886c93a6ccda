import { Link } from './link.js';

/** Tabs that are links (each tab is its own URL, so it can be shared). */
export function Tabs({ tabs, active }: { tabs: Array<{ key: string; label: string; href: string }>; active: string }) {
  return (
    <nav class="tabs" aria-label="Sections">
      {tabs.map((tab) => (
        <Link key={tab.key} href={tab.href} class={tab.key === active ? 'tab tab-active' : 'tab'} aria-current={tab.key === active ? 'page' : undefined}>
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
