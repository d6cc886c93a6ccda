/**
 * Places a dependency graph for the service map; pure, so it is unit-tested. Call chains without
 * cycles read best in columns, callers left of what they call; a graph with cycles or too deep
 * for the page goes round an ellipse, where no edge can push a node off to the side.
 */

export interface MapEdgeInput {
  source: string;
  target: string;
  targetKind: string;
}

export interface MapNode {
  id: string;
  kind: string;
  /** Centre of the node's box. */
  x: number;
  y: number;
}

export interface MapLayout {
  shape: 'columns' | 'ellipse';
  nodes: MapNode[];
  width: number;
  height: number;
}

const mapSpacing = { column: 220, row: 70, margin: 90 };
/** Past this many columns the map would scroll sideways: use the ellipse instead. */
const mapColumnsMax = 6;
export const mapNodeSize = { halfWidth: 74, halfHeight: 18 };
/** Clear space between two boxes on the ellipse. */
const mapNodeGapPx = 8;

function kindsOf(edges: readonly MapEdgeInput[]): Map<string, string> {
  const kinds = new Map<string, string>();
  // Whatever calls is a service, even where another edge names it only as an address.
  for (const edge of edges) kinds.set(edge.source, 'service');
  for (const edge of edges) if (!kinds.has(edge.target)) kinds.set(edge.target, edge.targetKind);
  return kinds;
}

/** Longest call path from a node nobody calls, or undefined when a cycle makes it unbounded. */
function columnsOf(ids: readonly string[], edges: readonly MapEdgeInput[]): Map<string, number> | undefined {
  const column = new Map(ids.map((id) => [id, 0]));
  for (let round = 0; round <= ids.length; round += 1) {
    let changed = false;
    for (const edge of edges) {
      if (edge.source === edge.target) continue;
      const next = column.get(edge.source)! + 1;
      if (next > column.get(edge.target)!) {
        column.set(edge.target, next);
        changed = true;
      }
    }
    if (!changed) return column;
  }
  return undefined;
}

export function layoutServiceMap(edges: readonly MapEdgeInput[]): MapLayout {
  const kinds = kindsOf(edges);
  const ids = [...kinds.keys()];
  const columns = columnsOf(ids, edges);
  const columnCount = columns ? Math.max(0, ...columns.values()) + 1 : Number.POSITIVE_INFINITY;

  if (columns && columnCount <= mapColumnsMax) {
    const rowsUsed = new Map<number, number>();
    const nodes = ids.map((id) => {
      const col = columns.get(id)!;
      const row = rowsUsed.get(col) ?? 0;
      rowsUsed.set(col, row + 1);
      return { id, kind: kinds.get(id)!, x: mapSpacing.margin + col * mapSpacing.column, y: mapSpacing.margin / 2 + row * mapSpacing.row };
    });
    const rows = Math.max(1, ...rowsUsed.values());
    return { shape: 'columns', nodes, width: mapSpacing.margin * 2 + (columnCount - 1) * mapSpacing.column, height: mapSpacing.margin / 2 + rows * mapSpacing.row };
  }

  // Services first around the ellipse, then what they call, so related boxes sit together.
  const ordered = [...ids.filter((id) => kinds.get(id) === 'service'), ...ids.filter((id) => kinds.get(id) !== 'service')];
  // Neighbours on the ellipse, at angle φ from the top, lie apart by about 2·r·sin(step/2) times
  // |sin φ| across and |cos φ| down; their boxes clear each other when either gap is enough. With
  // a² + b² = 1 below, one of |sin φ| >= a and |cos φ| >= b holds at every φ. Boxes are wide, so
  // the across gap takes the larger share.
  const step = (2 * Math.PI) / ordered.length;
  const chord = 2 * Math.sin(step / 2);
  const acrossShare = 0.9;
  const downShare = Math.sqrt(1 - acrossShare ** 2);
  const radiusX = Math.max(200, (mapNodeSize.halfWidth * 2 + mapNodeGapPx) / (chord * acrossShare));
  const radiusY = Math.max(140, (mapNodeSize.halfHeight * 2 + mapNodeGapPx) / (chord * downShare));
  const centreX = radiusX + mapNodeSize.halfWidth + 20;
  const centreY = radiusY + mapNodeSize.halfHeight + 20;
  const nodes = ordered.map((id, i) => {
    const angle = -Math.PI / 2 + step * i;
    return { id, kind: kinds.get(id)!, x: centreX + radiusX * Math.cos(angle), y: centreY + radiusY * Math.sin(angle) };
  });
  return { shape: 'ellipse', nodes, width: centreX * 2, height: centreY * 2 };
}

/** Where the segment from a box's centre towards (dx, dy) leaves the box. */
function boxExit(x: number, y: number, dx: number, dy: number): { x: number; y: number } {
  const scale = Math.min(dx === 0 ? Number.POSITIVE_INFINITY : mapNodeSize.halfWidth / Math.abs(dx), dy === 0 ? Number.POSITIVE_INFINITY : mapNodeSize.halfHeight / Math.abs(dy));
  return { x: x + dx * scale, y: y + dy * scale };
}

/**
 * The SVG path of an edge between two placed nodes: a sideways S-curve in columns; on the ellipse
 * a gentle curve between the boxes' edges, bowed to one side so that a -> b and b -> a stay apart.
 */
export function edgePath(layout: MapLayout, from: MapNode, to: MapNode): string {
  if (layout.shape === 'columns') {
    const x1 = from.x + mapNodeSize.halfWidth;
    const x2 = to.x - mapNodeSize.halfWidth;
    const bend = Math.max(40, Math.abs(x2 - x1) / 2);
    return `M ${x1} ${from.y} C ${x1 + bend} ${from.y}, ${x2 - bend} ${to.y}, ${x2} ${to.y}`;
  }
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const start = boxExit(from.x, from.y, dx, dy);
  const end = boxExit(to.x, to.y, -dx, -dy);
  const length = Math.hypot(dx, dy) || 1;
  const bow = Math.min(40, length / 6);
  const controlX = (start.x + end.x) / 2 + (-dy / length) * bow;
  const controlY = (start.y + end.y) / 2 + (dx / length) * bow;
  return `M ${start.x.toFixed(1)} ${start.y.toFixed(1)} Q ${controlX.toFixed(1)} ${controlY.toFixed(1)} ${end.x.toFixed(1)} ${end.y.toFixed(1)}`;
}
