// A tiny terminal game driving the client library against the demo game: each round "plays" a
// run, queues it (stored on disk first), and the library sends it in the background. Kill it
// mid-round or start it with the service down: queued runs are sent on the next start.
//
//   npm run start:game            (in another terminal; GAME_DEV_AUTH=1)
//   npx tsx --conditions=source examples/demo-game/play.ts --player alice --rounds 3
import { parseArgs } from 'node:util';
import { createGameClient } from '@playstack/game-client';
import { createFileStorage } from '@playstack/game-client/node';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string', default: 'http://127.0.0.1:8080' },
    player: { type: 'string', default: 'player-one' },
    rounds: { type: 'string', default: '3' },
    storage: { type: 'string', default: 'data/demo-game-client.json' },
  },
});

const client = createGameClient({
  baseUrl: values['base-url'],
  gameId: 'demo',
  storage: createFileStorage(values.storage),
});
client.on('run-accepted', ({ response }) => {
  const best = response.leaderboards.find((placement) => placement.boardId === 'high-score' && placement.period === 'all');
  console.log(`run accepted: score ${response.result.score}, high-score rank ${best?.rank ?? '-'}`);
});
client.on('run-rejected', ({ code, message }) => console.log(`run refused (${code}): ${message}`));
client.on('run-retry-scheduled', ({ delayMs, reason }) => console.log(`will retry in ${delayMs} ms (${reason})`));
client.on('run-expired', ({ runId }) => console.log(`run ${runId} was too old to send`));

// The platform's sign-in UI would produce this code; the dev provider takes dev:<name>.
const signIn = await client.signIn(async () => `dev:${values.player}`);
if (signIn.status === 'signed-in') console.log(`signed in as ${signIn.player.displayName}`);
else console.log(`playing offline (${signIn.status}); runs stay queued`);
client.start();

for (let round = 1; round <= Number(values.rounds); round += 1) {
  const durationMs = 2_000 + Math.floor(Math.random() * 8_000);
  const score = Math.floor((durationMs / 1000) * (50 + Math.random() * 950));
  const { runId } = await client.submitRun('score', { score, durationMs });
  console.log(`round ${round}: scored ${score} in ${durationMs} ms (run ${runId} queued)`);
}

// Before quitting, give the queue a last chance; whatever is left is sent next time.
await client.stop();
const report = await client.flush();
if (report.remaining > 0) console.log(`${report.remaining} run(s) stay queued for next time`);
if ((await client.player()) && report.stoppedBy !== 'backoff') {
  const page = await client.leaderboard('high-score', { limit: 5 });
  console.log('top 5:', page.entries.map((entry) => `${entry.rank}. ${entry.displayName} ${entry.score}`).join(', '));
  const me = await client.myRank('high-score');
  console.log(`your best: ${me.entry ? `${me.entry.score} (rank ${me.entry.rank} of ${me.total})` : 'none yet'}`);
}
