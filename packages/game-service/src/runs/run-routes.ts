import { errorResponses } from '@playstack/server-kit';
import type { GameFeature } from '../games/game-scope.js';
import { RunAcceptedResponse, RunBody, RunParams } from './run-schemas.js';

/** `POST /runs/:adapterId` of a game: signed-in players only, limited per player. */
export const runRoutes: GameFeature = async (app) => {
  app.post(
    '/runs/:adapterId',
    {
      preHandler: [app.requirePlayer, app.runs.rateLimit],
      schema: {
        tags: ['runs'],
        summary: 'Submit the evidence of a run; the server derives the result and records it on the boards',
        description:
          'Idempotent per game, player and runId: the same content (member order ignored) returns the original response; different content is 409 run-id-conflict. Refused evidence is 422 evidence-rejected and recorded as a rejected run.',
        security: [{ playerToken: [] }],
        params: RunParams,
        body: RunBody,
        response: { 200: RunAcceptedResponse, ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429) },
      },
    },
    (request) =>
      app.runs.submissions.submit({
        game: request.game,
        player: request.player,
        adapterId: request.params.adapterId,
        runId: request.body.runId,
        payload: request.body.payload,
      }),
  );
};
