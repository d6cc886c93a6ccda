/** Per-service settings (src/migrations/2026-11-27-02-entry-spans-apdex.ts); a service without a row uses the defaults. */
export interface ServiceSettingsTable {
  service: string;
  /** The Apdex threshold T in milliseconds: satisfied at or below T, tolerating up to 4T. */
  apdex_threshold_ms: number;
  updated_at: number;
  /** The user who last changed it (their id), when known. */
  updated_by: string | null;
}

export interface ServiceSettingsTables {
  service_settings: ServiceSettingsTable;
}
