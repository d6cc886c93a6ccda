import type { Readable } from 'node:stream';

/** Calls `onLine` with each whole line `stream` gives, as it comes (a line's start waits for its newline). */
export function eachLine(stream: Readable, onLine: (line: string) => void): void {
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}
