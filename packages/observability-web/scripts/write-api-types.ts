// Regenerates packages/observability-web/src/api/generated/observability-api.ts from the
// observability service's committed OpenAPI document:
//   npm run generate:api-types -w @playstack/observability-web
import { writeApiTypes } from '../../../scripts/api-types-generator.js';
import { dashboardApiTypes } from './api-types-target.js';

writeApiTypes(dashboardApiTypes);
