// Types of scripts/install-sqlite.mjs (plain JavaScript: npm runs it right after installing).
export declare function needsSqlite12(napiVersion: string | undefined): boolean;
export declare function buildSqlite12(): number;
