// The approvals queue in a real terminal (a pseudo-terminal read by a terminal
// emulator, test/support/terminal.ts), 80x24 and NO_COLOR: the header counts
// the request, `!` opens the queue on it — a long command with control
// characters shown on one line, escaped and cut; enter reads it whole, written
// out — and `y` unblocks the run,
// which goes back to work and completes.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { ensureHome } from '../../src/config/home.js';
import { askingAgent } from '../support/asking-agent.js';
import { until } from '../support/harness.js';
import { Home } from './home.js';
import { Term } from './term.js';

let home: Home | null = null;
let term: Term | null = null;
let rpc: Client | null = null;

afterEach(() => {
  term?.kill();
  term = null;
  rpc?.close();
  rpc = null;
  home?.cleanup();
  home = null;
});

describe('the approvals queue in a real terminal', () => {
  it('! opens it on the request, y allows it: the run leaves blocked and completes', async () => {
    home = new Home();
    const h = home;
    const command = `printf '\x1b[31mred\x07' && npm test -- --reporter verbose ${'--grep slow '.repeat(12)}`;
    const a = askingAgent(h, 'asker', { asks: [{ tool: 'Bash', input: { command } }] });
    h.run(['-n', 'asker', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    // Read through the socket, not a CLI process per look.
    const c = (rpc = await Client.connect(ensureHome(h.dir)));
    const status = async (): Promise<string> => (await c.call('run.get', { ref: 'asker' })).run.status;
    await until(async () => (await status()) === 'blocked', 'the run to be blocked on its request', 30_000, 100);

    term = new Term(h, 80, 24);
    term.start('first');
    const t = term;
    await t.waitFor((x) => x.includes('⚑ 1 to approve'), 'the header to count the request');
    t.keys('!');
    const s = await t.waitFor((x) => x.includes('Approvals · 1 waiting'), 'the queue');
    const rows = s.split('\n');
    // No line wraps: every row fits the 80 columns, the request's row cut with an ellipsis.
    expect(rows.every((l) => l.length <= 80)).toBe(true);
    const row = rows.find((l) => l.includes('asker') && l.includes('Bash:'));
    expect(row).toMatch(/^› #\d+\s+asker\s+\S+\s+deny in (?:1h|\d+m)\s+Bash: printf .*…$/);
    // The control characters are not the terminal's: nothing turned red or rang, the text stays on its row.
    expect(s).not.toContain('\x1b');
    expect(s).not.toContain('\x07');
    expect(s).toMatch(/keys +y allow · n deny with words · enter input · space tag/);

    // enter: the whole command in the pager, its control characters written out; esc back to the queue.
    t.keys('Enter');
    const input = await t.waitFor((x) => x.includes('Request #') && x.includes('command'), 'the whole input');
    expect(input).toContain("printf '\\x1b[31mred\\x07'");
    expect(input).toContain('--grep slow --grep slow');
    t.keys('Escape');
    await t.waitFor((x) => x.includes('Approvals · 1 waiting'), 'back to the queue');

    t.keys('y');
    await t.waitFor((x) => x.includes('Approvals · none waiting'), 'the request answered');
    await until(async () => (await status()) === 'ended', 'the run to end', 30_000, 100);
    expect((await c.call('run.get', { ref: 'asker' })).run).toMatchObject({ status: 'ended', exit_reason: 'completed' });
    expect(a.answers()[0]).toMatchObject({ response: { response: { behavior: 'allow' } } });
    t.keys('!');
    const list = await t.waitFor((x) => /■ ended\s+completed\s+asker|completed.*asker/.test(x), 'the run completed in the list');
    expect(list).not.toContain('to approve');
  });
});
