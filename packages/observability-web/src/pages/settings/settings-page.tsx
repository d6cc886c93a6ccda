import { useEffect } from 'preact/hooks';
import { useSession } from '../../api/session.js';
import { Layout } from '../../components/layout.js';
import { Tabs } from '../../components/tabs.js';
import { navigate } from '../../state/location.js';
import type { RouteParams } from '../../state/routes.js';
import { AlertChannelsSettings } from './alert-channels-settings.js';
import { InvitationsSettings } from './invitations-settings.js';
import { KeysSettings } from './keys-settings.js';
import { PasswordSettings } from './password-settings.js';
import { RetentionSettings } from './retention-settings.js';
import { UsersSettings } from './users-settings.js';

const adminSections = [
  { key: 'keys', label: 'Keys' },
  { key: 'users', label: 'Users' },
  { key: 'invitations', label: 'Invitations' },
  { key: 'retention', label: 'Retention' },
  { key: 'alert-channels', label: 'Alert channels' },
];
const everyoneSections = [{ key: 'password', label: 'Password' }];

/** Settings: administrators see keys, users, invitations and retention; everyone their own password. */
export function SettingsPage({ params }: { params: RouteParams }) {
  const { user } = useSession();
  const isAdmin = user?.role === 'admin';
  const sections = isAdmin ? [...adminSections, ...everyoneSections] : everyoneSections;
  const requested = params.section;
  const active = sections.find((section) => section.key === requested)?.key;

  useEffect(() => {
    // /settings, or a section this user may not open, lands on the first one they may.
    if (!active) navigate(`/settings/${sections[0]!.key}`, { replace: true });
  }, [active, sections]);

  return (
    <Layout title="Settings" controls="none">
      <Tabs active={active ?? ''} tabs={sections.map((section) => ({ key: section.key, label: section.label, href: `/settings/${section.key}` }))} />
      {active === 'keys' ? <KeysSettings /> : null}
      {active === 'users' ? <UsersSettings /> : null}
      {active === 'invitations' ? <InvitationsSettings /> : null}
      {active === 'retention' ? <RetentionSettings /> : null}
      {active === 'alert-channels' ? <AlertChannelsSettings /> : null}
      {active === 'password' ? <PasswordSettings /> : null}
    </Layout>
  );
}
