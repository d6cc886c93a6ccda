/** Summary figures in a row of tiles. */
export function Tiles({ tiles }: { tiles: Array<{ label: string; value: string; tone?: 'bad' | 'good' | undefined }> }) {
  return (
    <div class="tiles">
      {tiles.map((tile) => (
        <div class={`tile${tile.tone ? ` tile-${tile.tone}` : ''}`} key={tile.label}>
          <div class="tile-label">{tile.label}</div>
          <div class="tile-value">{tile.value}</div>
        </div>
      ))}
    </div>
  );
}
