#include "analysis/MessagePassing.h"

#include <algorithm>

#include "analysis/LaneLoop.h"

namespace predatar {
namespace {

// Where writer (block, thread) is, or goes, in a chain's writers, which are
// sorted by (block, thread); and where `block`'s join is in its byBlock,
// sorted by block. (A grid barrier's counter has a writer per block, looked
// up at every take and add: a walk of the grid's writers each time.)
template <class Writers>
auto writerPosition(Writers& writers, uint32_t block, uint32_t thread) {
  return std::lower_bound(writers.begin(), writers.end(), std::pair{block, thread},
                          [](const auto& w, std::pair<uint32_t, uint32_t> key) {
                            return std::pair{w.block, w.thread} < key;
                          });
}
template <class ByBlock>
auto blockPosition(ByBlock& byBlock, uint32_t block) {
  return std::lower_bound(byBlock.begin(), byBlock.end(), block,
                          [](const auto& e, uint32_t b) { return e.first < b; });
}

}  // namespace

void MessagePassing::reset(uint32_t threadsPerBlock, const ClockGeometry* geometry) {
  geometry_ = geometry;
  threadsPerBlock_ = threadsPerBlock;
  threads_.clear();
  chains_.clear();
  unfenced_.clear();
  notes_.clear();
  observed_.clear();
}

MessagePassing::PerThread& MessagePassing::at(const ThreadClocks& t) {
  auto [it, inserted] = threads_.try_emplace(index(t));
  if (inserted) {
    for (VectorClock* c : {&it->second.fenceAny.hb, &it->second.fenceDevice.hb, &it->second.pendingSame,
                           &it->second.pendingOther})
      c->setGeometry(geometry_);
  }
  return it->second;
}

const MessagePassing::PerThread* MessagePassing::find(const ThreadClocks& t) const {
  auto it = threads_.find(index(t));
  return it == threads_.end() ? nullptr : &it->second;
}

void MessagePassing::fence(ThreadClocks& t, Scope scope, bool withWcp) {
  PerThread& p = at(t);
  bool device = scope != Scope::Block;
  // F' of the acquire pattern: a block fence covers writers of its block, a
  // device fence every writer.
  auto acquire = [&](VectorClock& pending) {
    if (pending.empty()) return;
    // P_t is often H_t itself, shared (a barrier's join puts H into P, and
    // P <= H): then one join serves both (a grid barrier's spinners joined
    // each arrival's release twice, a walk of the grid's clock each time).
    bool wcpIsHb = withWcp && t.wcp.sharesListWith(t.hb);
    t.hb.join(pending);
    if (wcpIsHb) t.wcp = t.hb;
    else if (withWcp) t.wcp.join(pending);
    pending.clear();
  };
  acquire(p.pendingSame);
  if (device) acquire(p.pendingOther);
  // What a fence before those unfenced flag writes would have ordered.
  if (auto n = notes_.find(index(t)); n != notes_.end()) {
    auto note = [&](std::optional<UnfencedWrite>& unfenced) {
      if (!unfenced) return;
      n->second.acquired = unfenced;
      unfenced.reset();
    };
    note(n->second.same);
    if (device) note(n->second.other);
  }
  // F of the release pattern: everything of t up to here (what it just
  // acquired included, for transitivity).
  p.fenceAny = Release{t.hb, t.now};
  p.fencedAny = true;
  if (device) {
    p.fenceDevice = p.fenceAny;
    p.fencedDevice = true;
    p.fenceDeviceBelowP = !withWcp || t.hb.empty() || t.wcp.sharesListWith(t.hb);
  }
  t.tick();
}

void MessagePassing::strongRead(const ThreadClocks& t, uint64_t key, Scope scope, uint64_t seq, bool lockLane,
                                const Origin& origin) {
  Observed& o = observed_[index(t)][key];
  (scope == Scope::Block ? o.blockScoped : o.deviceScoped) = seq + 1;
  if (lockLane) return;
  bool device = scope != Scope::Block;
  if (auto w = unfenced_.find(key); w != unfenced_.end()) noteUnfenced(t, w->second, device);
  auto chain = chains_.find(key);
  if (chain == chains_.end()) return;
  const Chain& c = chain->second;
  // Taken again from an unchanged chain (a spin loop on a flag): what the
  // chain brings is already in t's pending clocks, or in H and P since the
  // fence that emptied them (a fence joins pending into both), so joining
  // it again changes nothing that is read later: an access it would order is
  // ordered already, so no pending clock decides a note for it. Only the
  // read a note names moves on, as it would have.
  if (o.takenStamp == c.stamp && (o.takenDevice || !device)) {
    if (o.broughtSame || (device && o.broughtOther)) {
      PerThread& p = at(t);
      if (o.broughtSame) p.pendingSameRead = origin;
      if (device && o.broughtOther) p.pendingOtherRead = origin;
    }
    return;
  }
  // A writer whose releases have not changed since t's last take (of as
  // wide a scope) was joined then: taking it again changes nothing, as
  // above. A grid barrier's spinners (every block's thread 0 adds to the
  // word, then reads it until all have) took every writer at each arrival
  // (blocks^3 joins a barrier): only the new one is taken now.
  uint64_t takenBefore = o.takenStamp != 0 && (o.takenDevice || !device) ? o.takenStamp : 0;
  o.takenStamp = c.stamp;
  o.takenDevice = device;
  // (What an earlier take brought, this one brings again; but a block-scoped
  // read brings no other block's release.)
  if (!takenBefore) o.broughtSame = false;
  if (!takenBefore || !device) o.broughtOther = false;
  auto self = writerPosition(c.writers, t.block, t.thread);
  bool contributed = self != c.writers.end() && self->block == t.block && self->thread == t.thread;
  PerThread* p = nullptr;
  auto pending = [&](bool sameBlock) -> VectorClock& {
    if (!p) p = &at(t);
    (sameBlock ? o.broughtSame : o.broughtOther) = true;
    return sameBlock ? p->pendingSame : p->pendingOther;
  };
  auto take = [&](const VectorClock& release, bool sameBlock) {
    if (!release.empty()) pending(sameBlock).join(release);
  };
  auto takeWriter = [&](const Writer& w, const Release& release, bool sameBlock) {
    if (!release.empty()) release.joinInto(pending(sameBlock), w.block, w.thread);
  };
  if (!contributed) {
    // The common case (a flag written by others): the chain's joins.
    auto own = blockPosition(c.byBlock, t.block);
    if (own != c.byBlock.end() && own->first == t.block) take(own->second, true);
    if (device) take(c.device, false);
  } else {
    // Rule 4 needs W by another thread. The device join holds t's own
    // releases too, but those are <= H_t, and <= P_t where they were when
    // published (deviceBelowP): taking them changes nothing but t's own
    // entry, which goes back to what the others' releases say of t. One
    // join of a clock that shares its chunks with every spinner's, where
    // a grid barrier's spinners joined each arrival's release, a walk of the
    // grid's clock, blocks^2 / 2 times a barrier.
    bool deviceAtOnce = device && !c.device.empty() && (!self->device || self->deviceBelowP);
    if (deviceAtOnce) {
      takeDeviceJoin(pending(false), c, *self);
      // (then only t's block's other writers are left: a range of them)
      for (auto w = writerPosition(c.writers, t.block, 0); w != c.writers.end() && w->block == t.block; ++w)
        if (w != self && w->stamp > takenBefore) takeWriter(*w, w->fenceAny, true);
    } else {
      for (const Writer& w : c.writers) {
        if (&w == &*self || w.stamp <= takenBefore) continue;
        if (w.block == t.block) takeWriter(w, w.fenceAny, true);
        else if (device && w.device) takeWriter(w, w.fenceDevice, false);
      }
    }
  }
  if (o.broughtSame || o.broughtOther) {
    PerThread& q = p ? *p : at(t);
    if (o.broughtSame) q.pendingSameRead = origin;
    if (o.broughtOther) q.pendingOtherRead = origin;
  }
}

void MessagePassing::takeDeviceJoin(VectorClock& pending, const Chain& c, const Writer& self) {
  Clock before = pending.get(self.block, self.thread);
  pending.join(c.device);
  if (!self.device) return;
  // (deviceHb's entry of `self`: what the writers' H said of it, its own
  // releases' included, which are <= P_self as above)
  Clock fromReleases = std::max(before, c.deviceHb.get(self.block, self.thread));
  if (pending.get(self.block, self.thread) != fromReleases) pending.set(self.block, self.thread, fromReleases);
}

void MessagePassing::noteUnfenced(const ThreadClocks& t, const UnfencedWrite& w, bool device) {
  if (w.block == t.block && w.thread == t.thread) return;
  if (w.block != t.block && !(device && w.device)) return;
  UnfencedNotes& n = notes_[index(t)];
  (w.block == t.block ? n.same : n.other) = w;
}

void MessagePassing::chainAdd(const ThreadClocks& t, uint64_t key, Scope scope, const Origin& origin) {
  auto p = threads_.find(index(t));
  if (p == threads_.end() || !p->second.fencedAny) {  // no fence before W: no release pattern
    unfenced_.insert_or_assign(key, UnfencedWrite{t.block, t.thread, scope != Scope::Block, t.now, origin});
    return;
  }
  unfenced_.erase(key);
  const PerThread& writer = p->second;
  bool device = scope != Scope::Block && writer.fencedDevice;
  Chain& c = chains_[key];
  auto w = writerPosition(c.writers, t.block, t.thread);
  bool known = w != c.writers.end() && w->block == t.block && w->thread == t.thread;
  // A writer adding what it added before (an RMW in a spin loop) changes
  // nothing: its releases already are in its block's join and the device's.
  if (known && writer.fenceAny.leq(w->fenceAny, t.block, t.thread) &&
      (!device || (w->device && writer.fenceDevice.leq(w->fenceDevice, t.block, t.thread))))
    return;
  c.stamp = ++stamps_;
  auto own = blockPosition(c.byBlock, t.block);
  if (own == c.byBlock.end() || own->first != t.block) own = c.byBlock.insert(own, {t.block, VectorClock(geometry_)});
  writer.fenceAny.joinInto(own->second, t.block, t.thread);
  if (device) {
    c.device.setGeometry(geometry_);
    c.deviceHb.setGeometry(geometry_);
    writer.fenceDevice.joinInto(c.device, t.block, t.thread);
    c.deviceHb.join(writer.fenceDevice.hb);
  }
  if (!known) w = c.writers.insert(w, {t.block, t.thread, false, {VectorClock(geometry_)}, {VectorClock(geometry_)}});
  w->stamp = c.stamp;
  w->fenceAny.join(writer.fenceAny);
  if (device) {
    w->device = true;
    w->fenceDevice.join(writer.fenceDevice);
    w->deviceBelowP = w->deviceBelowP && writer.fenceDeviceBelowP;
  }
}

MessagePassing::Observations MessagePassing::observations(uint64_t key, const ThreadClocks& t) const {
  Observations o;
  o.block_ = t.block;
  if (auto mine = observed_.find(index(t)); mine != observed_.end()) {
    if (const Observed* seen = mine->second.find(key)) {
      o.blockScoped_ = seen->blockScoped;
      o.deviceScoped_ = seen->deviceScoped;
    }
  }
  return o;
}

// seq + 1 of the latest read of the word by the thread that is morally
// strong with `write` (0: none).
uint64_t MessagePassing::Observations::latestReadAfter(const AccessRecord& write) const {
  if (!write.strong || !write.writes()) return 0;
  uint64_t latest = 0;
  if (morallyStrong(write.scope, write.block, Scope::Device, block_)) latest = deviceScoped_;
  if (morallyStrong(write.scope, write.block, Scope::Block, block_)) latest = std::max(latest, blockScoped_);
  return latest;
}

bool MessagePassing::Observations::excuse(const AccessRecord& write) const {
  return latestReadAfter(write) > write.origin.seq + 1;  // a read later than the write
}

uint64_t MessagePassing::Observations::excusedThrough(const AccessRecord& write) const {
  uint64_t latest = latestReadAfter(write);  // excuse(): writes at seq <= latest - 2
  return latest >= 2 ? latest - 2 : 0;
}

MissingFence MessagePassing::missingFence(const ThreadClocks& t, const AccessRecord& earlier) const {
  if (const PerThread* p = find(t)) {
    if (earlier.clock <= p->pendingSame.get(earlier.block, earlier.thread))
      return {MissingFence::Side::AfterRead, p->pendingSameRead};
    if (earlier.clock <= p->pendingOther.get(earlier.block, earlier.thread))
      return {MissingFence::Side::AfterRead, p->pendingOtherRead};
  }
  if (auto n = notes_.find(index(t)); n != notes_.end()) {
    if (const auto& w = n->second.acquired;
        w && w->block == earlier.block && w->thread == earlier.thread && earlier.clock <= w->epoch)
      return {MissingFence::Side::BeforeWrite, w->origin};
  }
  return {};
}

void MessagePassing::exit(const ThreadClocks& t) {
  threads_.erase(index(t));
  notes_.erase(index(t));
  observed_.erase(index(t));
}

void MessagePassing::blockFinished(uint32_t block, const FinishedBlocks& finished) {
  finished.dropShared(chains_, block, [](const Chain&) {});
  finished.dropShared(unfenced_, block, [](const UnfencedWrite&) {});
}

uint64_t MessagePassing::bytes() const {
  uint64_t total = threads_.capacity() * (sizeof(uint64_t) + sizeof(PerThread)) +
                   chains_.capacity() * (sizeof(uint64_t) + sizeof(Chain)) +
                   observed_.capacity() * (sizeof(uint64_t) + sizeof(observed_.begin()->second)) +
                   unfenced_.capacity() * (sizeof(uint64_t) + sizeof(UnfencedWrite)) +
                   notes_.capacity() * (sizeof(uint64_t) + sizeof(UnfencedNotes));
  for (const auto& [_, p] : threads_)
    total += p.fenceAny.hb.bytes() + p.fenceDevice.hb.bytes() + p.pendingSame.bytes() + p.pendingOther.bytes();
  for (const auto& [_, words] : observed_) total += words.heapBytes();
  for (const auto& [_, c] : chains_) {
    total += c.device.bytes() + c.deviceHb.bytes();
    for (const auto& [b, clock] : c.byBlock) total += clock.bytes() + sizeof(b);
    for (const Writer& w : c.writers) total += sizeof(w) + w.fenceAny.hb.bytes() + w.fenceDevice.hb.bytes();
  }
  return total;
}

void updateChains(ThreadTable& threads, MessagePassing& messages, const MemoryEvent& event, bool strong) {
  if (event.type == AccessType::Read) return;
  bool rmw = event.type == AccessType::AtomicRmw;
  auto words = [&](uint32_t lane, auto&& f) {
    forEachWord(event.address[lane], event.size,
                [&](uint64_t word, uint8_t) { f(locationKey(event.space, event.lanes.block, word)); });
  };
  // Ends first (a lock operation among RMW lanes ends the chain those lanes
  // then start), then the lanes' releases. (Without chains, no lane's words:
  // a plain store's lanes walked for nothing were 2.5% of a shared-memory
  // sort's analysis.)
  if (messages.anyChains()) {
    forEachLane(event.lanes, [&](uint32_t, uint32_t lane) {
      bool lockLane = (event.lockLanes >> lane) & 1;
      if (!strong || !rmw || lockLane) words(lane, [&](uint64_t key) { messages.chainEnd(key); });
    });
  }
  if (!strong) return;
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    if ((event.lockLanes >> lane) & 1) return;
    const ThreadClocks& t = threads.at(event.lanes.block, thread);
    words(lane, [&](uint64_t key) { messages.chainAdd(t, key, event.scope, event.origin); });
  });
}

}  // namespace predatar
