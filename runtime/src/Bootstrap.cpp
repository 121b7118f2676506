//===- Bootstrap.cpp - rank/size/id from the environment; tilec-run's CLI -===//
//
// Pure functions (no driver, no NCCL): unit-tested with a fake environment.
//===----------------------------------------------------------------------===//
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "tile/distributed.h"
#include "tile/nearest_names.h"

namespace tile {
namespace {

[[noreturn]] void bootstrapError(const std::string &message) {
  throw Error::withMessage("Bootstrap", CUDA_ERROR_INVALID_VALUE, {}, "Bootstrap: " + message);
}

// The first of `names` that is set: (name, value), or ("", nullptr).
std::pair<std::string, const char *> firstSet(const EnvLookup &env,
                                              std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (const char *v = env(n); v && *v)
      return {n, v};
  return {"", nullptr};
}

int parseInt(const std::string &name, const char *text, int minimum) {
  errno = 0;
  char *end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < minimum || v > INT_MAX)
    bootstrapError(name + "='" + text + "' is not an integer >= " + std::to_string(minimum));
  return int(v);
}

} // namespace

DistributedError::DistributedError(const Error &e, int rank, int ncclResult)
    : Error(e), rank_(rank), ncclResult_(ncclResult) {}

Bootstrap bootstrapFromEnvironment(const EnvLookup &lookup) {
  EnvLookup env = lookup ? lookup : EnvLookup([](const char *n) { return std::getenv(n); });
  Bootstrap b;
  auto rank = firstSet(env, {"TILEC_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"});
  auto size =
      firstSet(env, {"TILEC_WORLD_SIZE", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"});
  if (!rank.second)
    bootstrapError("no rank in the environment (set TILEC_RANK or RANK, or start the program "
                   "with `tilec-run -n N prog`)");
  if (!size.second)
    bootstrapError("no world size in the environment (set TILEC_WORLD_SIZE or WORLD_SIZE, or "
                   "start the program with `tilec-run -n N prog`)");
  b.rank = parseInt(rank.first, rank.second, 0);
  b.worldSize = parseInt(size.first, size.second, 1);
  if (b.rank >= b.worldSize)
    bootstrapError(rank.first + "=" + std::to_string(b.rank) + " is not below " + size.first + "=" +
                   std::to_string(b.worldSize));
  auto local = firstSet(
      env, {"TILEC_LOCAL_RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"});
  b.localRank = local.second ? parseInt(local.first, local.second, 0) : b.rank;
  auto device = firstSet(env, {"TILEC_DEVICE"});
  b.device = device.second ? parseInt(device.first, device.second, 0) : b.localRank;
  if (const char *id = env("TILEC_NCCL_UNIQUE_ID"); id && *id) {
    try {
      uniqueIdFromHex(id);
    } catch (const std::exception &e) {
      bootstrapError(std::string("TILEC_NCCL_UNIQUE_ID: ") + e.what());
    }
    b.uniqueIdHex = id;
  } else if (const char *f = env("TILEC_NCCL_ID_FILE"); f && *f) {
    b.idFile = f;
  } else {
    bootstrapError("no NCCL unique id: set TILEC_NCCL_UNIQUE_ID (tilec-run does) or "
                   "TILEC_NCCL_ID_FILE (a path every rank sees; rank 0 writes it)");
  }
  if (const char *t = env("TILEC_BOOTSTRAP_TIMEOUT"); t && *t)
    b.timeoutSeconds = parseInt("TILEC_BOOTSTRAP_TIMEOUT", t, 1);
  return b;
}

std::string uniqueIdToHex(const std::vector<unsigned char> &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : bytes) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

std::vector<unsigned char> uniqueIdFromHex(const std::string &hex) {
  constexpr size_t kBytes = 128; // NCCL_UNIQUE_ID_BYTES
  if (hex.size() != 2 * kBytes)
    throw std::invalid_argument("an NCCL unique id is " + std::to_string(2 * kBytes) +
                                " hex digits, not " + std::to_string(hex.size()));
  auto digit = [&](size_t i) {
    char c = hex[i];
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    throw std::invalid_argument("'" + std::string(1, c) + "' at position " + std::to_string(i) +
                                " is not a hex digit");
  };
  std::vector<unsigned char> bytes(kBytes);
  for (size_t i = 0; i < kBytes; ++i)
    bytes[i] = static_cast<unsigned char>(digit(2 * i) * 16 + digit(2 * i + 1));
  return bytes;
}

LauncherOptions parseLauncherArgs(const std::vector<std::string> &args) {
  const std::string usage = " (usage: tilec-run -n N [--] program [args...])";
  LauncherOptions o;
  size_t i = 0;
  std::string firstGiven; // the first -n as written, for a second one's error
  for (; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      o.help = true;
      return o;
    }
    std::string value;
    if (a == "-n" || a == "--nprocs" || a == "--nproc-per-node") {
      if (i + 1 >= args.size())
        throw std::invalid_argument(a + " needs a number" + usage);
      value = args[++i];
    } else if (a.rfind("--nprocs=", 0) == 0 || a.rfind("--nproc-per-node=", 0) == 0) {
      value = a.substr(a.find('=') + 1);
    } else if (a.size() > 2 && a.rfind("-n", 0) == 0 && a[2] >= '0' && a[2] <= '9') {
      value = a.substr(2);
    } else if (!a.empty() && a[0] == '-') {
      throw std::invalid_argument(
          "unknown option '" + a + "'" +
          didYouMean(a.substr(0, a.find('=')), {"-n", "--nprocs", "--nproc-per-node", "--help"}) +
          usage);
    } else {
      break; // the program
    }
    char *end = nullptr;
    errno = 0;
    long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || n < 1 || n > 1024)
      throw std::invalid_argument("the number of processes must be 1 to 1024, not '" + value + "'" +
                                  usage);
    // A second -n with another value is an error, as a repeated single-value
    // option is in tilec: neither is taken silently.
    std::string given = a == "-n" || a == "--nprocs" || a == "--nproc-per-node" ? a + " " + value : a;
    if (o.nprocs != 0 && o.nprocs != int(n))
      throw std::invalid_argument("'" + firstGiven + "' and '" + given +
                                  "' give the number of processes twice; give -n once" + usage);
    if (o.nprocs == 0)
      firstGiven = given;
    o.nprocs = int(n);
  }
  o.command.assign(args.begin() + std::ptrdiff_t(i), args.end());
  if (o.nprocs == 0)
    throw std::invalid_argument("missing -n N (the number of processes, one per GPU)" + usage);
  if (o.command.empty())
    throw std::invalid_argument("missing the program to run" + usage);
  return o;
}

std::vector<std::pair<std::string, std::string>>
launcherEnvironment(const LauncherOptions &opts, int rank, const std::string &uniqueIdHex) {
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(opts.nprocs)},
          {"LOCAL_RANK", std::to_string(rank)},
          {"LOCAL_WORLD_SIZE", std::to_string(opts.nprocs)},
          {"TILEC_NCCL_UNIQUE_ID", uniqueIdHex},
          // NVLink SHARP (multicast objects) can take a shared host's GPUs out of
          // service: never on in tilec-run's processes.
          {"NCCL_NVLS_ENABLE", "0"},
          // Inherited ones would win over the variables above (empty: unset).
          {"TILEC_RANK", ""},
          {"TILEC_WORLD_SIZE", ""},
          {"TILEC_LOCAL_RANK", ""},
          {"TILEC_DEVICE", ""},
          {"TILEC_NCCL_ID_FILE", ""}};
}

} // namespace tile
