export { createTestDatabase, describeEachDatabase, testDialects, type TestDatabase } from './test-database.js';
export { connectTestRedis, redisVariants, testRedisEnv, type TestRedisConnection } from './test-redis.js';
export { describeOpenApiDocument } from './openapi-drift.js';
export { freePort } from './free-port.js';
export { chromiumPath, launchChromium } from './chromium.js';
export { seededRandom } from './seeded-random.js';
export { CapturedLogs, logLevels, type LogLine } from './captured-logs.js';
export { sendWholeBodyThenRead, type WholeBodyAnswer, type WholeBodyRequest } from './whole-body-request.js';
export { TestRedisServer } from './redis-server.js';
