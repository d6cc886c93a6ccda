import { Type, type Static } from '@sinclair/typebox';
import { RoleSchema } from '../auth/auth-schemas.js';
import { maxRetentionDays, minRetentionDays } from '../retention/retention-policy.js';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const IdParams = Type.Object({ id: Id });

export const ManagedUserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  active: Type.Boolean(),
  createdAt: Timestamp,
});
export const UserList = Type.Object({ items: Type.Array(ManagedUserSchema) });

export const UserChangeBody = Type.Object(
  { role: Type.Optional(RoleSchema), active: Type.Optional(Type.Boolean({ description: 'false deactivates the user and ends their sessions' })) },
  { additionalProperties: false, minProperties: 1 },
);
export type UserChangeBody = Static<typeof UserChangeBody>;

export const InvitationSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')]),
  createdAt: Timestamp,
  expiresAt: Timestamp,
});
export const InvitationList = Type.Object({ items: Type.Array(InvitationSchema) });

export const InvitationCreateBody = Type.Object(
  { email: Type.String({ format: 'email', minLength: 3, maxLength: 254 }), role: RoleSchema },
  { additionalProperties: false },
);
export const CreatedInvitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  expiresAt: Timestamp,
  token: Type.String({ description: 'Shown this once: pass it to the invitee' }),
});

export const IngestionKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The public start of the key, to recognise it' }),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});
export const IngestionKeyList = Type.Object({ items: Type.Array(IngestionKeySchema) });

export const IngestionKeyCreateBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }) }, { additionalProperties: false });
export const CreatedIngestionKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  createdAt: Timestamp,
  key: Type.String({ description: 'The secret, shown this once; only its hash is stored' }),
});

export const Revoked = Type.Object({ revoked: Type.Literal(true) });

export const Retention = Type.Object(
  { days: Type.Integer({ minimum: minRetentionDays, maximum: maxRetentionDays, description: 'days of telemetry kept' }) },
  { additionalProperties: false },
);
