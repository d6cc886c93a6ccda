// Types of scripts/node-flags.mjs (plain JavaScript: the launcher runs it before anything is built).
export declare function versionNodeFlags(version?: string): string[];
export declare function serviceNodeFlags(service: string): string[];
