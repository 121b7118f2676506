// Warp roles in the checked AST (docs/reference/roles.md "Warp roles"): warpgroups
// taken in order, barrier ids, regs, CallExpr::role, the register-pool rule
// at its boundary, and `warpgroups` staying an ordinary name elsewhere.
#include <catch2/catch.hpp>

#include "TestUtil.h"

namespace {
const char *kGemmShape = R"(kernel k(p: ptr<i32, global>) threads(384) {
  warpgroups {
    producer(regs = 40) { p[0] = warpgroup_rank() }
    consumer(warpgroups = 2, regs = 232) {
      sync_threads()
      p[role_thread_id()] = role_threads()
    }
  }
}
)";
} // namespace

TEST_CASE("roles: warpgroups in order, barrier ids, regs and the calls' role", "[roles]") {
  auto c = compile(kGemmShape);
  INFO(c->rendered());
  REQUIRE(c->ok);
  fe::KernelAST &k = *c->module->kernels[0];
  REQUIRE(k.warpgroups != nullptr);
  auto &roles = k.warpgroups->roles;
  REQUIRE(roles.size() == 2);
  CHECK(roles[0]->name == "producer");
  CHECK(roles[0]->firstWarpgroup == 0);
  CHECK(roles[0]->numWarpgroups == 1);
  CHECK(roles[0]->regs == 40);
  CHECK(roles[0]->barrierId == 1);
  CHECK(roles[1]->firstWarpgroup == 1);
  CHECK(roles[1]->numWarpgroups == 2);
  CHECK(roles[1]->threads() == 256);
  CHECK(roles[1]->regs == 232);
  CHECK(roles[1]->barrierId == 2);
  // sync_threads() in the consumer knows its role (its named barrier).
  auto *sync = roles[1]->body[0]->as<fe::ExprStmtAST>()->expr->as<fe::CallExpr>();
  REQUIRE(sync);
  CHECK(sync->builtin == fe::Builtin::SyncThreads);
  CHECK(sync->role == roles[1].get());
}

TEST_CASE("roles: the register pool is exact at 40 + 2 x 232 for 384 threads", "[roles]") {
  std::string src = kGemmShape;
  CHECK(compile(src)->ok);
  // One more granule for the producer: 65536 > 64512.
  src.replace(src.find("regs = 40"), 9, "regs = 48");
  CHECK(compile(src)->firstError().rfind("the roles ask for 65536 registers", 0) == 0);
}

TEST_CASE("roles: `warpgroups` is contextual; elect_one works outside roles", "[roles]") {
  auto c = compile(inKernel("let warpgroups = 3\np[0] = warpgroups\nif warp_id() == 0 {\n"
                            "  if elect_one() { p[1] = 1 }\n}"));
  INFO(c->rendered());
  CHECK(c->ok);
  CHECK(c->diags.diagnostics().empty()); // no divergence warning under warp_id() == 0
}
