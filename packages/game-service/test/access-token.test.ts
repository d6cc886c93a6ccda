import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AccessTokenCodec } from '../src/auth/access-token.js';

const claims = { playerId: 'p1', gameId: 'demo', displayName: 'Ada', familyId: 'f1', expiresAt: 1_800_000_000_000 };

describe('access token codec', () => {
  it('verifies its own tokens, from memory the second time, and refuses every altered one', () => {
    const codec = new AccessTokenCodec(randomBytes(32));
    const token = codec.sign(claims);
    expect(codec.verify(token)).toEqual(claims);
    expect(codec.verify(token)).toEqual(claims);
    const [prefix, payload, signature] = token.split('.') as [string, string, string];
    const flipped = (text: string) => `${text.slice(0, -2)}${text.at(-2) === 'A' ? 'B' : 'A'}${text.at(-1)}`;
    expect(codec.verify(`${prefix}.${payload}.${flipped(signature)}`)).toBeUndefined();
    expect(codec.verify(`${prefix}.${flipped(payload)}.${signature}`)).toBeUndefined();
    expect(codec.verify(`v2.${payload}.${signature}`)).toBeUndefined();
    expect(codec.verify(`${token}.`)).toBeUndefined();
    // Another key's codec knows nothing of the first one's verified tokens.
    expect(new AccessTokenCodec(randomBytes(32)).verify(token)).toBeUndefined();
  });

  it('keeps verifying correctly after its memory of verified tokens is full', () => {
    const codec = new AccessTokenCodec(randomBytes(32));
    const tokens = Array.from({ length: 10_050 }, (_, i) => codec.sign({ ...claims, playerId: `p${i}` }));
    for (const token of tokens) codec.verify(token);
    expect(codec.verify(tokens[0]!)).toMatchObject({ playerId: 'p0' });
    expect(codec.verify(tokens.at(-1)!)).toMatchObject({ playerId: 'p10049' });
  });
});
