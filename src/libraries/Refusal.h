// How predatar's libraries refuse what they do not implement: by name, through
// libcudart (one line per name, "predatar: X is not supported by the emulator
// (returning STATUS)"; PREDATAR_STRICT=1 exits), then returning the library's
// own error status.
#pragma once

extern "C" void predatarUnsupportedReturning(const char* what, const char* returning);
// A call the library runs as a GPU would, whose result is undefined (its
// input breaks the library's documented requirements): a warning, printed and
// listed in the report.
extern "C" void predatarWarning(const char* what);

namespace predatar::libraries {

template <class Status>
Status refuse(const char* what, Status status, const char* statusName) {
  predatarUnsupportedReturning(what, statusName);
  return status;
}

}  // namespace predatar::libraries
