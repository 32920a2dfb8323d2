// The agent protocols are registered in one place (src/agents/registry.ts,
// each one's record in its own module under src/agents): outside src/agents,
// no code names one. Read from every file under src/ and components/, comments
// aside: a string that is a protocol's name (`=== 'gemini'`, a list of them,
// a union type), an object key that is one (`{ claude: …, codex: … }`), or a
// string that names two or more in a sentence ("claude or jsonl"). The few
// places let off say why, and the check is shown to fail on a file that breaks it.

import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AGENT_PROTOCOLS, PROTOCOLS, protocolsWith } from '../../src/agents/registry.js';
import { PLAIN_PROTOCOL } from '../../src/core/types.js';
import { VERB_USAGE } from '../../src/cli/usage.js';
import { houseFiles, parseSource, readSource } from '../support/house.js';

/** Files let off, each with its reason. */
const LET_OFF: Readonly<Record<string, string>> = {
  'src/core/types.ts': "PLAIN_PROTOCOL: the one name core decides by (output alone is a sign of life); plain's record takes its name from it",
  'src/client/demo-fleet.ts':
    "the demo's own config: caps and prices for the providers it shows, data of the demo (its runs come from the registry's mock formats)",
  'src/cli/usage.ts': 'help text, written out so that no command but those that read output loads the adapters; checked against the registry below',
};

/** Where a source names protocols: `line: what`, for each string, key or sentence that does. */
export function namings(file: string, text: string, names: readonly string[]): string[] {
  const sf = parseSource(file, text);
  const known = new Set(names);
  // In a sentence, "plain" is mostly a word ("plain text"): only the others make a list there.
  const words = new RegExp(`\\b(${names.filter((n) => n !== PLAIN_PROTOCOL).join('|')})\\b`, 'g');
  const out: string[] = [];
  const at = (n: ts.Node, what: string): void => {
    out.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${what}`);
  };
  const prose = (n: ts.Node, s: string): void => {
    const named = new Set(s.match(words) ?? []);
    if (named.size >= 2) at(n, `names ${[...named].join(', ')} in ${JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s)}`);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) {
      const key = ts.isPropertyAssignment(n.parent) && n.parent.name === n;
      if (known.has(n.text)) at(n, key ? `the key ${JSON.stringify(n.text)}` : JSON.stringify(n.text));
      else prose(n, n.text);
    } else if (ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) prose(n, n.text);
    else if (
      ts.isIdentifier(n) &&
      known.has(n.text) &&
      (ts.isPropertyAssignment(n.parent) || ts.isShorthandPropertyAssignment(n.parent) || ts.isPropertySignature(n.parent)) &&
      n.parent.name === n
    ) {
      at(n, `the key ${n.text}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('the protocol list appears in one file', () => {
  it('has read the registry', () => {
    expect(PROTOCOLS.length).toBeGreaterThanOrEqual(5);
    expect(PROTOCOLS).toContain(PLAIN_PROTOCOL);
  });

  it('no code outside src/agents names an agent protocol (comments aside)', () => {
    const found = houseFiles()
      .filter((f) => !f.startsWith('src/agents/') && !Object.hasOwn(LET_OFF, f))
      .flatMap((f) => namings(f, readSource(f), PROTOCOLS));
    expect(found).toEqual([]);
  });

  it('the check can fail: a comparison, a list, a union, a keyed table and a sentence are each caught; a comment and a word are not', () => {
    const bad = [
      '// claude, codex and gemini, in a comment: not code',
      "if (run.protocol === 'gemini') resume();",
      "const formats = ['claude', 'codex'] as const;",
      "type P = 'jsonl' | 'other';",
      "const RESUME = { claude: 1, 'codex': 2 };",
      'const help = `metered (--protocol claude or jsonl) or ${price}`;',
      "const note = 'its output read as plain text';",
    ].join('\n');
    expect(namings('src/server/x.ts', bad, PROTOCOLS)).toEqual([
      'src/server/x.ts:2: "gemini"',
      'src/server/x.ts:3: "claude"',
      'src/server/x.ts:3: "codex"',
      'src/server/x.ts:4: "jsonl"',
      'src/server/x.ts:5: the key claude',
      'src/server/x.ts:5: the key "codex"',
      'src/server/x.ts:6: names claude, jsonl in "metered (--protocol claude or jsonl) or "',
    ]);
  });

  it("the run verb's help names the protocols that report their own cost and those orcr resumes, as their records say", () => {
    const listed = (names: readonly string[], last: string): string =>
      names.length > 1 ? `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)}` : names.join('');
    expect(VERB_USAGE.run).toContain(
      `(--protocol ${listed(
        protocolsWith((p) => p.reportsCost),
        'or',
      )})`,
    );
    expect(VERB_USAGE.run).toContain(
      `(default for ${listed(
        protocolsWith((p) => p.resume !== undefined),
        'and',
      )},`,
    );
    expect(AGENT_PROTOCOLS.filter((p) => p.reportsCost).length).toBeGreaterThan(0);
  });
});
