// Reading a text input line by line, in constant memory: a trace of 10^7
// events is never held whole. The same checks as readTextFile (a folder, a
// NUL byte, a read error) are made chunk by chunk, and one line may not
// outgrow the buffer, so /dev/zero or a binary file is refused at once.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace predatar::io {

// Longest line accepted (a trace line is tens of bytes).
inline constexpr size_t kMaxLineBytes = size_t(1) << 20;

class LineReader {
 public:
  // Reads the file at `path`. Errors: cannot open, a folder.
  static absl::StatusOr<std::unique_ptr<LineReader>> open(const std::string& path);
  // Reads text already in memory (tests, fuzzers); `path` names it in errors.
  static std::unique_ptr<LineReader> fromText(std::string_view text, const std::string& path);

  // The next line, without its '\n' or "\r\n"; valid until the next call.
  // False at the end of the input or on an error (then status() says which).
  bool next(std::string_view& line);
  // The 1-based number of the line last returned.
  uint64_t lineNumber() const { return lineNumber_; }
  const absl::Status& status() const { return status_; }
  const std::string& path() const { return path_; }
  // Whether the input can be read a second time (a regular file or text; not a pipe).
  bool rewindable() const { return rewindable_; }
  // Starts again at the first line (when rewindable()).
  absl::Status rewind();

 private:
  LineReader() = default;
  bool fill();  // reads one more chunk after what is buffered; false at the end or on error

  std::string path_;
  std::ifstream file_;
  bool fromText_ = false, rewindable_ = false, eof_ = false;
  std::string_view text_;  // fromText: the whole input
  std::string buffer_;     // file: the unread part is buffer_[begin_, end_)
  size_t begin_ = 0, end_ = 0;
  uint64_t lineNumber_ = 0;
  absl::Status status_;
};

}  // namespace predatar::io
