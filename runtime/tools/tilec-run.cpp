//===- tilec-run.cpp - one process per GPU, an NCCL unique id for them ----===//
//
//   tilec-run -n N [--] program [args...]
//
// Creates one ncclUniqueId (ncclGetUniqueId: this process hosts NCCL's bootstrap
// root until the ranks have connected), then starts N copies of the program with
// RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, TILEC_NCCL_UNIQUE_ID and
// NCCL_NVLS_ENABLE=0 set (tile::launcherEnvironment), which
// tile::Communicator::fromEnvironment() reads. It waits for them; when one fails
// the others are stopped (SIGTERM). Exit status: 0 when every rank exits 0; the
// common status when all exit alike (77 = every rank skipped); otherwise the
// first failure's status (128 + signal for a signal).
//===----------------------------------------------------------------------===//
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "tile/distributed.h"

namespace {

std::vector<pid_t> g_children;

void forward(int sig) {
  for (pid_t p : g_children)
    if (p > 0)
      kill(p, sig);
}

const char *kUsage =
    "usage: tilec-run -n N [--] program [args...]\n"
    "Starts N processes of `program`, one per GPU (rank r on device r), with an NCCL\n"
    "unique id in TILEC_NCCL_UNIQUE_ID and RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE\n"
    "set, as tile::Communicator::fromEnvironment() expects. NCCL_NVLS_ENABLE=0.\n";

} // namespace

int main(int argc, char **argv) {
  tile::LauncherOptions opts;
  try {
    opts = tile::parseLauncherArgs(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tilec-run: error: %s\n", e.what());
    return 2;
  }
  if (opts.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::string id;
  try {
    id = tile::uniqueIdToHex(tile::newNcclUniqueId());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tilec-run: error: %s\n", e.what());
    return 1;
  }
  signal(SIGINT, forward);
  signal(SIGTERM, forward);
  std::fflush(nullptr);
  for (int r = 0; r < opts.nprocs; ++r) {
    // A signal between fork and exec must not run `forward` in the child (which
    // would swallow it): blocked across fork, reset to default in the child,
    // then delivered there with its default action.
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid == 0) {
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
    }
    if (pid > 0)
      g_children.push_back(pid);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    if (pid < 0) {
      std::perror("tilec-run: fork");
      forward(SIGTERM);
      return 1;
    }
    if (pid == 0) {
      for (const auto &[name, value] : tile::launcherEnvironment(opts, r, id)) {
        if (value.empty())
          unsetenv(name.c_str());
        else
          setenv(name.c_str(), value.c_str(), 1);
      }
      std::vector<char *> args;
      for (std::string &a : opts.command)
        args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::fprintf(stderr, "tilec-run: rank %d: cannot run '%s': %s\n", r, args[0],
                   std::strerror(errno));
      _exit(127);
    }
  }
  int firstFailure = -1, firstStatus = 0, common = -1;
  bool allSame = true;
  for (size_t done = 0; done < g_children.size();) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    int rank = -1;
    for (size_t r = 0; r < g_children.size(); ++r)
      if (g_children[r] == pid) {
        rank = int(r);
        g_children[r] = -1;
      }
    if (rank < 0)
      continue;
    ++done;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (common == -1)
      common = code;
    else if (code != common)
      allSame = false;
    if (code != 0 && firstFailure < 0) {
      firstFailure = rank;
      firstStatus = code;
      if (code != 77) {
        if (WIFSIGNALED(status))
          std::fprintf(stderr,
                       "tilec-run: rank %d (pid %d) killed by signal %d; stopping the others\n",
                       rank, int(pid), WTERMSIG(status));
        else
          std::fprintf(stderr,
                       "tilec-run: rank %d (pid %d) exited with status %d; stopping the others\n",
                       rank, int(pid), code);
        forward(SIGTERM);
      }
    }
  }
  if (firstFailure < 0)
    return 0;
  return allSame ? common : firstStatus;
}
