// `orcr serve` with arguments (the bare verb goes straight to serve.ts from main.ts).

import type { Verb } from '../shell.js';

const serveVerb: Verb = async (verb, args, sh) => {
  sh.parse(verb, args);
  const { serve } = await import('../serve.js');
  return serve();
};
export default serveVerb;
