/** Node-only additions to the game client: `@playstack/game-client/node`. */
export { createFileStorage } from './file-storage.js';
