import { LocalLimiter } from '../../src/limiter/local.js';
import { limiterConformance } from './conformance.js';

limiterConformance('in-process (LocalLimiter)', async (policy, holds) => ({
  limiter: new LocalLimiter(policy, holds),
  close: async () => undefined,
}));
