import type { HeldItem, RankEngine, RebuildOutcome, Standing } from './rank-engine.js';
import { compareRankKeys, type RankItem, type RankKey } from './rank-order.js';
import { NotInRankOrderError, RankTree } from './rank-tree.js';

/** The rank engine of a single instance: one order-statistic tree per ranked set, in this process. */
export class MemoryRankEngine implements RankEngine {
  readonly kind = 'in-process' as const;
  /** Memory does not go away. */
  readonly usable = true;
  readonly #sets = new Map<string, RankTree>();

  #set(setId: string): RankTree {
    let tree = this.#sets.get(setId);
    if (!tree) {
      tree = new RankTree();
      this.#sets.set(setId, tree);
    }
    return tree;
  }

  async replace(setId: string, batches: AsyncIterable<readonly RankItem[]>): Promise<RebuildOutcome> {
    const read: RankItem[] = [];
    for await (const batch of batches) for (const item of batch) read.push(item);
    let tree: RankTree;
    try {
      tree = RankTree.fromSorted(read);
    } catch (error) {
      if (!(error instanceof NotInRankOrderError)) throw error;
      // SQL returns rank order, one entry per player, but a collation that orders unusual player
      // ids differently from the engine needs a sort, and a player read twice (an entry that
      // moved between two keyset reads) keeps its later read.
      tree = RankTree.fromSorted(latestOfEachPlayer(read));
    }
    this.#sets.set(setId, tree);
    return 'built';
  }

  // Writes, too, answer at once: a run's placements are written to six sets or so.
  upsert(setId: string, item: RankItem): boolean {
    this.#set(setId).upsert(item);
    return true;
  }

  remove(setId: string, playerId: string): boolean {
    this.#sets.get(setId)?.remove(playerId);
    return true;
  }

  async holds(setIds: readonly string[]): Promise<boolean[]> {
    return setIds.map(() => true);
  }

  // Reads answer at once (no promise): they are the hot path of every leaderboard request.
  standing(setId: string, playerId: string, radius: number): Standing {
    const tree = this.#sets.get(setId);
    const around = tree?.around(playerId, radius);
    if (!tree || !around) return { total: tree?.size ?? 0, rank: undefined, windowFirstRank: 1, window: [] };
    return { total: tree.size, rank: around.rank, windowFirstRank: around.firstRank, window: around.items };
  }

  itemsFrom(setId: string, fromRank: number, count: number): RankItem[] {
    return this.#sets.get(setId)?.itemsFrom(fromRank, count) ?? [];
  }

  itemsAfter(setId: string, key: RankKey | undefined, count: number): { firstRank: number; items: HeldItem[] } {
    const tree = this.#sets.get(setId);
    if (!tree) return { firstRank: 1, items: [] };
    return key ? tree.itemsAfter(key, count) : { firstRank: 1, items: tree.itemsFrom(1, count) };
  }

  itemsOf(setId: string, playerIds: readonly string[]): RankItem[] {
    const tree = this.#sets.get(setId);
    const items: RankItem[] = [];
    if (!tree) return items;
    for (const playerId of playerIds) {
      const item = tree.itemOf(playerId);
      if (item) items.push(item);
    }
    return items;
  }

  drop(setId: string): void {
    this.#sets.delete(setId);
  }
}

/** Each player's last item in the order read, in rank order. */
function latestOfEachPlayer(items: readonly RankItem[]): RankItem[] {
  const latest = new Map<string, RankItem>();
  for (const item of items) latest.set(item.playerId, item);
  return [...latest.values()].sort(compareRankKeys);
}
