/**
 * The extension's settings, read and validated without `vscode`, and turned into the
 * server's `initializationOptions`.
 */

export const SECTION = "nanoBrain";

export const EMBEDDING_PROVIDERS = ["default", "local", "ollama", "openai", "none"] as const;
export type EmbeddingProvider = (typeof EMBEDDING_PROVIDERS)[number];

export const TRACE_LEVELS = ["off", "messages", "verbose"] as const;
export type TraceSetting = (typeof TRACE_LEVELS)[number];

/** Keys below the `nanoBrain` section. */
export const KEYS = {
  serverPath: "server.path",
  embeddingProvider: "embedding.provider",
  harvestEnabled: "harvest.enabled",
  reviewEnabled: "review.enabled",
  trace: "trace.server",
} as const;

/** Changing one of these restarts the server (trace is applied live). */
export const RESTART_KEYS: readonly string[] = [
  KEYS.serverPath,
  KEYS.embeddingProvider,
  KEYS.harvestEnabled,
  KEYS.reviewEnabled,
].map((key) => `${SECTION}.${key}`);

export interface Settings {
  serverPath: string;
  embeddingProvider: EmbeddingProvider;
  /** undefined: not set by the user, the server's own default applies. */
  harvestEnabled: boolean | undefined;
  /** undefined: not set by the user, the workspace's config.yml applies. */
  reviewEnabled: boolean | undefined;
  trace: TraceSetting;
}

/** What the extension can ask of the editor's configuration for one folder. */
export interface SettingsSource {
  /** The effective value (default included), as VS Code's `get`. */
  get(key: string): unknown;
  /** Whether the user set the key anywhere (user, workspace or folder settings). */
  isSet(key: string): boolean;
}

export interface ReadSettings {
  settings: Settings;
  /** One line per invalid value; the default was used instead. */
  warnings: string[];
}

export const DEFAULTS: Settings = {
  serverPath: "",
  embeddingProvider: "default",
  harvestEnabled: undefined,
  reviewEnabled: undefined,
  trace: "off",
};

function oneOf<T extends string>(
  allowed: readonly T[],
  value: unknown,
  fallback: T,
  key: string,
  warnings: string[],
): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  warnings.push(
    `${SECTION}.${key}: ${JSON.stringify(value)} is not one of ${allowed.join(", ")}; using "${fallback}"`,
  );
  return fallback;
}

function optionalBool(
  source: SettingsSource,
  key: string,
  warnings: string[],
): boolean | undefined {
  if (!source.isSet(key)) return undefined;
  const value = source.get(key);
  if (typeof value === "boolean") return value;
  warnings.push(`${SECTION}.${key}: ${JSON.stringify(value)} is not true or false; ignored`);
  return undefined;
}

/** Read and validate every setting: an invalid value gives a warning and the default. */
export function readSettings(source: SettingsSource): ReadSettings {
  const warnings: string[] = [];
  const rawPath = source.get(KEYS.serverPath);
  let serverPath = DEFAULTS.serverPath;
  if (typeof rawPath === "string") {
    serverPath = rawPath.trim();
  } else if (rawPath !== undefined && rawPath !== null) {
    warnings.push(`${SECTION}.${KEYS.serverPath}: expected a string; ignored`);
  }
  const settings: Settings = {
    serverPath,
    embeddingProvider: oneOf(
      EMBEDDING_PROVIDERS,
      source.get(KEYS.embeddingProvider),
      DEFAULTS.embeddingProvider,
      KEYS.embeddingProvider,
      warnings,
    ),
    harvestEnabled: optionalBool(source, KEYS.harvestEnabled, warnings),
    reviewEnabled: optionalBool(source, KEYS.reviewEnabled, warnings),
    trace: oneOf(TRACE_LEVELS, source.get(KEYS.trace), DEFAULTS.trace, KEYS.trace, warnings),
  };
  return { settings, warnings };
}

/**
 * The server's `initializationOptions`. Sections mirror the workspace's config.yml
 * (`embedding.provider`, `review.enabled`) plus `harvest.enabled`; a value the user did not
 * set is left out so the workspace's own config (or the server default) stays in force.
 */
export interface InitializationOptions {
  embedding?: { provider: Exclude<EmbeddingProvider, "default"> };
  harvest?: { enabled: boolean };
  review?: { enabled: boolean };
  /**
   * VS Code's Workspace Trust: false makes the server ignore what the workspace's own
   * `.nano-brain.yml` says about endpoints, credentials and outside files; true lets it count.
   */
  workspace_trusted: boolean;
}

export function toInitializationOptions(settings: Settings, trusted: boolean): InitializationOptions {
  const options: InitializationOptions = { workspace_trusted: trusted };
  if (settings.embeddingProvider !== "default") {
    options.embedding = { provider: settings.embeddingProvider };
  }
  if (settings.harvestEnabled !== undefined) {
    options.harvest = { enabled: settings.harvestEnabled };
  }
  if (settings.reviewEnabled !== undefined) {
    options.review = { enabled: settings.reviewEnabled };
  }
  return options;
}

/** Whether a configuration change (tested with VS Code's `affectsConfiguration`) needs a restart. */
export function needsRestart(affects: (key: string) => boolean): boolean {
  return RESTART_KEYS.some((key) => affects(key));
}
