/**
 * The shape of a Redis command: the command (and subcommand) upper-cased, then the shape of the
 * key it works on; every other argument dropped (values, scores, TTLs, passwords).
 *
 * A key is cut at `:` into segments. A segment that names something stays; one that holds a value
 * becomes `?`: `queue:eu-west` → `queue:?`, `user:42:profile` → `user:?:profile`. Later segments
 * stay only when made of letters and `_`; the first segment (the namespace) may also hold `-` and
 * digits, unless it holds a run of three or more digits. `?` rather than `{}`: braces in a key
 * are Redis Cluster hash tags.
 */

/** Commands whose second word is a subcommand (`CLIENT SETNAME`, `CONFIG GET`): the shape is both words. */
const containerCommands = new Set([
  'ACL', 'CLIENT', 'CLUSTER', 'COMMAND', 'CONFIG', 'DEBUG', 'FUNCTION', 'LATENCY', 'MEMORY', 'MODULE', 'OBJECT', 'PUBSUB', 'SCRIPT', 'SLOWLOG', 'XGROUP', 'XINFO',
]);

/** Commands without a key: the shape is the command alone. */
const keylessCommands = new Set([
  'AUTH', 'BGREWRITEAOF', 'BGSAVE', 'DBSIZE', 'DISCARD', 'ECHO', 'EXEC', 'FAILOVER', 'FLUSHALL', 'FLUSHDB', 'HELLO', 'INFO', 'KEYS', 'LASTSAVE', 'MONITOR', 'MULTI',
  'PING', 'PSUBSCRIBE', 'PUNSUBSCRIBE', 'QUIT', 'RANDOMKEY', 'READONLY', 'READWRITE', 'REPLICAOF', 'RESET', 'ROLE', 'SAVE', 'SCAN', 'SELECT', 'SHUTDOWN', 'SLAVEOF',
  'SWAPDB', 'SYNC', 'TIME', 'UNWATCH', 'WAIT', 'WAITAOF',
]);

/** Commands whose keys follow a script and a key count: `EVAL script numkeys key [key ...] arg ...`. */
const scriptCommands = new Set(['EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO', 'FCALL', 'FCALL_RO']);

/** Splits a command line into words; double- or single-quoted words may hold spaces (and backslash escapes). */
function words(statement: string): string[] {
  const result: string[] = [];
  let i = 0;
  while (i < statement.length) {
    while (i < statement.length && /\s/.test(statement[i]!)) i += 1;
    if (i >= statement.length) break;
    const quote = statement[i];
    if (quote === '"' || quote === "'") {
      let word = '';
      i += 1;
      while (i < statement.length && statement[i] !== quote) {
        if (statement[i] === '\\' && i + 1 < statement.length) i += 1;
        word += statement[i];
        i += 1;
      }
      result.push(word);
      i += 1;
    } else {
      const start = i;
      while (i < statement.length && !/\s/.test(statement[i]!)) i += 1;
      result.push(statement.slice(start, i));
    }
  }
  return result;
}

const namespaceSegment = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const nameSegment = /^[A-Za-z_]+$/;

/** A key with every value-like segment replaced by `?` (see the module comment). */
export function redisKeyShape(key: string): string {
  return key
    .split(':')
    .map((segment, index) => {
      const kept = index === 0 ? namespaceSegment.test(segment) && !/[0-9]{3}/.test(segment) : nameSegment.test(segment);
      return kept ? segment : '?';
    })
    .join(':');
}

/** The shape of a Redis command line (see the module comment); empty text stays empty. */
export function redisCommandShape(statement: string): string {
  const [first, ...rest] = words(statement);
  if (first === undefined) return '';
  const command = first.toUpperCase();
  if (containerCommands.has(command)) return rest[0] === undefined ? command : `${command} ${rest[0].toUpperCase()}`;
  if (keylessCommands.has(command)) return command;
  if (scriptCommands.has(command)) {
    const keyCount = Number(rest[1]);
    return Number.isInteger(keyCount) && keyCount > 0 && rest[2] !== undefined ? `${command} ${redisKeyShape(rest[2])}` : command;
  }
  return rest[0] === undefined ? command : `${command} ${redisKeyShape(rest[0])}`;
}
