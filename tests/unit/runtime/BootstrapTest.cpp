// tile/distributed.h's pure parts: the environment a rank reads, the unique id's
// hex form, tilec-run's command line and the environment it gives each rank.
#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>

#include "tile/distributed.h"

namespace {

std::string hexId(char fill = 'a') { return std::string(256, fill); }

tile::EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string bootstrapError(std::map<std::string, std::string> vars) {
  try {
    tile::bootstrapFromEnvironment(env(std::move(vars)));
  } catch (const tile::Error &e) {
    CHECK(e.call() == "Bootstrap");
    return e.what();
  }
  FAIL("no error");
  return "";
}

} // namespace

TEST_CASE("bootstrap: torchrun-style variables", "[distributed]") {
  tile::Bootstrap b = tile::bootstrapFromEnvironment(env({{"RANK", "3"},
                                                          {"WORLD_SIZE", "4"},
                                                          {"LOCAL_RANK", "1"},
                                                          {"TILEC_NCCL_UNIQUE_ID", hexId()}}));
  CHECK(b.rank == 3);
  CHECK(b.worldSize == 4);
  CHECK(b.localRank == 1);
  CHECK(b.device == 1); // the local rank
  CHECK(b.uniqueIdHex == hexId());
  CHECK(b.idFile.empty());
}

TEST_CASE("bootstrap: TILEC_ variables win, device and file and timeout", "[distributed]") {
  tile::Bootstrap b = tile::bootstrapFromEnvironment(env({{"RANK", "0"},
                                                          {"TILEC_RANK", "1"},
                                                          {"WORLD_SIZE", "2"},
                                                          {"TILEC_DEVICE", "5"},
                                                          {"TILEC_NCCL_ID_FILE", "/shared/id"},
                                                          {"TILEC_BOOTSTRAP_TIMEOUT", "7"}}));
  CHECK(b.rank == 1);
  CHECK(b.localRank == 1); // defaults to the rank
  CHECK(b.device == 5);
  CHECK(b.idFile == "/shared/id");
  CHECK(b.timeoutSeconds == 7);
  // MPI and Slurm names.
  b = tile::bootstrapFromEnvironment(env({{"OMPI_COMM_WORLD_RANK", "2"},
                                          {"OMPI_COMM_WORLD_SIZE", "8"},
                                          {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
                                          {"TILEC_NCCL_UNIQUE_ID", hexId('0')}}));
  CHECK(b.rank == 2);
  CHECK(b.worldSize == 8);
  b = tile::bootstrapFromEnvironment(env({{"SLURM_PROCID", "1"},
                                          {"SLURM_NTASKS", "2"},
                                          {"SLURM_LOCALID", "0"},
                                          {"TILEC_NCCL_UNIQUE_ID", hexId('0')}}));
  CHECK(b.rank == 1);
  CHECK(b.device == 0);
}

TEST_CASE("bootstrap: errors name the variable", "[distributed]") {
  CHECK_THAT(bootstrapError({{"WORLD_SIZE", "2"}}),
             Catch::Contains("no rank in the environment") && Catch::Contains("tilec-run"));
  CHECK_THAT(bootstrapError({{"RANK", "0"}}), Catch::Contains("no world size"));
  CHECK_THAT(bootstrapError({{"RANK", "x1"}, {"WORLD_SIZE", "2"}}),
             Catch::Contains("RANK='x1' is not an integer >= 0"));
  CHECK_THAT(bootstrapError({{"RANK", "0"}, {"WORLD_SIZE", "0"}}),
             Catch::Contains("WORLD_SIZE='0' is not an integer >= 1"));
  CHECK_THAT(
      bootstrapError({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"TILEC_NCCL_UNIQUE_ID", hexId()}}),
      Catch::Contains("RANK=2 is not below WORLD_SIZE=2"));
  CHECK_THAT(bootstrapError({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "-1"}}),
             Catch::Contains("LOCAL_RANK='-1'"));
  CHECK_THAT(bootstrapError({{"RANK", "0"}, {"WORLD_SIZE", "2"}}),
             Catch::Contains("no NCCL unique id") && Catch::Contains("TILEC_NCCL_ID_FILE"));
  CHECK_THAT(bootstrapError({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"TILEC_NCCL_UNIQUE_ID", "abc"}}),
             Catch::Contains("TILEC_NCCL_UNIQUE_ID: an NCCL unique id is 256 hex digits, not 3"));
  CHECK_THAT(bootstrapError({{"RANK", "0"},
                             {"WORLD_SIZE", "2"},
                             {"TILEC_NCCL_UNIQUE_ID", std::string(255, 'a') + "g"}}),
             Catch::Contains("'g' at position 255 is not a hex digit"));
}

TEST_CASE("unique id hex round trip", "[distributed]") {
  std::vector<unsigned char> id(128);
  for (size_t i = 0; i < id.size(); ++i)
    id[i] = static_cast<unsigned char>(i * 37 + 11);
  std::string hex = tile::uniqueIdToHex(id);
  CHECK(hex.size() == 256);
  CHECK(hex.substr(0, 4) == "0b30");
  CHECK(tile::uniqueIdFromHex(hex) == id);
  std::string upper = hex;
  for (char &c : upper)
    c = char(std::toupper(c));
  CHECK(tile::uniqueIdFromHex(upper) == id);
}

TEST_CASE("tilec-run command line", "[distributed]") {
  using V = std::vector<std::string>;
  tile::LauncherOptions o = tile::parseLauncherArgs({"-n", "2", "./prog", "-n", "5", "x"});
  CHECK(o.nprocs == 2);
  CHECK(o.command == V{"./prog", "-n", "5", "x"}); // the program's own options stay its own
  CHECK(tile::parseLauncherArgs({"-n4", "p"}).nprocs == 4);
  CHECK(tile::parseLauncherArgs({"--nprocs=3", "p"}).nprocs == 3);
  CHECK(tile::parseLauncherArgs({"--nproc-per-node", "8", "p"}).nprocs == 8);
  o = tile::parseLauncherArgs({"-n", "2", "--", "-weird-name", "a"});
  CHECK(o.command == V{"-weird-name", "a"});
  CHECK(tile::parseLauncherArgs({"--help"}).help);
  auto error = [](V args) {
    try {
      tile::parseLauncherArgs(args);
    } catch (const std::invalid_argument &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error({"./prog"}), Catch::Contains("missing -n N"));
  CHECK_THAT(error({"-n", "2"}), Catch::Contains("missing the program"));
  CHECK_THAT(error({"-n"}), Catch::Contains("-n needs a number"));
  CHECK_THAT(error({"-n", "0", "p"}), Catch::Contains("1 to 1024, not '0'"));
  CHECK_THAT(error({"-n", "2x", "p"}), Catch::Contains("not '2x'"));
  // A second -n with another value is an error naming both, not the last one.
  CHECK_THAT(error({"-n", "1", "-n", "2", "p"}),
             Catch::Contains("'-n 1' and '-n 2' give the number of processes twice"));
  CHECK_THAT(error({"--nprocs=2", "-n3", "p"}), Catch::Contains("'--nprocs=2' and '-n3'"));
  CHECK(tile::parseLauncherArgs({"-n", "2", "--nprocs=2", "p"}).nprocs == 2); // the same value
  CHECK_THAT(error({"--frobnicate", "p"}), Catch::Contains("unknown option '--frobnicate'") &&
                                               Catch::Contains("usage: tilec-run"));
  // A misspelt option names the nearest ones.
  CHECK_THAT(error({"--nproc=2", "p"}),
             Catch::Contains("unknown option '--nproc=2'; did you mean '--nprocs'"));
  CHECK_THAT(error({"--hlep"}), Catch::Contains("did you mean '--help'?"));
}

TEST_CASE("tilec-run gives each rank its environment", "[distributed]") {
  tile::LauncherOptions o = tile::parseLauncherArgs({"-n", "4", "p"});
  auto vars = tile::launcherEnvironment(o, 2, hexId('7'));
  std::map<std::string, std::string> m(vars.begin(), vars.end());
  CHECK(m["RANK"] == "2");
  CHECK(m["WORLD_SIZE"] == "4");
  CHECK(m["LOCAL_RANK"] == "2");
  CHECK(m["LOCAL_WORLD_SIZE"] == "4");
  CHECK(m["TILEC_NCCL_UNIQUE_ID"] == hexId('7'));
  CHECK(m["NCCL_NVLS_ENABLE"] == "0");
  // Inherited TILEC_ overrides are cleared (empty = unset), so RANK decides.
  for (const char *v : {"TILEC_RANK", "TILEC_WORLD_SIZE", "TILEC_LOCAL_RANK", "TILEC_DEVICE",
                        "TILEC_NCCL_ID_FILE"}) {
    REQUIRE(m.count(v));
    CHECK(m[v].empty());
  }
  // What a rank reads back from it is what the launcher meant.
  tile::Bootstrap b = tile::bootstrapFromEnvironment(env(m));
  CHECK(b.rank == 2);
  CHECK(b.worldSize == 4);
  CHECK(b.device == 2);
  CHECK(b.uniqueIdHex == hexId('7'));
}
