/**
 * Where the worker threads' scripts are. Computed in this file, next to main.ts, on purpose: in
 * the compiled executable every bundled module sees the entry's import.meta.url, so a URL made
 * relative to any other folder would point nowhere. Each script is also a build entry point
 * (scripts/build.ts).
 */
export const CHECKPOINT_WORKER_URL = new URL('./db/checkpoint.worker.ts', import.meta.url).href
export const STORAGE_MEASURE_WORKER_URL = new URL('./modules/storage/storage.measure.worker.ts', import.meta.url).href
