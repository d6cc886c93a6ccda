/** Places a dependency graph in columns, callers left of what they call; pure, so it is unit-tested. */

export interface MapEdgeInput {
  source: string;
  target: string;
  targetKind: string;
}

export interface MapNode {
  id: string;
  kind: string;
  column: number;
  x: number;
  y: number;
}

export interface MapLayout {
  nodes: MapNode[];
  width: number;
  height: number;
}

export const mapSpacing = { column: 220, row: 70, margin: 90 };

/**
 * Columns by longest call path from a node nobody calls; a cycle cannot push a node further
 * than the number of nodes, so the layout always ends. Rows keep first-seen order (busiest edges
 * come first from the service) so the busiest paths sit at the top.
 */
export function layoutServiceMap(edges: readonly MapEdgeInput[]): MapLayout {
  const kinds = new Map<string, string>();
  // Whatever calls is a service, even where another edge names it only as an address.
  for (const edge of edges) kinds.set(edge.source, 'service');
  for (const edge of edges) if (!kinds.has(edge.target)) kinds.set(edge.target, edge.targetKind);
  const ids = [...kinds.keys()];
  const column = new Map(ids.map((id) => [id, 0]));
  for (let round = 0; round < ids.length; round += 1) {
    let changed = false;
    for (const edge of edges) {
      if (edge.source === edge.target) continue;
      const next = column.get(edge.source)! + 1;
      if (next > column.get(edge.target)! && next < ids.length) {
        column.set(edge.target, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const rowsUsed = new Map<number, number>();
  const nodes: MapNode[] = ids.map((id) => {
    const col = column.get(id)!;
    const row = rowsUsed.get(col) ?? 0;
    rowsUsed.set(col, row + 1);
    return { id, kind: kinds.get(id)!, column: col, x: mapSpacing.margin + col * mapSpacing.column, y: mapSpacing.margin / 2 + row * mapSpacing.row };
  });
  const columns = Math.max(0, ...nodes.map((node) => node.column)) + 1;
  const rows = Math.max(0, ...rowsUsed.values());
  return { nodes, width: mapSpacing.margin * 2 + (columns - 1) * mapSpacing.column, height: mapSpacing.margin / 2 + Math.max(rows, 1) * mapSpacing.row };
}
