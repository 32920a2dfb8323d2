// The line written to an agent that waits for an answer: one JSON object and
// its newline, nothing else (an agent CLI exits on a line it cannot read).

import { describe, expect, it } from 'vitest';
import { isOneJsonLine } from '../../src/server/approval-delivery.js';

describe('an answer line', () => {
  it('is one JSON object ending in its one newline', () => {
    expect(isOneJsonLine('{"type":"control_response"}\n')).toBe(true);
    expect(isOneJsonLine('{"a":"x\\ny"}\n')).toBe(true);
    for (const bad of ['{"a":1}', '{"a":1}\n{"b":2}\n', '[1]\n', 'null\n', '"s"\n', 'not json\n', '{"a":1}\n\n', ''])
      expect(isOneJsonLine(bad), bad).toBe(false);
  });
});
