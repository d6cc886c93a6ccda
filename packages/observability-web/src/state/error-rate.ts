/** An error rate (0..1) above this is shown as bad: in red in tables, tiles and the service map. */
const highErrorRate = 0.05;

/** Whether an error rate (0..1) is high enough to be shown as bad. */
export function isHighErrorRate(rate: number): boolean {
  return rate > highErrorRate;
}
