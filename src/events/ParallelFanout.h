// Feeds one event stream to several sinks on worker threads, beside the
// thread that produces it (the emulator or a trace reader): both cores work.
//
// The producer copies every event into a batch (memory events packed:
// events/PackedMemoryEvent.h); full batches go into a bounded ring
// (backpressure: the producer waits while the ring is full, so memory stays
// bounded whatever the trace length). Each worker thread owns
// some of the sinks and hands them every batch in order, so each sink sees
// exactly the serial stream: reports are the same, byte for byte. Sinks are
// never shared between workers; a sink must not share mutable state with
// another worker's sinks.
//
// Nothing about a sink may be read (its races, its stats) before flush():
// flush waits until every worker has consumed everything given so far and
// rethrows, in this thread, the first exception a sink threw.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "events/EventSink.h"
#include "events/Trace.h"

namespace predatar {

// The ring holds up to 65536 events (at most 8 MiB packed): the detectors
// slow down and speed up at different points of a trace, and a worker that
// caught up with the producer while the producer waits for the slower one
// leaves a core idle. With 64 batches (and the runtime waiting at each
// launch's end for the launch before) each worker of needle's three
// detectors (paper size) sat 0.35-0.5 s idle; with 256, 0.05 s.
struct ParallelLimits {
  size_t eventsPerBatch = 256;  // events copied before a batch is handed over
  size_t batches = 256;         // batches in the ring: at most this many wait for a worker
  size_t bytesPerBatch = 32 << 10;  // packed bytes a batch holds at most (at least one event's)
};

class ParallelFanout final : public EventSink {
 public:
  // `workers` threads (at least 1, at most one per sink); sink i goes to
  // worker i % workers.
  ParallelFanout(std::vector<EventSink*> sinks, unsigned workers, ParallelLimits limits = {});
  ~ParallelFanout() override;  // drains what was given, then joins (errors dropped: call flush first)
  ParallelFanout(const ParallelFanout&) = delete;
  ParallelFanout& operator=(const ParallelFanout&) = delete;

  void kernelBegin(const KernelInfo& kernel) override;
  void memory(const MemoryEvent& e) override;
  void barrier(const BarrierEvent& e) override;
  void syncWarp(const SyncWarpEvent& e) override { push(e); }
  void fence(const FenceEvent& e) override { push(e); }
  void acquire(const LockEvent& e) override;
  void release(const LockEvent& e) override;
  void exit(const ExitEvent& e) override { push(e); }
  void kernelEnd() override;

  // Waits until every sink has seen every event given so far; rethrows the
  // first exception (in sink order) that a sink threw since the last flush.
  // A sink that threw sees no further events.
  void flush() { waitFor(mark()); }
  // Hands over every event given so far and names that point of the stream,
  // for waitFor.
  uint64_t mark();
  // Waits until every sink has seen the events before `mark` (later ones may
  // be in flight); rethrows as flush does. Nothing about a sink may be read
  // after this but what it handed over itself from its thread (LaunchResults).
  void waitFor(uint64_t mark);
  // Whether every sink has seen the events before `mark` (waitFor would not
  // wait); a sink's exception waits for waitFor.
  bool reached(uint64_t mark) const;

  unsigned workers() const { return unsigned(workers_.size()); }
  // The most batches that were waiting for a worker at once (tests: bounded).
  size_t peakQueuedBatches() const;

 private:
  struct KernelBeginItem {
    std::shared_ptr<const KernelInfo> kernel;
  };
  struct KernelEndItem {};
  struct BarrierItem {
    size_t index;  // in its batch's `barriers`
  };
  // Every event but memory events, which a batch holds packed.
  using Item = std::variant<BarrierItem, SyncWarpEvent, FenceEvent, ExitEvent, AcquireEvent, ReleaseEvent,
                            KernelBeginItem, KernelEndItem>;
  // Events in order: a tag byte each, a packed memory event after its tag;
  // the other events in `items`, in the same order. Barrier events apart,
  // in `barriers`, whose first `barriersUsed` are this batch's: a slot's
  // reuse copies a barrier into one whose thread lists keep their heap
  // blocks (a copy in `items` allocated both lists at every barrier and
  // freed them at the slot's next use: pathfinder's 256-thread blocks).
  // What they keep is at most what the ring held at its fullest, as before.
  struct Batch {
    std::unique_ptr<std::byte[]> bytes;
    size_t used = 0;  // bytes written
    size_t events = 0;
    std::vector<Item> items;
    std::vector<BarrierEvent> barriers;
    size_t barriersUsed = 0;
  };
  enum Tag : uint8_t { kPackedMemory, kItem };
  struct Worker {
    std::vector<EventSink*> sinks;
    uint64_t consumed = 0;  // batches done (guarded by mutex_)
    std::exception_ptr error;  // first exception of its sinks (guarded by mutex_)
    size_t errorSink = 0;      // index of that sink in the constructor's list
    std::vector<size_t> sinkIndex;
    std::thread thread;
  };

  template <class T>
  void push(const T& item) {
    if (!open_) openBatch();
    current_->bytes[current_->used++] = std::byte{kItem};
    current_->items.emplace_back(item);
    closeBatchIfFull();
  }
  void openBatch();
  void closeBatchIfFull() {
    if (++current_->events >= limits_.eventsPerBatch || current_->used > lastEventStart_) publish();
  }
  void publish(bool urgent = false);
  uint64_t leastConsumed() const;  // mutex_ held
  size_t wakeBatches() const { return std::max<size_t>(1, limits_.batches / 8); }
  void run(Worker& worker);
  static void deliver(const Batch& batch, const Item& item, EventSink& sink);
  static void deliver(const Batch& batch, EventSink& sink);

  ParallelLimits limits_;
  size_t lastEventStart_ = 0;  // a batch that used more bytes is full (the next event might not fit)
  std::vector<Batch> ring_;
  std::vector<std::unique_ptr<Worker>> workers_;
  mutable std::mutex mutex_;
  std::condition_variable batchReady_;  // workers wait for published_ to move
  std::condition_variable batchDone_;   // the producer waits for a worker's consumed to move
  uint64_t published_ = 0;              // batches handed over (guarded by mutex_)
  // Wake-ups cost a system call and a context switch each, so both sides
  // sleep until there is a run of work: a worker until wakeBatches() batches
  // wait for it (or the producer wants everything now: a kernel's end, a
  // flush), the producer until as many slots are free. All guarded by mutex_.
  uint64_t urgentUpTo_ = 0;             // workers deliver batches before this without waiting for a run
  unsigned waitingWorkers_ = 0;
  bool producerWaiting_ = false;
  uint64_t producerWaitsFor_ = 0;       // the producer waits until every worker consumed this many batches
  bool stopping_ = false;               // guarded by mutex_
  size_t peakQueued_ = 0;               // guarded by mutex_
  bool open_ = false;                   // producer only: current_ is being filled
  Batch* current_ = nullptr;
};

// Whether the calling thread is one of a ParallelFanout's workers: the
// runtime's out-of-memory handler tells the analysis's allocations from the
// program's host code by it.
bool onAnalysisWorker();

// How many threads analysis uses: --threads / PREDATAR_THREADS.
//   1: serial (the detectors run in the producer's thread);
//   0: automatic: PREDATAR_THREADS when set, else one worker thread per
//      detector when the machine has more than one core, else serial;
//   N: the producer plus at most N-1 worker threads.
// Parses "auto" or a number; nullopt when neither.
std::optional<unsigned> parseThreadCount(std::string_view text);
// PREDATAR_THREADS when set and valid, else 0 (automatic).
unsigned threadCountFromEnvironment();
// Worker threads for `sinks` sinks under `threads` (0: serial).
unsigned workerThreadsFor(unsigned threads, size_t sinks);

// The sinks fed either in this thread or by a ParallelFanout, as `threads`
// says: the one place front ends choose. Read the sinks only after flush().
class DetectorFeed final : public EventSink {
 public:
  DetectorFeed(std::vector<EventSink*> sinks, unsigned threads, ParallelLimits limits = {});
  void flush() {
    if (parallel_) parallel_->flush();
  }
  // ParallelFanout::mark and waitFor (serial: every event was seen already).
  uint64_t mark() { return parallel_ ? parallel_->mark() : 0; }
  void waitFor(uint64_t mark) {
    if (parallel_) parallel_->waitFor(mark);
  }
  bool parallel() const { return parallel_ != nullptr; }
  bool reached(uint64_t mark) const { return !parallel_ || parallel_->reached(mark); }

  void kernelBegin(const KernelInfo& k) override { active_->kernelBegin(k); }
  void memory(const MemoryEvent& e) override { active_->memory(e); }
  void barrier(const BarrierEvent& e) override { active_->barrier(e); }
  void syncWarp(const SyncWarpEvent& e) override { active_->syncWarp(e); }
  void fence(const FenceEvent& e) override { active_->fence(e); }
  void acquire(const LockEvent& e) override { active_->acquire(e); }
  void release(const LockEvent& e) override { active_->release(e); }
  void exit(const ExitEvent& e) override { active_->exit(e); }
  void kernelEnd() override { active_->kernelEnd(); }

 private:
  EventFanout serial_;
  std::unique_ptr<ParallelFanout> parallel_;
  EventSink* active_ = &serial_;
};

}  // namespace predatar
