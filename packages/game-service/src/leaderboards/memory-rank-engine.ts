import type { RankEngine, Standing } from './rank-engine.js';
import type { RankKey } from './rank-order.js';
import { RankSkipList } from './skip-list.js';

/** The rank engine of a single instance: one skip list per ranked set, in this process. */
export class MemoryRankEngine implements RankEngine {
  readonly kind = 'in-process' as const;
  readonly #sets = new Map<string, RankSkipList>();

  #set(setId: string): RankSkipList {
    let list = this.#sets.get(setId);
    if (!list) {
      list = new RankSkipList();
      this.#sets.set(setId, list);
    }
    return list;
  }

  async replace(setId: string, keys: readonly RankKey[]): Promise<void> {
    this.#sets.set(setId, RankSkipList.fromSorted(keys));
  }

  async upsert(setId: string, key: RankKey): Promise<void> {
    this.#set(setId).upsert(key);
  }

  async remove(setId: string, playerId: string): Promise<void> {
    this.#sets.get(setId)?.remove(playerId);
  }

  async standing(setId: string, playerId: string, radius: number): Promise<Standing> {
    const list = this.#sets.get(setId);
    const rank = list?.rankOf(playerId);
    if (!list || rank === undefined) return { total: list?.size ?? 0, rank: undefined, windowFirstRank: 1, window: [] };
    const windowFirstRank = Math.max(1, rank - radius);
    return { total: list.size, rank, windowFirstRank, window: list.playersFrom(windowFirstRank, rank + radius - windowFirstRank + 1) };
  }

  async playersFrom(setId: string, fromRank: number, count: number): Promise<string[]> {
    return this.#sets.get(setId)?.playersFrom(fromRank, count) ?? [];
  }

  async drop(setId: string): Promise<void> {
    this.#sets.delete(setId);
  }
}
