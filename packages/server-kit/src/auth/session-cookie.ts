import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';

/**
 * Attributes of a session cookie: HttpOnly (no script access), SameSite=Lax (not sent on
 * cross-site subrequests), Path=/, and Secure whenever the request came over HTTPS (directly, or
 * through a trusted proxy's X-Forwarded-Proto).
 */
export function sessionCookieOptions(request: FastifyRequest, maxAgeSeconds: number): CookieSerializeOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: request.protocol === 'https', maxAge: maxAgeSeconds };
}

/** Attributes that delete the session cookie (the same name, path and flags, expired). */
export function clearedSessionCookieOptions(request: FastifyRequest): CookieSerializeOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: request.protocol === 'https', maxAge: 0, expires: new Date(0) };
}
