// Regenerates packages/game-client/src/generated/game-service-api.ts from the game service's
// committed OpenAPI document:  npm run generate:api-types -w @playstack/game-client
import { readFileSync, writeFileSync } from 'node:fs';
import { generateApiTypes, type OpenApiDocument } from './api-types-generator.js';

export const openApiFile = new URL('../../game-service/openapi.json', import.meta.url);
export const apiTypesFile = new URL('../src/generated/game-service-api.ts', import.meta.url);

const document = JSON.parse(readFileSync(openApiFile, 'utf8')) as OpenApiDocument;
writeFileSync(apiTypesFile, generateApiTypes(document));
console.log(`wrote ${apiTypesFile.pathname}`);
