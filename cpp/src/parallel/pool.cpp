// The thread pool behind parallel_for (threaded builds only: RELPOS_THREADS, natively std::thread,
// in WebAssembly Emscripten pthreads — the same code). num_threads() − 1 workers are started when the
// size is set (or at the first parallel_for) and then reused; the caller works as thread 0, and chunks
// are handed out by an atomic counter.
// Spin, then sleep: a region is published by bumping an atomic generation. A worker that finished its
// last region polls the generation for kSpin before it sleeps on a condition variable, and the caller
// polls the count of pending helpers for kSpin before it sleeps on another — a forward's regions come
// back to back (tens per call), so most of them start and end without a futex wake-up (in WebAssembly
// Atomics.wait/notify, ~20–30 µs a round trip: parallel_for.h). Spinning only ever replaces sleeping
// for that long after a region: an idle pool sleeps, as before.
// Single-thread builds compile only set_num_threads/num_threads (count fixed at 1).
#include <algorithm>
#include <string>

#include "parallel/parallel_for.h"
#include "profile/profile.h"
#include "relpos/error.h"
#include "relpos/threads.h"

#ifdef RELPOS_THREADS
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>
#endif

namespace relpos {

#ifdef RELPOS_THREADS
namespace parallel {
namespace {

thread_local int tls_thread = -1;  // ≥ 0 while this thread runs a chunk (nested calls run inline)

// How long a worker polls for the next region, and the caller for its helpers, before sleeping.
// bench/src/parallel_threshold.cpp measures regions with and without it (DEVELOPERS.md "Threads").
constexpr std::chrono::microseconds kSpin{200};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls done() until it holds or kSpin has passed (the clock is read every 64 polls); returns done().
template <class Done>
bool spin_until(Done&& done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) return done();
  }
}

int default_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(hw == 0 ? 1 : hw), 1, kMaxThreads);
}

class Pool {
 public:
  ~Pool() { resize(1); }

  // Never waits for a running region once the pool exists (a chunk may ask).
  int size() {
    if (const int n = size_.load(std::memory_order_acquire)) return n;
    std::lock_guard<std::mutex> lock(owner_);
    if (size_ == 0) resize(default_threads());
    return size_;
  }

  void set_size(int n) {
    std::lock_guard<std::mutex> lock(owner_);
    resize(n);
  }

  void run(Index begin, Index end, Index grain, ChunkFn fn, void* context, Work work) {
    const Index chunks = chunk_count(begin, end, grain);
    const bool small = work >= 0 && work < kMinParallelWork;  // not worth a wake-up (parallel_for.h)
    std::unique_lock<std::mutex> owner(owner_, std::defer_lock);
    if (tls_thread >= 0 || chunks == 1 || small || !owner.try_lock()) {
      inline_loop(begin, end, grain, fn, context, tls_thread < 0 ? 0 : tls_thread);
      return;
    }
    if (size_ == 0) resize(default_threads());
    const int helpers = static_cast<int>(std::min<Index>(size_.load() - 1, chunks - 1));
    if (helpers == 0) {
      inline_loop(begin, end, grain, fn, context, 0);
      return;
    }
    {
      RELPOS_PROFILE_SCOPE(Wake);  // bench-only: a region's set-up and wake-up …
      std::lock_guard<std::mutex> lock(m_);
      job_ = {begin, end, grain, chunks, fn, context};
      next_.store(0, std::memory_order_relaxed);
      helpers_ = helpers;
      pending_.store(helpers, std::memory_order_relaxed);
      error_ = nullptr;
      generation_.fetch_add(1, std::memory_order_release);  // spinning workers start here
      if (sleepers_ > 0) work_.notify_all();                // sleeping ones here
    }
    work_on_job(0);
    std::exception_ptr error;
    {
      RELPOS_PROFILE_SCOPE(Wake);  // … and its join wait
      const auto joined = [&] { return pending_.load(std::memory_order_acquire) == 0; };
      if (!spin_until(joined)) {
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, joined);
      }
      std::lock_guard<std::mutex> lock(m_);
      error = error_;
      error_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  struct Job {
    Index begin = 0, end = 0, grain = 1, chunks = 0;
    ChunkFn fn = nullptr;
    void* context = nullptr;
  };

  static void inline_loop(Index begin, Index end, Index grain, ChunkFn fn, void* context, int thread) {
    for (Index b = begin; b < end; b += grain) fn(context, b, std::min(end, b + grain), thread);
  }

  // Takes chunks until none is left; records the first exception and skips the rest after it.
  void work_on_job(int thread) {
    tls_thread = thread;
    for (;;) {
      const Index k = next_.fetch_add(1, std::memory_order_relaxed);
      if (k >= job_.chunks) break;
      const Index b = job_.begin + k * job_.grain;
      try {
        job_.fn(job_.context, b, std::min(job_.end, b + job_.grain), thread);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_);
        if (!error_) error_ = std::current_exception();
        next_.store(job_.chunks, std::memory_order_relaxed);
      }
    }
    tls_thread = -1;
  }

  void worker(int thread) {
    std::uint64_t seen = 0;
    for (;;) {
      const auto published = [&] {
        return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spin_until(published)) {
        std::unique_lock<std::mutex> lock(m_);
        ++sleepers_;
        work_.wait(lock, published);
        --sleepers_;
      }
      if (stop_.load(std::memory_order_acquire)) return;
      int helpers;
      {
        std::lock_guard<std::mutex> lock(m_);  // the region's fields were written under m_
        seen = generation_.load(std::memory_order_relaxed);
        helpers = helpers_;
      }
      if (thread > helpers) continue;  // this region needs fewer threads
      work_on_job(thread);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(m_);  // the caller checks pending_ under m_ before it sleeps
        done_.notify_one();
      }
    }
  }

  // Caller holds owner_. Joins the old workers, starts n − 1 new ones — fewer when the system refuses
  // a thread (the WebAssembly build can only use the Workers it created at start-up,
  // -sPTHREAD_POOL_SIZE_STRICT=2 makes it say so instead of waiting for a new Worker forever).
  void resize(int n) {
    if (n == size_) return;
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_.store(true, std::memory_order_release);
      work_.notify_all();
    }
    for (auto& t : workers_) t.join();
    workers_.clear();
    stop_.store(false, std::memory_order_relaxed);
    generation_.store(0, std::memory_order_relaxed);
    for (int t = 1; t < n; ++t) {
      try {
        workers_.emplace_back([this, t] { worker(t); });
      } catch (const std::system_error&) {
        break;
      }
    }
    size_.store(static_cast<int>(workers_.size()) + 1, std::memory_order_release);
  }

  std::mutex owner_;  // held by the thread running a region (and by resize)
  std::mutex m_;
  std::condition_variable work_, done_;
  std::vector<std::thread> workers_;
  std::atomic<int> size_{0};  // 0 = not started yet; written only under owner_
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> generation_{0};  // bumped (under m_) when a region is published
  Job job_;
  std::atomic<Index> next_{0};
  std::atomic<int> pending_{0};  // helpers still working on the current region
  int helpers_ = 0;
  int sleepers_ = 0;  // workers waiting on work_ (under m_)
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool instance;
  return instance;
}

}  // namespace

void run_chunks(Index begin, Index end, Index grain, ChunkFn fn, void* context, Work work) {
  pool().run(begin, end, grain, fn, context, work);
}

}  // namespace parallel

int set_num_threads(int n) {
  if (n < 1 || n > kMaxThreads)
    fail_range("set_num_threads: expected 1 ≤ n ≤ " + std::to_string(kMaxThreads) + ", got " + std::to_string(n));
  parallel::pool().set_size(n);
  return parallel::pool().size();
}
int num_threads() { return parallel::pool().size(); }
bool threads_available() { return true; }

#else

int set_num_threads(int n) {
  if (n < 1 || n > kMaxThreads)
    fail_range("set_num_threads: expected 1 ≤ n ≤ " + std::to_string(kMaxThreads) + ", got " + std::to_string(n));
  return 1;
}
int num_threads() { return 1; }
bool threads_available() { return false; }

#endif

}  // namespace relpos
