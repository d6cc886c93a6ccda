export { createTestDatabase, describeEachDatabase, testDialects, type TestDatabase } from './test-database.js';
export { redisVariants, testRedisEnv } from './test-redis.js';
export { servedAndCommittedOpenApi } from './openapi-drift.js';
export { chromiumPath, launchChromium } from './chromium.js';
