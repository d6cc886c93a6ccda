import type { ComponentChildren } from 'preact';

/** Summary figures in a row of tiles; a tile may carry a line of detail and an action under its value. */
export function Tiles({ tiles }: { tiles: Array<{ label: string; value: string; tone?: 'bad' | 'good' | undefined; detail?: ComponentChildren }> }) {
  return (
    <div class="tiles">
      {tiles.map((tile) => (
        <div class={`tile${tile.tone ? ` tile-${tile.tone}` : ''}`} key={tile.label}>
          <div class="tile-label">{tile.label}</div>
          <div class="tile-value">{tile.value}</div>
          {tile.detail ? <div class="tile-detail">{tile.detail}</div> : null}
        </div>
      ))}
    </div>
  );
}
