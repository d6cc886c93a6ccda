import { describe, expect, it } from 'vitest';
import { normalizeStatement, statementHash, statementVerb } from '../src/ingest/statement-normalizer.js';
import { redisKeyShape } from '../src/ingest/redis-command-shape.js';

// Statements as drivers and ORMs send them (node-postgres, Prisma, Sequelize, mysql2, tedious,
// ioredis through @opentelemetry/redis-common, the OpenTelemetry MongoDB instrumentation).

describe('PostgreSQL statements', () => {
  it.each([
    ['SELECT "User"."id", "User"."email" FROM "User" WHERE "User"."id" = $1 LIMIT $2 OFFSET $3', 'SELECT "User"."id", "User"."email" FROM "User" WHERE "User"."id" = ? LIMIT ? OFFSET ?'],
    ['SELECT "public"."Order"."id" FROM "public"."Order" WHERE "public"."Order"."status" IN ($1,$2,$3) OFFSET $4', 'SELECT "public"."Order"."id" FROM "public"."Order" WHERE "public"."Order"."status" IN (?) OFFSET ?'],
    ['SELECT id FROM t WHERE id = $1::uuid AND tags @> $2::text[] AND n = 5::bigint', 'SELECT id FROM t WHERE id = ? AND tags @> ? AND n = ?'],
    ["SELECT created_at::date, count(*) FROM orders WHERE placed > '2026-01-01'::timestamptz GROUP BY 1", 'SELECT created_at::date, count(*) FROM orders WHERE placed > ? GROUP BY ?'],
    ['INSERT INTO "orders" ("id","total") VALUES ($1,$2),($3,$4) RETURNING "id"', 'INSERT INTO "orders" ("id","total") VALUES (?) RETURNING "id"'],
    ["select * from events where created_at > now() - interval '1 day' and payload->>'type' = 'click'", 'select * from events where created_at > now() - interval ? and payload->>? = ?'],
    ['DO $$ BEGIN PERFORM 1; END $$', 'DO ?'],
    ['SELECT $body$ x $body$, $1', 'SELECT ?, ?'],
    ["SELECT E'it\\'s', 'O''Brien'", 'SELECT ?, ?'],
    ["/* traceparent='00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' */ SELECT 1 -- trailing note 7", 'SELECT ?'],
    ['SELECT a # b FROM t WHERE x = -1 AND y = ANY($1) AND z = ANY(ARRAY[1, 2, 3])', 'SELECT a # b FROM t WHERE x = ? AND y = ANY(?) AND z = ANY(ARRAY[?])'],
    ["SELECT * FROM regions WHERE name = 'eu' AND code LIKE 'queue:eu%'", 'SELECT * FROM regions WHERE name = ? AND code LIKE ?'],
    ['UPDATE "t2" SET v = 1.5e3, w = .5, z = TRUE WHERE id = 0xFF', 'UPDATE "t2" SET v = ?, w = ?, z = ? WHERE id = ?'],
    ['  SELECT\n\t1  ', 'SELECT ?'],
  ])('%s', (statement, shape) => {
    expect(normalizeStatement('postgresql', statement)).toBe(shape);
  });
});

describe('MySQL statements', () => {
  it.each([
    ['SELECT `id`, `email` FROM `users` AS `User` WHERE `User`.`id` = 42 LIMIT 1', 'SELECT id, email FROM users AS User WHERE User.id = ? LIMIT ?'],
    ["SELECT * FROM t WHERE name = \"bob\" AND note = 'it\\'s'", 'SELECT * FROM t WHERE name = ? AND note = ?'],
    ["INSERT INTO logs (msg) VALUES ('a'), ('b') # bulk 2", 'INSERT INTO logs (msg) VALUES (?)'],
    ['SELECT * FROM users WHERE id IN (?, ?, ?) AND org = :org', 'SELECT * FROM users WHERE id IN (?) AND org = ?'],
    ["SELECT 0xFF, X'4D7953514C', b'101' FROM `weird table`", 'SELECT ?, ?, ? FROM `weird table`'],
  ])('%s', (statement, shape) => {
    expect(normalizeStatement('mysql', statement)).toBe(shape);
    expect(normalizeStatement('mariadb', statement)).toBe(shape);
  });
});

describe('SQL Server, Oracle and SQLite statements', () => {
  it.each([
    ['mssql', "SELECT TOP 10 [o].[id] FROM [dbo].[orders] AS [o] WHERE [o].[customer] = @p0 AND [o].[status] = N'open'", 'SELECT TOP ? [o].[id] FROM [dbo].[orders] AS [o] WHERE [o].[customer] = ? AND [o].[status] = ?'],
    ['microsoft.sql_server', 'EXEC sp_orders @customer = @p1, @limit = 20', 'EXEC sp_orders ? = ?, ? = ?'],
    ['oracle', 'SELECT * FROM emp WHERE deptno = :1 AND ename = :name AND ROWNUM <= 5', 'SELECT * FROM emp WHERE deptno = ? AND ename = ? AND ROWNUM <= ?'],
    ['sqlite', 'SELECT * FROM t WHERE a = ?1 AND b = :b AND c = @c AND d = $d AND e IN (1,2)', 'SELECT * FROM t WHERE a = ? AND b = ? AND c = ? AND d = ? AND e IN (?)'],
    ['cassandra', "SELECT * FROM ks.users WHERE id = 5 AND name = 'x'", 'SELECT * FROM ks.users WHERE id = ? AND name = ?'],
  ])('%s: %s', (system, statement, shape) => {
    expect(normalizeStatement(system, statement)).toBe(shape);
  });
});

describe('Redis commands', () => {
  it.each([
    ['GET queue:eu-west', 'GET queue:?'],
    ['get queue:us-east', 'GET queue:?'],
    ['SET session:abc123 [1 other arguments]', 'SET session:?'],
    ['HGETALL user:42:profile', 'HGETALL user:?:profile'],
    ['hset user:1001 name "Ada Lovelace" email ada@example.com', 'HSET user:?'],
    ['MGET product:1 product:2 product:3', 'MGET product:?'],
    ['ZADD leaderboard:2026-11 1500 player:7', 'ZADD leaderboard:?'],
    ['BLPOP jobs:email 5', 'BLPOP jobs:email'],
    ['INCR rate-limit:ip:10.0.0.1', 'INCR rate-limit:ip:?'],
    ['GET 5f2b8c9e1a7d4e3f', 'GET ?'],
    ['DEL session_abc123', 'DEL ?'],
    ['AUTH default s3cret-password', 'AUTH'],
    ['CLIENT SETNAME worker-1', 'CLIENT SETNAME'],
    ['config get maxmemory', 'CONFIG GET'],
    ['EVALSHA 9f3e5a1b2c 1 rate-limit:ip:10.0.0.1 100', 'EVALSHA rate-limit:ip:?'],
    ['EVAL "return 1" 0', 'EVAL'],
    ['PING', 'PING'],
    ['INCR counter', 'INCR counter'],
    ['', ''],
  ])('%j', (statement, shape) => {
    expect(normalizeStatement('redis', statement)).toBe(shape);
  });

  it('keeps naming segments of a key and replaces values', () => {
    expect(redisKeyShape('cache:products:list')).toBe('cache:products:list');
    expect(redisKeyShape('v2:users')).toBe('v2:users');
    expect(redisKeyShape('{user1000}:following')).toBe('?:following');
    expect(redisKeyShape('orders:2b4c7e1a-9a8d-4a8f-b1c2-3d4e5f6a7b8c')).toBe('orders:?');
  });
});

describe('MongoDB commands', () => {
  it.each([
    ['{"find":"?","filter":{"status":"?","total":{"$gt":"?"}},"limit":"?"}', 'orders', 'find orders {"status":?,"total":{"$gt":?}}'],
    ['{"find":"orders","filter":{"_id":{"$in":[1,2,3]}}}', undefined, 'find orders {"_id":{"$in":[?]}}'],
    ['{"update":"users","updates":[{"q":{"email":"a@b.c"},"u":{"$set":{"name":"x"}}}]}', undefined, 'update users {"email":?}'],
    ['{"delete":"sessions","deletes":[{"q":{"expires":{"$lt":1700000000}},"limit":0}]}', undefined, 'delete sessions {"expires":{"$lt":?}}'],
    [
      '{"aggregate":"orders","pipeline":[{"$match":{"status":"paid"}},{"$group":{"_id":"$customer","n":{"$sum":1}}},{"$sort":{"n":-1}}]}',
      undefined,
      'aggregate orders [$match {"status":?}, $group, $sort]',
    ],
    ['{"insert":"events","documents":[{"a":1}]}', undefined, 'insert events'],
    ['{"find":"?","filter":{"tags":["a","b"],"$or":[{"x":1},{"y":2}]}}', undefined, 'find ? {"tags":[?],"$or":[{"x":?}]}'],
    ['db.orders.find({status: "A", qty: 5})', undefined, 'db.orders.find({status: ?, qty: ?})'],
  ])('%s', (statement, collection, shape) => {
    expect(normalizeStatement('mongodb', statement, { collection })).toBe(shape);
  });
});

describe('systems the normalizer does not know', () => {
  it.each([
    ['elasticsearch', 'GET /orders/_search?q=status:open'],
    ['memcached', 'get user:42'],
    ['unknown-db', "SELECT * FROM t WHERE id = 1 AND s = 'x'"],
  ])('%s keeps the statement as sent', (system, statement) => {
    expect(normalizeStatement(system, statement)).toBe(statement);
  });
});

describe('statement hashes and verbs', () => {
  it('gives statements that differ only in literals the same shape and hash', () => {
    const a = normalizeStatement('postgresql', "SELECT * FROM orders WHERE id = 1 AND status = 'open'");
    const b = normalizeStatement('postgresql', "SELECT  * FROM orders WHERE id = 99 AND status = 'closed'");
    expect(a).toBe(b);
    expect(statementHash(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(statementHash(a)).toBe(statementHash(b));
    expect(statementHash(a)).not.toBe(statementHash(normalizeStatement('postgresql', 'SELECT * FROM orders WHERE id = 1')));
  });

  it('names the verb of a statement', () => {
    expect(statementVerb('select ?')).toBe('SELECT');
    expect(statementVerb('(SELECT ?) UNION (SELECT ?)')).toBe('SELECT');
    expect(statementVerb('GET queue:?')).toBe('GET');
    expect(statementVerb('')).toBeUndefined();
  });
});
