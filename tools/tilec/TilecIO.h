//===- TilecIO.h - tilec's checked input and output -------------*- C++ -*-===//
//
// Every file problem (missing, a directory, too large, unwritable, a full
// disk, the output being the input) ends as one "tilec: error:" line and a
// hint, never as an LLVM fatal error.
//===----------------------------------------------------------------------===//
#ifndef TILEC_TOOLS_TILECIO_H
#define TILEC_TOOLS_TILECIO_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace tilec::io {

/// Source files larger than this are refused (documented in README.md): the
/// read is bounded, so /dev/zero or an endless pipe cannot exhaust memory.
constexpr size_t kMaxInputBytes = 16u << 20;

/// Prints "tilec: error: MESSAGE" and "hint: HINT" to stderr; returns false.
bool fail(const llvm::Twine &message, const llvm::Twine &hint);

/// Reads `path` ("-": stdin) into `text`, at most kMaxInputBytes.
bool readSource(llvm::StringRef path, std::string &text);

/// Reads a file tilec itself made (a temporary), any size.
bool readSmallFile(llvm::StringRef path, std::string &text);

/// False (after an error) when `output` names the same file as `input` - by
/// file identity (device and inode), so symlinks and hard links are caught.
bool checkOutputIsNotInput(llvm::StringRef output, llvm::StringRef input);

/// Writes `data` to `path` ("-": stdout) and checks every write and the
/// close. On failure a regular file it created or truncated is removed;
/// devices (/dev/full) are left alone.
bool writeOutput(llvm::StringRef path, llvm::StringRef data, bool binary, llvm::StringRef input);

/// A temporary file, removed when this goes out of scope.
class TempFile {
public:
  explicit TempFile(llvm::StringRef suffix) : suffix_(suffix.str()) {}
  ~TempFile();
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  bool create();
  llvm::StringRef path() const { return path_; }

private:
  std::string suffix_;
  llvm::SmallString<128> path_;
};

} // namespace tilec::io

#endif
