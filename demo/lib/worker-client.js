// Promise-based requests to demo/worker.js. One worker per build ('simd' | 'scalar' | 'auto');
// progress messages are forwarded to the caller; cancel() terminates and respawns the worker.
export class WorkerClient {
  constructor(build = 'auto') {
    this.build = build;
    this.spawn();
  }
  spawn() {
    this.worker = new Worker(new URL('../worker.js', import.meta.url), { type: 'module', name: `relpos-${this.build}` });
    this.pending = new Map();
    this.nextId = 1;
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      if (!p) return;
      if (data.type === 'progress') return p.onProgress?.(data.progress);
      this.pending.delete(data.id);
      if (data.type === 'error') p.reject(new Error(data.message));
      else p.resolve(data.result);
    };
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      const err = new Error(`worker failed: ${e.message ?? 'could not start (is web/index.js built?)'}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
  }
  request(cmd, payload = {}, onProgress) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, cmd, build: this.build, ...payload });
    });
  }
  cancel() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error('cancelled'));
    this.spawn();
  }
}
