/**
 * A stable colour per service name, so a service looks the same on every page and in every
 * trace. Hues are spread by a string hash; saturation and lightness keep text on them legible.
 */
export function serviceColor(name: string): string {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i += 1) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  const hue = (hash >>> 0) % 360;
  return `hsl(${hue}, 62%, 46%)`;
}
