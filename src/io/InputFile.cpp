#include "io/InputFile.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/status/status.h"

namespace predatar::io {

absl::StatusOr<std::string> readTextFile(const std::string& path, uint64_t maxBytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return absl::InvalidArgumentError(path + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(path + ": cannot open file");
  std::string text;
  char chunk[1 << 16];
  // Chunk by chunk, so that /dev/zero or a binary file stops at its first
  // block and an endless stream stops at the bound.
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    size_t got = size_t(in.gcount());
    if (std::memchr(chunk, '\0', got) != nullptr)
      return absl::InvalidArgumentError(path + ": not a text file (contains NUL bytes)");
    if (text.size() + got > maxBytes)
      return absl::ResourceExhaustedError(path + ": larger than " + std::to_string(maxBytes) + " bytes");
    text.append(chunk, got);
  }
  if (in.bad()) return absl::DataLossError(path + ": read error");
  return text;
}

}  // namespace predatar::io
