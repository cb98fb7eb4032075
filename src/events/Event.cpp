#include "events/Event.h"

#include "events/Trace.h"

namespace predatar {

const char* toString(Scope scope) {
  switch (scope) {
    case Scope::Block: return "block";
    case Scope::Device: return "device";
    case Scope::System: return "system";
  }
  return "?";
}

const char* toString(MemorySpace space) {
  return space == MemorySpace::Shared ? "shared" : "global";
}

const char* toString(AccessType type) {
  switch (type) {
    case AccessType::Read: return "read";
    case AccessType::Write: return "write";
    case AccessType::AtomicRmw: return "atomic";
  }
  return "?";
}

const char* toString(AtomicOp op) {
  static const char* names[] = {"none", "add", "sub", "min", "max", "inc",
                                "dec",  "and", "or",  "xor", "exch", "cas"};
  return names[static_cast<int>(op)];
}

void replay(const Trace& trace, EventSink& sink) {
  sink.kernelBegin(trace.kernel);
  for (const Event& event : trace.events) std::visit(EventDelivery{sink}, event);
  sink.kernelEnd();
}

const Origin& originOf(const Event& event) {
  return std::visit([](const auto& e) -> const Origin& { return e.origin; }, event);
}

}  // namespace predatar
