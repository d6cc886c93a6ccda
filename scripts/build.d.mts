// Types of scripts/build.mjs (plain JavaScript: the launcher runs it before anything is built).
export interface Build {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  command(): [string, string[], string];
}
export declare const builds: readonly Build[];
export declare function staleReason(build: Build): string | undefined;
export declare function runBuild(build: Build): number;
export declare function buildIfStale(say: (message: string) => void, only?: readonly string[]): number;
export declare const defaultBuildLock: string;
export declare function withBuildLock<T>(body: () => T, say?: (message: string) => void, lock?: string): T;
