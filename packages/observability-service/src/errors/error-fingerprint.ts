import { createHash } from 'node:crypto';

/**
 * How errors are grouped: an error occurrence belongs to the group of its fingerprint, the hash
 * of four parts. Documented in docs/observability-read-api.md; changing a rule regroups errors, so a change
 * comes with a migration requesting a rebuild of the groups (src/errors/error-groups-rebuild.ts).
 *
 * 1. The service.
 * 2. The error type (`error.type`, OTLP `exception.type`; else the `Type:` that starts the stack).
 * 3. The message, normalized: quoted values, UUIDs, e-mail and IP addresses, hexadecimal and
 *    other ids, and every number become `?`; whitespace collapses.
 * 4. The top in-app stack frame: the innermost frame not in a dependency or the runtime,
 *    as `function (last two path segments)`, without line and column (they move with every
 *    deploy); the innermost frame of all when none is in-app; nothing without a stack.
 */

export interface ErrorFingerprint {
  /** 16 hexadecimal characters of the SHA-256 of the four parts. */
  groupId: string;
  type: string;
  message: string;
  topFrame: string;
}

/** Bounds of the stored parts, in characters. */
export const groupTypeMaxChars = 256;
export const groupMessageMaxChars = 512;
export const groupFrameMaxChars = 256;

/** Normalization, in order: each pattern's matches become `?`. */
const messageRules: readonly RegExp[] = [
  // Quoted values: '...', "...", `...`, “...”, ‘...’.
  /'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|“[^”\n]*”|‘[^’\n]*’/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g,
  // IPv4 with an optional port, IPv6 (two or more groups with ::, or eight groups).
  /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g,
  /\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:)*::(?:[0-9a-f]{1,4}:)*[0-9a-f]{1,4}\b/gi,
  /\b0x[0-9a-f]+\b/gi,
  // Ids: runs of 8+ letters and digits (or - and _) holding both a letter and a digit.
  /\b(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{8,}\b/gi,
  /\d+(?:\.\d+)?/g,
];

/** The message with its variable parts replaced (see the module comment). */
export function normalizeErrorMessage(message: string): string {
  let text = message;
  for (const rule of messageRules) text = text.replace(rule, '?');
  return text.replace(/\s+/g, ' ').trim().slice(0, groupMessageMaxChars);
}

interface StackFrame {
  function: string;
  file: string;
}

/** Frame formats, each giving the function and the file. */
const framePatterns: ReadonlyArray<{ pattern: RegExp; frame: (match: RegExpExecArray) => StackFrame }> = [
  // V8 (Node.js, Chrome): "at fn (file:1:2)", "at file:1:2", "at async fn (file:1:2)".
  { pattern: /^\s*at (?:async )?(?:new )?(.+?) \((.+?)(?::\d+)?(?::\d+)?\)$/, frame: (m) => ({ function: m[1]!, file: m[2]! }) },
  { pattern: /^\s*at (?:async )?((?:file|https?|node|webpack[\w-]*):\/\/?[^\s]+?|\/[^\s]+?)(?::\d+)?(?::\d+)?$/, frame: (m) => ({ function: '', file: m[1]! }) },
  // Python: File "path", line 1, in fn
  { pattern: /^\s*File "(.+?)", line \d+, in (.+)$/, frame: (m) => ({ function: m[2]!, file: m[1]! }) },
  // Java, Kotlin, Scala: "at com.x.Y.method(Y.java:42)"
  { pattern: /^\s*at ([\w$.<>/]+)\(([\w$.-]+\.(?:java|kt|scala|groovy|clj))(?::\d+)?\)$/, frame: (m) => ({ function: m[1]!, file: m[2]! }) },
  // .NET: "at Ns.Type.Method(args) in /path/File.cs:line 42"
  { pattern: /^\s*at ([\w.`<>[\]]+)\(.*?\)(?: in (.+?):line \d+)?$/, frame: (m) => ({ function: m[1]!, file: m[2] ?? '' }) },
  // Ruby: "path:42:in 'method'" / "path:42:in `method'"
  { pattern: /^\s*(.+?):\d+:in [`'](.+)'$/, frame: (m) => ({ function: m[2]!, file: m[1]! }) },
  // Go: "\t/path/file.go:42 +0x1d" (the function is on the line before).
  { pattern: /^\s+(\/.+?\.go):\d+(?: \+0x[0-9a-f]+)?$/, frame: (m) => ({ function: '', file: m[1]! }) },
];

/** Paths and names of code that is not the application's own. */
const notInApp = [
  /node_modules\//,
  /^node:/,
  /^internal\//,
  /\(?<anonymous>\)?/,
  /[/\\](?:site|dist)-packages[/\\]/,
  /^\/usr\/(?:local\/)?lib\//,
  /\/usr\/local\/go\/src\//,
  /^(?:[\w.]+\/)?(?:java|javax|jdk|sun|kotlin|scala)\./,
  /^(?:System|Microsoft)\./,
  /\/gems\//,
];

function isInApp(frame: StackFrame): boolean {
  return !notInApp.some((pattern) => pattern.test(frame.file) || pattern.test(frame.function));
}

/** The frames of a stack, innermost first (Python prints the innermost last; Go names functions on the line above). */
export function stackFrames(stack: string): StackFrame[] {
  const lines = stack.split(/\r?\n/);
  const frames: StackFrame[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    for (const { pattern, frame } of framePatterns) {
      const match = pattern.exec(line);
      if (!match) continue;
      const found = frame(match);
      if (found.function === '' && found.file.endsWith('.go')) found.function = (lines[index - 1] ?? '').replace(/\(.*$/, '').trim();
      frames.push(found);
      break;
    }
  }
  return /^\s*File "/m.test(stack) ? frames.reverse() : frames;
}

/** `function (a/b.ts)`: the function and the file's last two path segments, without query or hash. */
function frameText(frame: StackFrame): string {
  const file = frame.file
    .replace(/[?#].*$/, '')
    .split(/[/\\]/)
    .filter((segment) => segment !== '' && segment !== '.')
    .slice(-2)
    .join('/');
  const name = frame.function || '<anonymous>';
  return (file ? `${name} (${file})` : name).slice(0, groupFrameMaxChars);
}

/** The innermost in-app frame, else the innermost frame, as `function (file)`; '' without a stack. */
export function topInAppFrame(stack: string | null | undefined): string {
  if (!stack) return '';
  const frames = stackFrames(stack);
  const top = frames.find(isInApp) ?? frames[0];
  return top ? frameText(top) : '';
}

/** The type an error names: its own, else the `Type:` that starts its stack. */
function errorTypeOf(type: string | null | undefined, stack: string | null | undefined): string {
  if (type) return type.slice(0, groupTypeMaxChars);
  const named = stack ? /^\s*([A-Za-z_$][\w$.]*)(?::|$)/.exec(stack.split(/\r?\n/, 1)[0]!) : null;
  return named && !named[1]!.includes(' ') ? named[1]!.slice(0, groupTypeMaxChars) : '';
}

/** The error's fingerprint, or undefined when the occurrence carries no error at all. */
export function errorFingerprint(service: string, error: { type: string | null; message: string | null; stack: string | null }): ErrorFingerprint | undefined {
  if (!error.type && !error.message && !error.stack) return undefined;
  const type = errorTypeOf(error.type, error.stack);
  const message = normalizeErrorMessage(error.message ?? '');
  const topFrame = topInAppFrame(error.stack);
  const groupId = createHash('sha256').update([service, type, message, topFrame].join('\n'), 'utf8').digest('hex').slice(0, 16);
  return { groupId, type, message, topFrame };
}
