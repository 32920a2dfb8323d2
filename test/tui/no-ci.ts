// Imported first by every TUI test file: Ink decides at import time whether
// it runs in CI (and then buffers every frame until unmount), so CI must be
// unset before ink is loaded.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
export {};
