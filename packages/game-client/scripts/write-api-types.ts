// Regenerates packages/game-client/src/generated/game-service-api.ts from the game service's
// committed OpenAPI document:  npm run generate:api-types -w @playstack/game-client
import { writeApiTypes } from '../../../scripts/api-types-generator.js';
import { gameClientApiTypes } from './api-types-target.js';

writeApiTypes(gameClientApiTypes);
