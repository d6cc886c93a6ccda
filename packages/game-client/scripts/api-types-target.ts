import type { ApiTypesTarget } from '../../../scripts/api-types-generator.js';

/** The client's types come from the game service's document; it calls only the versioned game endpoints. */
export const gameClientApiTypes: ApiTypesTarget = {
  openApiFile: 'packages/game-service/openapi.json',
  typesFile: 'packages/game-client/src/generated/game-service-api.ts',
  command: 'npm run generate:api-types -w @playstack/game-client',
  pathPrefix: '/v1/',
};
