// Regenerates the configuration reference in README.md from the config schemas:
//   npm run docs:config
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigReference } from './config-reference.js';

const readme = readFileSync('README.md', 'utf8');
writeFileSync('README.md', withConfigReference(readme));
console.log('wrote the configuration reference in README.md');
