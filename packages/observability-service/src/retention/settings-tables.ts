// The settings table (src/migrations/2026-11-21-01-users-sessions-keys.ts): named values an admin sets.

/** A row of `settings`: one named value, stored as text. */
export interface SettingRow {
  name: string;
  value: string;
  updated_at: number;
}

export interface SettingsTables {
  settings: SettingRow;
}
