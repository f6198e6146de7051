import './require-node';
import { keepYoungGenerationSmallWhileStarting } from './young-generation';

// The server's entry (the `cyrnel-server` bin, `cli.ts`, imports it). Before anything else is
// loaded: the start's modules would otherwise grow V8's young generation, which an idle server
// keeps in its RSS. `server-main.ts` lets it grow again once the server has started.
const releaseYoungGeneration = keepYoungGenerationSmallWhileStarting();
const { main } = await import('./server-main');
await main(releaseYoungGeneration);
