import { describe, expect, it } from 'vitest';
import { normalizeStatement, statementHash, statementVerb } from '../src/ingest/statement-normalizer.js';

describe('statement normalization', () => {
  it.each([
    ["SELECT * FROM users WHERE id = 42 AND name = 'O''Brien'", 'SELECT * FROM users WHERE id = ? AND name = ?'],
    ['select a from t1 where x in (1, 2, 3) and y = $1 -- note 5\n limit 10', 'select a from t1 where x in (?) and y = ? limit ?'],
    ["INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y'), (3,'z')", 'INSERT INTO t (a, b) VALUES (?)'],
    ['UPDATE "t2" SET v = 1.5e3, w = .5, z = TRUE /* comment 9 */ WHERE id = 0xFF', 'UPDATE "t2" SET v = ?, w = ?, z = ? WHERE id = ?'],
    ['select $$ body 1 $$, col2 from t where a = :name and b = @p1 and c = ?', 'select ?, col2 from t where a = ? and b = ? and c = ?'],
    ['SELECT "column 1", `col2` FROM [table 3]', 'SELECT "column 1", `col2` FROM [table 3]'],
    ['  SELECT\n\t1  ', 'SELECT ?'],
    ["SELECT a::int, b::text FROM t WHERE c = 'x'::varchar", 'SELECT a::int, b::text FROM t WHERE c = ?::varchar'],
    ['SELECT t1.c2, x3 FROM t1 WHERE y = -7 AND z = 1e-3', 'SELECT t1.c2, x3 FROM t1 WHERE y = -? AND z = ?'],
    ["SELECT 'it''s', 'unclosed", 'SELECT ?, ?'],
    ['SELECT $tag$ a $tag$, $1, $$x$$ FROM t # mysql comment', 'SELECT ?, ?, ? FROM t'],
  ])('%j becomes %j', (statement, shape) => {
    expect(normalizeStatement(statement)).toBe(shape);
  });

  it('gives statements that differ only in literals the same shape and hash', () => {
    const a = normalizeStatement("SELECT * FROM orders WHERE id = 1 AND status = 'open'");
    const b = normalizeStatement("SELECT  * FROM orders WHERE id = 99 AND status = 'closed'");
    expect(a).toBe(b);
    expect(statementHash(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(statementHash(a)).toBe(statementHash(b));
    expect(statementHash(a)).not.toBe(statementHash(normalizeStatement('SELECT * FROM orders WHERE id = 1')));
  });

  it('names the verb of a statement', () => {
    expect(statementVerb('select ?')).toBe('SELECT');
    expect(statementVerb('(SELECT ?) UNION (SELECT ?)')).toBe('SELECT');
    expect(statementVerb('')).toBeUndefined();
  });
});
