// Imported first by tests that check the escape sequences Ink writes: chalk
// decides its colour level when it loads, and a test runner is not a TTY.
process.env.FORCE_COLOR = '3';
delete process.env.NO_COLOR;
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
export {};
