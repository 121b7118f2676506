//===- TilecIO.cpp - tilec's checked input and output ----------------------===//
#include "TilecIO.h"
#include "tilec/frontend/Diagnostics.h"

#include "llvm/Support/Errc.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace llvm;

namespace tilec::io {

bool fail(const Twine &message, const Twine &hint) {
  // Rendered by the compiler's diagnostics engine, like every other message.
  tile::frontend::DiagnosticEngine diags;
  diags.setToolName("tilec");
  diags.error({}, message.str(), hint.str());
  for (const tile::frontend::Diagnostic &d : diags.diagnostics())
    errs() << diags.render(d);
  return false;
}

/// A hint for an open/write error code.
static std::string hintFor(std::error_code ec, bool writing) {
  if (ec == errc::permission_denied || ec == errc::read_only_file_system)
    return writing ? "check the permissions of the file and its folder, or choose another -o path"
                   : "check the file's permissions";
  if (ec == errc::no_space_on_device)
    return "free some disk space or choose another -o path";
  if (ec == errc::no_such_file_or_directory)
    return writing ? "create the folder first, or choose another -o path"
                   : "check the path of the .tile file";
  if (ec == errc::is_a_directory)
    return writing ? "-o takes a file name, not a folder" : "give a .tile file, not a folder";
  return writing ? "choose another -o path" : "check the path of the .tile file";
}

bool readSource(StringRef path, std::string &text) {
  std::string shown = path == "-" ? std::string("<stdin>") : ("'" + path + "'").str();
  sys::fs::file_t handle;
  bool close = false;
  if (path == "-") {
    handle = sys::fs::getStdinHandle();
  } else {
    sys::fs::file_status status;
    if (std::error_code ec = sys::fs::status(path, status))
      return fail("cannot read " + shown + ": " + ec.message(), hintFor(ec, false));
    if (status.type() == sys::fs::file_type::directory_file)
      return fail("cannot read " + shown + ": it is a directory",
                  hintFor(errc::is_a_directory, false));
    Expected<sys::fs::file_t> opened = sys::fs::openNativeFileForRead(path);
    if (!opened) {
      std::error_code ec = errorToErrorCode(opened.takeError());
      return fail("cannot read " + shown + ": " + ec.message(), hintFor(ec, false));
    }
    handle = *opened;
    close = true;
  }
  text.clear();
  char chunk[1 << 16];
  bool ok = true;
  while (true) {
    Expected<size_t> n =
        sys::fs::readNativeFile(handle, MutableArrayRef<char>(chunk, sizeof chunk));
    if (!n) {
      std::error_code ec = errorToErrorCode(n.takeError());
      ok = fail("cannot read " + shown + ": " + ec.message(), hintFor(ec, false));
      break;
    }
    if (*n == 0)
      break;
    if (text.size() + *n > kMaxInputBytes) {
      ok = fail(shown + " is larger than 16 MiB",
                "tilec reads at most 16 MiB of source; is this a .tile file? Split large "
                "sources into several files");
      break;
    }
    text.append(chunk, *n);
  }
  if (close)
    sys::fs::closeFile(handle);
  return ok;
}

bool readSmallFile(StringRef path, std::string &text) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return false;
  text = (*buffer)->getBuffer().str();
  return true;
}

bool checkOutputIsNotInput(StringRef output, StringRef input) {
  if (output == "-" || input == "-" || input.empty())
    return true;
  bool same = false;
  // An error means one of them does not exist (yet): then they differ.
  if (!sys::fs::equivalent(input, output, same) && same)
    return fail("output '" + output + "' is the input file '" + input + "'",
                "writing it would overwrite the source; choose another -o path");
  return true;
}

bool writeOutput(StringRef path, StringRef data, bool binary, StringRef input) {
  if (path == "-") {
    raw_fd_ostream out(STDOUT_FILENO, /*shouldClose=*/false);
    out << data;
    out.flush();
    if (out.has_error()) {
      std::error_code ec = out.error();
      out.clear_error();
      return fail("cannot write to stdout: " + ec.message(),
                  "check where stdout goes, or use -o FILE");
    }
    return true;
  }
  if (!checkOutputIsNotInput(path, input))
    return false;
  sys::fs::file_status status;
  bool exists = !sys::fs::status(path, status);
  if (exists && status.type() == sys::fs::file_type::directory_file)
    return fail("cannot write '" + path + "': it is a directory",
                hintFor(errc::is_a_directory, true));
  // Only a file this call creates or truncates may be removed after a failure.
  bool removable = !exists || status.type() == sys::fs::file_type::regular_file;
  std::error_code ec;
  raw_fd_ostream out(path, ec, binary ? sys::fs::OF_None : sys::fs::OF_Text);
  if (ec) {
    out.clear_error();
    return fail("cannot write '" + path + "': " + ec.message(), hintFor(ec, true));
  }
  out << data;
  out.close();
  if (out.has_error()) {
    ec = out.error();
    out.clear_error();
    if (removable)
      sys::fs::remove(path);
    return fail("cannot write '" + path + "': " + ec.message(), hintFor(ec, true));
  }
  return true;
}

TempFile::~TempFile() {
  if (!path_.empty())
    sys::fs::remove(path_);
}

bool TempFile::create() {
  if (std::error_code ec = sys::fs::createTemporaryFile("tilec", suffix_, path_))
    return fail("cannot create a temporary file: " + ec.message(),
                "check the temporary directory ($TMPDIR)");
  return true;
}

} // namespace tilec::io
