export { createTestDatabase, describeEachDatabase, testDialects, type TestDatabase } from './test-database.js';
export { redisVariants, testRedisEnv } from './test-redis.js';
export { describeOpenApiDocument } from './openapi-drift.js';
export { freePort } from './free-port.js';
export { chromiumPath, launchChromium } from './chromium.js';
export { seededRandom } from './seeded-random.js';
