// The request methods: list, get, answer (an agent's requests, as people see and answer them).

import type { HandlerFamily } from './context.js';

type ApprovalMethod = 'approval.list' | 'approval.get' | 'approval.answer';

export const approvalHandlers: HandlerFamily<ApprovalMethod> = {
  'approval.list': (p, { approvals }) => ({ approvals: approvals.list(p) }),
  'approval.get': ({ id }, { approvals }) => approvals.get(id),
  'approval.answer': (p, { approvals }) => ({
    results: approvals.answer(
      p.targets,
      { verdict: p.verdict, message: p.message ?? null, answers: p.answers ?? null, always: p.always ?? false },
      { via: p.via, who: p.who ?? null, caller: p.caller ?? null },
    ),
  }),
};
