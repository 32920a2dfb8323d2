// Owner-only socket and home, no shell anywhere, and events that carry
// metadata — never prompts, environment values or agent output.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { script, useHomes } from '../support/harness.js';

const home = useHomes();

describe('security', () => {
  it('creates the home 0700 and the socket 0600', () => {
    const h = home();
    const fresh = path.join(h.dir, 'nested-home');
    const r = h.cli(['ps'], { env: { ...h.env, ORCR_HOME: fresh } });
    expect(r.code).toBe(0);
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(fresh, 'orcr.sock')).mode & 0o777).toBe(0o600);
    h.cli(['server', 'stop'], { env: { ...h.env, ORCR_HOME: fresh } });
  });

  it('never passes a command through a shell', () => {
    const h = home();
    const marker = path.join(h.dir, 'pwned');
    h.json(['run', '-n', 'literal', '--', 'echo', `$(touch ${marker})`, ';', 'touch', marker, '`id`']);
    expect(h.cli(['wait', 'literal']).stdout.trim()).toBe('literal completed');
    expect(fs.existsSync(marker)).toBe(false);
    expect(h.cli(['logs', 'literal']).stdout.trim()).toBe(`$(touch ${marker}) ; touch ${marker} \`id\``);
  });

  it('keeps -e values, prompts and agent output out of the journal events', () => {
    const h = home({ providers: { echoer: { command: ['sh', '-c', 'echo "prompt was: $0; secret is $SECRET_TOKEN"', '{prompt}'] } } });
    const agent = script(
      h,
      'talk.sh',
      `#!/bin/sh\necho '{"type":"ready"}'\necho "{\\"type\\":\\"text\\",\\"text\\":\\"the secret is $SECRET_TOKEN\\"}"\necho '{"type":"turn_end"}'\n`,
    );
    h.json(['run', '-n', 'a', '-e', 'SECRET_TOKEN=s3cr3t-value', '--protocol', 'jsonl', '--', agent]);
    h.json(['run', '-n', 'b', '-a', 'echoer', '-p', 'classified-prompt-text', '-e', 'SECRET_TOKEN=s3cr3t-value']);
    expect(h.cli(['wait', 'a', 'b']).code).toBe(0);
    // The agents did see and print them...
    expect(h.cli(['logs', 'b']).stdout).toContain('classified-prompt-text');
    expect(h.cli(['logs', 'a']).stdout).toContain('s3cr3t-value');
    // ...but no event carries them.
    const events = h.cli(['events', '--json']).stdout;
    expect(events).not.toContain('s3cr3t-value');
    expect(events).not.toContain('classified-prompt-text');
    expect(events).not.toContain('the secret is');
  });
});
