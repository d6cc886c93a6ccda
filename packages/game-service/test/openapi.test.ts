import { describeOpenApiDocument } from '@playstack/server-kit/testing';
import { buildTestApp } from './support/test-app.js';

describeOpenApiDocument((database) => buildTestApp(database), new URL('../openapi.json', import.meta.url));
