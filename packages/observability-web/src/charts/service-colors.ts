/**
 * Colours for services. Within one view (a trace, a map) services get distinct colours from a
 * palette, in the order they appear; hashing names alone lets two services of one trace look alike.
 */
export const servicePalette = ['#2f6fdf', '#e07a1f', '#2a9d8f', '#c2417f', '#7b5cd6', '#3f8f3a', '#c9a227', '#1f9bc4', '#a8553a', '#5f6b7a'];

/** A colour per name, distinct for the first `servicePalette.length` names, repeating after. */
export function serviceColors(names: readonly string[]): Map<string, string> {
  const colors = new Map<string, string>();
  for (const name of names) if (!colors.has(name)) colors.set(name, servicePalette[colors.size % servicePalette.length]!);
  return colors;
}
