/**
 * Runs `task` after every earlier task queued under the same key in `chains` (whether those
 * succeeded or failed), forgetting the key once its last task settles.
 */
export function inTurn<T>(chains: Map<string, Promise<unknown>>, key: string, task: () => Promise<T>): Promise<T> {
  const previous = chains.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(task);
  chains.set(key, next);
  void next
    .finally(() => {
      if (chains.get(key) === next) chains.delete(key);
    })
    .catch(() => undefined);
  return next;
}
