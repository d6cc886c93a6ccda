import type { ApiTypesTarget } from '../../../scripts/api-types-generator.js';

/** The dashboard's types come from the observability service's document; it calls the `/api/v1/` endpoints. */
export const dashboardApiTypes: ApiTypesTarget = {
  openApiFile: 'packages/observability-service/openapi.json',
  typesFile: 'packages/observability-web/src/api/generated/observability-api.ts',
  command: 'npm run generate:api-types -w @playstack/observability-web',
  pathPrefix: '/api/v1/',
};
