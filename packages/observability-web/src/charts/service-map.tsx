import { useMemo } from 'preact/hooks';
import type { DependencyEdge } from '../api/api-types.js';
import { formatCount, formatDurationMs, formatPercent } from '../format.js';
import { isHighErrorRate } from '../state/error-rate.js';
import { serviceColors } from './service-colors.js';
import { edgePath, layoutServiceMap, mapNodeSize } from './service-map-layout.js';

const { halfWidth: nodeHalfWidth, halfHeight: nodeHalfHeight } = mapNodeSize;
/** Past this many edges each is drawn fainter, so their overlaps show where traffic concentrates. */
const denseEdges = 40;

/** The dependency graph as an SVG map: services and what they call, edge width by volume, red when failing. */
export function ServiceMap({ edges }: { edges: readonly DependencyEdge[] }) {
  const layout = useMemo(() => layoutServiceMap(edges), [edges]);
  const colors = useMemo(() => serviceColors(layout.nodes.filter((node) => node.kind === 'service').map((node) => node.id)), [layout]);
  const position = new Map(layout.nodes.map((node) => [node.id, node]));
  const busiest = Math.max(1, ...edges.map((edge) => edge.count));
  return (
    <div class="service-map-wrap">
      <svg class="service-map" viewBox={`0 0 ${layout.width} ${layout.height}`} style={{ maxWidth: `${layout.width}px` }} role="img" aria-label="Service map">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto">
            <path d="M 0 0 L 10 5 L 0 10 z" class="map-arrow" />
          </marker>
        </defs>
        {/* A service calling itself has no arrow to draw; the table lists it. */}
        {edges.filter((edge) => edge.source !== edge.target).map((edge) => {
          const from = position.get(edge.source)!;
          const to = position.get(edge.target)!;
          const failing = edge.count > 0 && isHighErrorRate(edge.errorCount / edge.count);
          return (
            <path
              key={`${edge.source}->${edge.target}`}
              class={`${failing ? 'map-edge map-edge-bad' : 'map-edge'}${edges.length > denseEdges ? ' map-edge-dense' : ''}`}
              d={edgePath(layout, from, to)}
              stroke-width={1 + (edge.count / busiest) * 5}
              marker-end="url(#arrow)"
            >
              <title>{`${edge.source} → ${edge.target}: ${formatCount(edge.count)} calls, ${formatPercent(edge.count ? edge.errorCount / edge.count : 0)} errors, p95 ${formatDurationMs(edge.p95Ms)}`}</title>
            </path>
          );
        })}
        {layout.nodes.map((node) => (
          <g key={node.id} class="map-node" transform={`translate(${node.x - nodeHalfWidth}, ${node.y - nodeHalfHeight})`}>
            <rect width={nodeHalfWidth * 2} height={nodeHalfHeight * 2} rx={node.kind === 'service' ? 8 : 18} fill={colors.get(node.id) ?? '#eef1f4'} class={`map-node-box map-node-${node.kind}`} />
            <text x={nodeHalfWidth} y={nodeHalfHeight + 4} text-anchor="middle" class={node.kind === 'service' ? 'map-label map-label-service' : 'map-label'}>
              {node.id.length > 20 ? `${node.id.slice(0, 19)}…` : node.id}
            </text>
            <title>{`${node.id} (${node.kind})`}</title>
          </g>
        ))}
      </svg>
    </div>
  );
}
