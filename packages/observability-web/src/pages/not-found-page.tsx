import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';

export function NotFoundPage() {
  return (
    <Layout title="Page not found">
      <p>
        There is no page at this address. <Link href="/services">Go to Services</Link>.
      </p>
    </Layout>
  );
}
