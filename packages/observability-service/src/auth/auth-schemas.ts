import { Type, type Static } from '@sinclair/typebox';
import { maxPasswordLength, minPasswordLength } from '@playstack/server-kit';

export const RoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('member')], { description: 'admin or member' });

export const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
});

const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
const NewPassword = Type.String({ minLength: minPasswordLength, maxLength: maxPasswordLength, description: `${minPasswordLength} to ${maxPasswordLength} characters` });
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const Token = Type.String({ minLength: 16, maxLength: 256 });

/** Setup, login and invitation acceptance all answer with the user and the session's CSRF token. */
export const SignedInResponse = Type.Object({ user: UserSchema, csrfToken: Type.String() });
export type SignedInResponse = Static<typeof SignedInResponse>;

export const SetupBody = Type.Object({ email: Email, password: NewPassword, name: Name }, { additionalProperties: false });
export type SetupBody = Static<typeof SetupBody>;

// No format check on sign-in: a malformed email answers like any unknown one.
export const LoginBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: maxPasswordLength }) },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const LogoutResponse = Type.Object({ signedOut: Type.Literal(true) });

export const PasswordChangeBody = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: maxPasswordLength }), newPassword: NewPassword },
  { additionalProperties: false },
);
export type PasswordChangeBody = Static<typeof PasswordChangeBody>;

export const PasswordResetRequestBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }, { additionalProperties: false });
export const PasswordResetRequestResponse = Type.Object({ requested: Type.Literal(true) }, { description: 'The same answer whether or not the email has an account' });

export const PasswordResetConfirmBody = Type.Object({ token: Token, password: NewPassword }, { additionalProperties: false });
export const PasswordResetConfirmResponse = Type.Object({ passwordReset: Type.Literal(true) });

export const InvitationAcceptBody = Type.Object({ token: Token, name: Name, password: NewPassword }, { additionalProperties: false });
export type InvitationAcceptBody = Static<typeof InvitationAcceptBody>;
