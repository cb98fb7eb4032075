#include "events/ParallelFanout.h"

#include "events/PackedMemoryEvent.h"

#include <pthread.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace predatar {
namespace {
thread_local bool analysisWorker = false;
}  // namespace

bool onAnalysisWorker() { return analysisWorker; }

namespace {
// Signals sent to the process (SIGINT, SIGTERM, the program's own timers)
// go to the program's threads: their handlers (the program's, or the
// runtime's that settle the detectors before writing the report) must not
// run on a worker, which cannot wait for itself. Faults stay with the thread.
void blockProcessSignals() {
  sigset_t set;
  sigfillset(&set);
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) sigdelset(&set, fault);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}
}  // namespace

ParallelFanout::ParallelFanout(std::vector<EventSink*> sinks, unsigned workers, ParallelLimits limits)
    : limits_(limits) {
  limits_.eventsPerBatch = std::max<size_t>(limits_.eventsPerBatch, 1);
  limits_.batches = std::max<size_t>(limits_.batches, 1);
  size_t largestEvent = 1 + maxPackedMemoryEventBytes();
  limits_.bytesPerBatch = std::clamp(limits_.bytesPerBatch, largestEvent, limits_.eventsPerBatch * largestEvent);
  lastEventStart_ = limits_.bytesPerBatch - largestEvent;
  ring_.resize(limits_.batches);
  for (auto& batch : ring_) {
    batch.bytes = std::make_unique_for_overwrite<std::byte[]>(limits_.bytesPerBatch);
    batch.items.reserve(limits_.eventsPerBatch);
  }
  workers = std::clamp<unsigned>(workers, 1, std::max<unsigned>(1, unsigned(sinks.size())));
  for (unsigned w = 0; w < workers; ++w) workers_.push_back(std::make_unique<Worker>());
  for (size_t i = 0; i < sinks.size(); ++i) {
    workers_[i % workers]->sinks.push_back(sinks[i]);
    workers_[i % workers]->sinkIndex.push_back(i);
  }
  for (auto& w : workers_) w->thread = std::thread([this, worker = w.get()] { run(*worker); });
}

ParallelFanout::~ParallelFanout() {
  if (open_) publish();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    urgentUpTo_ = published_;
  }
  batchReady_.notify_all();
  for (auto& w : workers_) w->thread.join();
}

void ParallelFanout::kernelBegin(const KernelInfo& kernel) {
  push(KernelBeginItem{std::make_shared<const KernelInfo>(kernel)});
}

void ParallelFanout::memory(const MemoryEvent& e) {
  if (!open_) openBatch();
  Batch& batch = *current_;
  batch.bytes[batch.used++] = std::byte{kPackedMemory};
  batch.used = size_t(pack(e, &batch.bytes[batch.used]) - batch.bytes.get());
  closeBatchIfFull();
}

void ParallelFanout::barrier(const BarrierEvent& e) {
  if (!open_) openBatch();
  Batch& batch = *current_;
  if (batch.barriersUsed == batch.barriers.size()) batch.barriers.emplace_back();
  batch.barriers[batch.barriersUsed] = e;
  push(BarrierItem{batch.barriersUsed++});
}

void ParallelFanout::acquire(const LockEvent& e) {
  AcquireEvent a;
  static_cast<LockEvent&>(a) = e;
  push(a);
}

void ParallelFanout::release(const LockEvent& e) {
  ReleaseEvent r;
  static_cast<LockEvent&>(r) = e;
  push(r);
}

// The end of a kernel is where front ends read results: hand it over now
// rather than when the batch fills.
void ParallelFanout::kernelEnd() {
  push(KernelEndItem{});
  publish(/*urgent=*/true);
}

uint64_t ParallelFanout::leastConsumed() const {
  uint64_t least = std::numeric_limits<uint64_t>::max();
  for (const auto& w : workers_) least = std::min(least, w->consumed);
  return least;
}

// The slot of batch `published_` last held batch `published_ - batches`: it
// is free once every worker has consumed that one. A full ring: wait until
// a run of slots is free (not half the ring: a worker that caught up would
// wait as long).
void ParallelFanout::openBatch() {
  std::unique_lock lock(mutex_);
  if (published_ - leastConsumed() >= limits_.batches) {
    producerWaiting_ = true;
    producerWaitsFor_ = published_ - limits_.batches + wakeBatches();
    batchDone_.wait(lock, [&] { return leastConsumed() >= producerWaitsFor_; });
    producerWaiting_ = false;
  }
  current_ = &ring_[published_ % limits_.batches];
  lock.unlock();
  current_->used = 0;
  current_->events = 0;
  current_->items.clear();
  current_->barriersUsed = 0;
  open_ = true;
}

void ParallelFanout::publish(bool urgent) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (open_) ++published_;
    if (urgent) urgentUpTo_ = published_;
    uint64_t queued = published_ - leastConsumed();
    peakQueued_ = std::max<size_t>(peakQueued_, queued);
    wake = waitingWorkers_ > 0 && (urgent || queued >= wakeBatches());
  }
  open_ = false;
  if (wake) batchReady_.notify_all();
}

uint64_t ParallelFanout::mark() {
  publish(/*urgent=*/true);
  std::lock_guard lock(mutex_);
  return published_;
}

void ParallelFanout::waitFor(uint64_t mark) {
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    producerWaiting_ = true;
    producerWaitsFor_ = mark;
    batchDone_.wait(lock, [&] { return leastConsumed() >= mark; });
    producerWaiting_ = false;
    size_t first = SIZE_MAX;
    for (auto& w : workers_)
      if (w->error && w->errorSink < first) {
        first = w->errorSink;
        error = w->error;
      }
    for (auto& w : workers_)
      if (w->errorSink == first) w->error = nullptr;  // reported once; the worker stays stopped
  }
  if (error) std::rethrow_exception(error);
}

bool ParallelFanout::reached(uint64_t mark) const {
  std::lock_guard lock(mutex_);
  return leastConsumed() >= mark;
}

size_t ParallelFanout::peakQueuedBatches() const {
  std::lock_guard lock(mutex_);
  return peakQueued_;
}

void ParallelFanout::deliver(const Batch& batch, const Item& item, EventSink& sink) {
  struct Visitor : EventDelivery {
    const Batch& batch;
    using EventDelivery::operator();
    void operator()(const BarrierItem& e) const { sink.barrier(batch.barriers[e.index]); }
    void operator()(const KernelBeginItem& e) const { sink.kernelBegin(*e.kernel); }
    void operator()(const KernelEndItem&) const { sink.kernelEnd(); }
  };
  std::visit(Visitor{{sink}, batch}, item);
}

void ParallelFanout::deliver(const Batch& batch, EventSink& sink) {
  MemoryEvent memory;
  size_t nextItem = 0;
  for (const std::byte *at = batch.bytes.get(), *end = at + batch.used; at < end;) {
    if (*at++ == std::byte{kPackedMemory}) {
      at = unpack(at, memory);
      sink.memory(memory);
    } else {
      deliver(batch, batch.items[nextItem++], sink);
    }
  }
}

// A worker reads batch `next` without the mutex: the producer does not touch
// that slot again until every worker's `consumed` has passed it.
void ParallelFanout::run(Worker& worker) {
  analysisWorker = true;
  blockProcessSignals();
  bool failed = false;
  for (uint64_t next = 0;; ++next) {
    {
      std::unique_lock lock(mutex_);
      auto ready = [&] { return published_ >= next + wakeBatches() || urgentUpTo_ > next || stopping_; };
      if (published_ <= next) {  // caught up: sleep until a run of work waits
        ++waitingWorkers_;
        batchReady_.wait(lock, ready);
        --waitingWorkers_;
      }
      if (published_ <= next) return;
    }
    const Batch& batch = ring_[next % limits_.batches];
    for (size_t s = 0; s < worker.sinks.size() && !failed; ++s) {
      try {
        deliver(batch, *worker.sinks[s]);
      } catch (...) {
        // Keep consuming (so the producer never waits on a dead worker) but
        // feed nothing more: the sink's state is no longer the stream's.
        failed = true;
        std::lock_guard lock(mutex_);
        worker.error = std::current_exception();
        worker.errorSink = worker.sinkIndex[s];
      }
    }
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      worker.consumed = next + 1;
      wake = producerWaiting_ && leastConsumed() >= producerWaitsFor_;
    }
    if (wake) batchDone_.notify_all();
  }
}

std::optional<unsigned> parseThreadCount(std::string_view text) {
  if (text == "auto") return 0u;
  unsigned n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || n > 1024) return std::nullopt;
  return n;
}

unsigned threadCountFromEnvironment() {
  const char* v = std::getenv("PREDATAR_THREADS");
  if (!v || !*v) return 0;
  std::optional<unsigned> n = parseThreadCount(v);
  if (!n) {
    static std::once_flag warned;  // loud, but once per process
    std::call_once(warned, [&] {
      std::fprintf(stderr, "predatar: warning: PREDATAR_THREADS='%s' is not auto or a number; using auto\n", v);
    });
  }
  return n.value_or(0);
}

unsigned workerThreadsFor(unsigned threads, size_t sinks) {
  if (threads == 0) threads = threadCountFromEnvironment();
  if (sinks == 0 || threads == 1) return 0;
  if (threads == 0) return std::thread::hardware_concurrency() > 1 ? unsigned(sinks) : 0;
  return unsigned(std::min<size_t>(sinks, threads - 1));
}

DetectorFeed::DetectorFeed(std::vector<EventSink*> sinks, unsigned threads, ParallelLimits limits) {
  if (unsigned workers = workerThreadsFor(threads, sinks.size())) {
    parallel_ = std::make_unique<ParallelFanout>(std::move(sinks), workers, limits);
    active_ = parallel_.get();
    return;
  }
  for (EventSink* s : sinks) serial_.add(s);
}

}  // namespace predatar
