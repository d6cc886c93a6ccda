import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { committedApiTypes, expectedApiTypes, type OpenApiDocument } from '../../../scripts/api-types-generator.js';
import { gameClientApiTypes } from '../scripts/api-types-target.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));

it('has generated API types that match the game service OpenAPI document (run `npm run generate:api-types -w @playstack/game-client`)', () => {
  expect(committedApiTypes(gameClientApiTypes)).toBe(expectedApiTypes(gameClientApiTypes));
});

it('generates types for the endpoints the client calls', () => {
  const document = JSON.parse(readFileSync(join(packageRoot, '../game-service/openapi.json'), 'utf8')) as OpenApiDocument;
  const paths = Object.keys(document.paths ?? {});
  for (const path of [
    '/v1/games/{gameId}/auth/exchange',
    '/v1/games/{gameId}/auth/refresh',
    '/v1/games/{gameId}/auth/logout',
    '/v1/games/{gameId}/runs/{adapterId}',
    '/v1/games/{gameId}/leaderboards/{boardId}',
    '/v1/games/{gameId}/leaderboards/{boardId}/me',
    '/v1/games/{gameId}/leaderboards/{boardId}/around-me',
    '/v1/games/{gameId}/player',
  ]) {
    expect(paths).toContain(path);
  }
});

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

it('keeps the browser entry point free of Node built-ins and server packages', () => {
  const offending = sourceFiles(join(packageRoot, 'src'))
    .filter((file) => !relative(join(packageRoot, 'src'), file).startsWith('node'))
    .flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)]
        .map((match) => match[1]!)
        .filter((specifier) => !specifier.startsWith('.'))
        .map((specifier) => `${relative(packageRoot, file)} imports ${specifier}`),
    );
  expect(offending).toEqual([]);
});
