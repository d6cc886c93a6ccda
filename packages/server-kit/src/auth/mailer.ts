import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

/** One plain-text message. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail: SMTP in production, the server log when no SMTP server is configured. */
export interface Mailer {
  /** `delivery` says whether the message left by SMTP or was written to the log. */
  readonly delivery: 'smtp' | 'log';
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://...`; unset selects the log mailer. */
  smtpUrl: string | undefined;
  from: string;
  logger: FastifyBaseLogger;
}

const smtpTimeoutMs = 10_000;

/** An SMTP mailer when `smtpUrl` is set, otherwise one that writes each message to the log. */
export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? smtpMailer(options.smtpUrl, options.from) : logMailer(options.logger);
}

function smtpMailer(smtpUrl: string, from: string): Mailer {
  const url = new URL(smtpUrl);
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: smtpTimeoutMs,
    greetingTimeout: smtpTimeoutMs,
    socketTimeout: smtpTimeoutMs,
  });
  return {
    delivery: 'smtp',
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    async close() {
      transport.close();
    },
  };
}

// Without SMTP an operator reads the message from the log and passes it on by hand.
function logMailer(logger: FastifyBaseLogger): Mailer {
  return {
    delivery: 'log',
    async send(message) {
      logger.warn({ mail: message }, `mail to ${message.to} not sent (no SMTP server configured); pass it on: ${message.subject}`);
    },
    async close() {},
  };
}
