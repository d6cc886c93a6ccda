import argon2 from 'argon2';

/**
 * argon2id with OWASP's recommended minimum (Password Storage Cheat Sheet): 19 MiB of memory,
 * 2 iterations, 1 degree of parallelism. The parameters travel inside each hash, so raising
 * them later only affects new hashes; {@link passwordNeedsRehash} tells when to upgrade one.
 */
export const passwordHashParameters = Object.freeze({ type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });

/** Password length bounds: NIST SP 800-63B minimum; the maximum only caps hashing work. */
export const minPasswordLength = 12;
export const maxPasswordLength = 256;

/** The argon2id hash (PHC string, salt included) to store for a password. */
export async function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, passwordHashParameters);
}

/** Whether a password matches a stored hash; false (never a throw) for a malformed hash. */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(storedHash, password);
  } catch {
    return false;
  }
}

/** True when a stored hash was made with weaker parameters than today's. */
export function passwordNeedsRehash(storedHash: string): boolean {
  return argon2.needsRehash(storedHash, passwordHashParameters);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as checking a real password, for sign-ins to unknown accounts, so the
 * answer's timing does not reveal which emails have accounts.
 */
export async function verifyPasswordAgainstNothing(password: string): Promise<false> {
  dummyHash ??= hashPassword('dummy password for timing equalisation');
  await verifyPassword(await dummyHash, password);
  return false;
}
