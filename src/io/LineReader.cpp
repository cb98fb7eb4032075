#include "io/LineReader.h"

#include <cstring>
#include <filesystem>

namespace predatar::io {
namespace {

constexpr size_t kChunkBytes = size_t(1) << 16;

}  // namespace

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::open(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return absl::InvalidArgumentError(path + ": is a folder, not a file");
  std::unique_ptr<LineReader> r(new LineReader());
  r->path_ = path;
  r->file_.open(path, std::ios::binary);
  if (!r->file_) return absl::NotFoundError(path + ": cannot open file");
  r->rewindable_ = std::filesystem::is_regular_file(path, ec);
  r->buffer_.resize(kMaxLineBytes + kChunkBytes);
  return r;
}

std::unique_ptr<LineReader> LineReader::fromText(std::string_view text, const std::string& path) {
  std::unique_ptr<LineReader> r(new LineReader());
  r->path_ = path;
  r->fromText_ = r->rewindable_ = true;
  r->text_ = text;
  r->end_ = text.size();
  return r;
}

absl::Status LineReader::rewind() {
  if (!rewindable_) return absl::FailedPreconditionError(path_ + ": cannot be read twice (not a regular file)");
  lineNumber_ = 0;
  eof_ = false;
  status_ = absl::OkStatus();
  if (fromText_) {
    begin_ = 0;
    return status_;
  }
  begin_ = end_ = 0;
  file_.clear();
  file_.seekg(0);
  if (!file_) return status_ = absl::DataLossError(path_ + ": cannot read the file again");
  return status_;
}

bool LineReader::fill() {
  if (eof_ || !status_.ok()) return false;
  if (begin_ > 0) {  // keep the partial line at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ + kChunkBytes > buffer_.size()) {
    status_ = absl::InvalidArgumentError(
        path_ + ":" + std::to_string(lineNumber_ + 1) + ": line longer than " +
        std::to_string(kMaxLineBytes) + " bytes (not a trace file?)");
    return false;
  }
  file_.read(buffer_.data() + end_, std::streamsize(kChunkBytes));
  size_t got = size_t(file_.gcount());
  if (file_.bad()) {
    status_ = absl::DataLossError(path_ + ": read error");
    return false;
  }
  if (got == 0) {
    eof_ = true;
    return false;
  }
  // Checked per chunk, so that /dev/zero or a binary file stops at its first block.
  if (std::memchr(buffer_.data() + end_, '\0', got) != nullptr) {
    status_ = absl::InvalidArgumentError(path_ + ": not a text file (contains NUL bytes)");
    return false;
  }
  end_ += got;
  return true;
}

bool LineReader::next(std::string_view& line) {
  if (!status_.ok()) return false;
  size_t scanned = 0;  // bytes after begin_ known to hold no '\n' (fill() may move begin_)
  for (;;) {
    const char* data = fromText_ ? text_.data() : buffer_.data();
    size_t from = begin_ + scanned;
    const void* nl = from < end_ ? std::memchr(data + from, '\n', end_ - from) : nullptr;
    if (nl != nullptr) {
      size_t at = size_t(static_cast<const char*>(nl) - data);
      line = std::string_view(data + begin_, at - begin_);
      begin_ = at + 1;
      break;
    }
    scanned = end_ - begin_;
    if (fromText_ || !fill()) {
      if (!status_.ok() || begin_ >= end_) return false;
      data = fromText_ ? text_.data() : buffer_.data();
      line = std::string_view(data + begin_, end_ - begin_);  // the last line, without '\n'
      begin_ = end_;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++lineNumber_;
  return true;
}

}  // namespace predatar::io
