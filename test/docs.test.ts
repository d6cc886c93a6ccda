// The documentation a user reads stands on its own: every link resolves inside the repository
// (anchors included) or is a public URL, nothing points at files a clone does not have, and the
// examples it shows are accepted by the code.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { checkManifest } from '../packages/game-service/src/manifest/manifest-check.js';
import { adapterTypes } from '../packages/game-service/src/runs/adapters/registry.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** README.md, docs/, and each package's README: what a user of the repository reads. */
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`),
  ...readdirSync(join(root, 'packages')).map((name) => `packages/${name}/README.md`).filter((file) => existsSync(join(root, file))),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.*)$/gm)) {
    anchors.add(heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
  }
  return anchors;
}

/** The page without fenced code blocks and inline code, where brackets are not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** Every link target of a page: inline links and images, reference definitions, autolinks. */
function linksOf(markdown: string): string[] {
  const text = withoutCode(markdown);
  return [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]!),
    ...[...text.matchAll(/<((?:https?|ftp|file):[^>\s]+)>/g)].map((match) => match[1]!),
  ];
}

/** Whether a URL is one anybody can open: http(s), a registered-looking name, no local or private address. */
function isPublicUrl(target: string): boolean {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 || host === 'localhost' || !host.includes('.')) return false;
  return !/\.(local|internal|lan|localhost|test|invalid|example)$/.test(host);
}

describe.each(pages)('%s', (page) => {
  const markdown = readFileSync(join(root, page), 'utf8');

  it('links only to files of the repository (that exist, anchors included) or to public URLs', () => {
    const problems: string[] = [];
    for (const target of linksOf(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        if (!isPublicUrl(target)) problems.push(`${target}: not a public URL`);
        continue;
      }
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(root, page) : resolve(dirname(join(root, page)), decodeURIComponent(path));
      if (relative(root, file).startsWith('..') || path.startsWith('/')) {
        problems.push(`${target}: outside the repository`);
      } else if (!existsSync(file)) {
        problems.push(`${target}: no such file`);
      } else if (anchor !== undefined && statSync(file).isFile() && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        problems.push(`${target}: no heading for #${anchor}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('refers a reader to nothing a clone lacks (the workspace\'s shared folder, a machine\'s paths)', () => {
    expect(markdown).not.toMatch(/\.\.\/shared\b|shared\/spec|decisions\.md|ARCHITECTURE\.md|STYLE\.md|\/work\//);
  });
});

describe('the link checker itself', () => {
  it('finds inline, reference and auto links, outside code', () => {
    const markdown = 'See [a](docs/a.md#x), ![i](img.png "t") and <https://nodejs.org/>.\n\n[ref]: ../shared/x.md\n\n`[not](a-link.md)`\n\n```\n[nor](this.md)\n```\n';
    expect(linksOf(markdown)).toEqual(['docs/a.md#x', 'img.png', '../shared/x.md', 'https://nodejs.org/']);
  });

  it('tells public URLs from local and private ones', () => {
    expect(['https://nodejs.org/en/about/previous-releases', 'http://www.sqlite.org/wal.html'].map(isPublicUrl)).toEqual([true, true]);
    expect(['http://127.0.0.1:8080/', 'http://localhost:8081', 'https://10.0.0.5/', 'http://db.internal/', 'file:///etc/passwd', 'https://observability.example/'].map(isPublicUrl)).toEqual([
      false, false, false, false, false, false,
    ]);
  });
});

describe('examples in the docs', () => {
  it('the manifest example of game-identity.md is a valid manifest', () => {
    const markdown = readFileSync(join(root, 'docs/game-identity.md'), 'utf8');
    const example = /A manifest with a game signed in through Google Play Games[\s\S]*?```json\n([\s\S]*?)```/.exec(markdown)![1]!;
    const checked = checkManifest(JSON.parse(example), adapterTypes);
    expect(checked.ok ? [] : checked.problems).toEqual([]);
  });

  it('the run bodies of game-api.md are what the adapters accept', () => {
    const markdown = readFileSync(join(root, 'docs/game-api.md'), 'utf8');
    const bodies = [...markdown.matchAll(/\*\*`([a-z0-9-]+)`\*\*[\s\S]*?```json\n([\s\S]*?)```/g)].map((match) => ({ type: match[1]!, body: JSON.parse(match[2]!) as { payload: unknown } }));
    expect(bodies.map((body) => body.type)).toEqual(['bounded-score', 'replay-2048']);
    for (const { type, body } of bodies) {
      const adapter = adapterTypes.get(type)!;
      expect([...Value.Errors(adapter.payloadSchema, body.payload)].map((error) => `${error.path}: ${error.message}`), type).toEqual([]);
      // Accepted, and the client's hints agree with what the server derives.
      expect(adapter.derive(body.payload as never, { options: {} } as never), type).toMatchObject({ ok: true, hintMismatches: [] });
    }
  });

  it('the Collector configuration of otlp.md is whole: every component a pipeline names is defined, and each exporter sends the key', () => {
    const markdown = readFileSync(join(root, 'docs/otlp.md'), 'utf8');
    const section = markdown.slice(markdown.indexOf('### OpenTelemetry Collector'));
    type Components = Record<string, Record<string, unknown> | null>;
    const config = parseYaml(/```yaml\n([\s\S]*?)```/.exec(section)![1]!) as Record<'receivers' | 'processors' | 'exporters', Components> & {
      service: { pipelines: Record<string, Record<'receivers' | 'processors' | 'exporters', string[]>> };
    };
    const undefinedComponents = Object.entries(config.service.pipelines).flatMap(([pipeline, parts]) =>
      (['receivers', 'processors', 'exporters'] as const).flatMap((kind) => (parts[kind] ?? []).filter((id) => !(id in (config[kind] ?? {}))).map((id) => `${pipeline}: ${kind} ${id}`)),
    );
    expect(undefinedComponents).toEqual([]);
    // The current exporter names (type/name), both transports, the key as the standard clients send it.
    expect(Object.keys(config.exporters).map((id) => id.split('/')[0])).toEqual(['otlp_http', 'otlp_grpc']);
    for (const exporter of Object.values(config.exporters)) {
      expect(exporter).toMatchObject({ endpoint: expect.any(String), headers: { authorization: 'Bearer ${env:PLAYSTACK_INGEST_KEY}' } });
    }
    expect(config.exporters['otlp_grpc/playstack']!.endpoint).toMatch(/:4317$/);
  });
});
