// `orcr mcp` (the Model Context Protocol on stdin/stdout) and `orcr demo`
// (a simulated fleet in a throw-away home): verbs that run a program of their own.

import type { Verb } from '../shell.js';

const programVerbs: Verb = async (verb, rest, sh) => {
  if (verb === 'mcp') {
    sh.parse(verb, rest);
    const { serveMcp } = await import('../../mcp/serve.js');
    return serveMcp(sh.version);
  }
  const { values } = sh.parse(verb, rest);
  const { runDemo } = await import('../demo.js');
  return runDemo(values.home as string | undefined, sh.json, (text) => sh.write(text));
};
export default programVerbs;
