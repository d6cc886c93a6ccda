import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountsService } from '@playstack/server-kit';
import type { GameApp } from '../database.js';
import type { AdminData } from './admin-data.js';
import type { Notice } from './admin-layout.js';
import type { AdminSessions } from './admin-session.js';
import type { Html } from './html.js';

const maxFieldLength = 1_000_000;

/** Form and JSON bodies alike: flat string fields, bounded. */
export const FormBody = Type.Record(Type.String(), Type.String({ maxLength: maxFieldLength }));
export type Form = Record<string, string>;

/** A page to answer with: HTML for browsers, its data for `Accept: application/json`. */
export interface AdminPageAnswer {
  title: string;
  json: unknown;
  body: () => Html;
  status?: number;
  notice?: Notice;
}

/** What every admin page's routes are built with. */
export interface AdminPageContext {
  app: GameApp;
  accounts: AccountsService;
  sessions: AdminSessions;
  data: AdminData;
  respond(request: FastifyRequest, reply: FastifyReply, page: AdminPageAnswer): FastifyReply;
}

/** A plausible email address: something@something, no spaces, at most 254 characters. */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(value) && value.length <= 254;
}

export function normalizedEmail(value: string | undefined): string {
  return (value ?? '').trim().toLowerCase();
}
