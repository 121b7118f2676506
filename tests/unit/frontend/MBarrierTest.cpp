// Frontend: mbarriers, store_async and vector literals, fences and
// split cluster barriers, the static sync checks.
#include "TestUtil.h"

#include <catch2/catch.hpp>

using namespace tile::frontend;

static const char *kPingPong = R"(// Low-latency cluster exchange.
kernel pingpong(out: ptr<i32, global>, iters: i32) cluster(8) threads(32) {
  let buf  = shared<i32>[4]
  let full = mbarrier(1)
  let rank = cluster_rank()
  let peer = rank ^ 1
  let block = block_id()
  for it in 0 .. iters {
    if thread_id() == 0 {
      arrive_expect_tx(full, 16)                       // my buffer will receive 16 bytes
      store_async(remote(buf, peer)[0], {it, rank, block, it ^ 0x5a5a}, remote(full, peer))
    }
    wait(full)                                         // the partner's 16 bytes are here
    if thread_id() == 0 {
      let o = (block as i64 * iters as i64 + it as i64) * 4
      for k in 0 .. 4 { out[o + k as i64] = buf[k] }
    }
    cluster_sync()                                     // everyone read buf before it is overwritten
  }
}
)";

static CallExpr *callAt(Block &b, size_t i) {
  auto *es = b.at(i)->as<ExprStmtAST>();
  return es ? es->expr->as<CallExpr>() : nullptr;
}

TEST_CASE("mbarrier: the ping-pong kernel checks and is annotated", "[sema][mbarrier]") {
  auto c = compile(kPingPong);
  INFO(c->rendered());
  REQUIRE(c->ok);
  CHECK(c->diags.diagnostics().empty());
  KernelAST &k = *c->module->kernels[0];
  REQUIRE(k.mbarriers.size() == 1);
  MBarrierStmt &full = *k.mbarriers[0];
  CHECK(k.body[1].get() == &full);
  CHECK(full.index == 0);
  CHECK_FALSE(full.arraySize);
  CHECK(full.constantCount == 1);
  CHECK(full.decl->kind == DeclKind::MBarrier);
  CHECK(full.decl->mbarrier == &full);
  CHECK(full.decl->type == Type::mbarrier(AddressSpace::Shared));
  CHECK(full.count->type == Type::i32());
  CHECK(k.staticSharedBytes == 16 + 8); // buf at 0, full at 16
  CHECK(k.usesClusterFeatures);

  Block &then = k.body[5]->as<ForStmt>()->body[0]->as<IfStmt>()->thenBody;
  CallExpr *aet = callAt(then, 0);
  REQUIRE(aet);
  CHECK(aet->builtin == Builtin::ArriveExpectTx);
  CHECK(aet->type.kind == Type::Void);
  CHECK(aet->resultUnused);
  CHECK(aet->space == AddressSpace::Shared);
  CHECK_FALSE(aet->orderGiven);
  CHECK_FALSE(aet->scopeGiven);
  CHECK(aet->args[0]->as<VarRefExpr>()->decl == full.decl.get());
  CHECK(aet->args[1]->type == Type::i32());

  CallExpr *sa = callAt(then, 1);
  REQUIRE(sa);
  CHECK(sa->builtin == Builtin::StoreAsync);
  CHECK(sa->asyncBytes == 16);
  CHECK(sa->space == AddressSpace::Cluster);
  auto *dst = sa->args[0]->as<IndexExpr>();
  REQUIRE(dst);
  CHECK(dst->use == IndexUse::Address);
  CHECK(dst->space == AddressSpace::Cluster);
  CHECK(dst->type == Type::i32());
  auto *vec = sa->args[1]->as<VectorExpr>();
  REQUIRE(vec);
  CHECK(vec->elems.size() == 4);
  CHECK(vec->type == Type::i32());
  for (auto &e : vec->elems)
    CHECK(e->type == Type::i32());
  auto *rb = sa->args[2]->as<CallExpr>();
  REQUIRE(rb);
  CHECK(rb->builtin == Builtin::Remote);
  CHECK(rb->type == Type::mbarrier(AddressSpace::Cluster));
  CHECK(rb->space == AddressSpace::Cluster);

  CallExpr *w = callAt(k.body[5]->as<ForStmt>()->body, 1);
  REQUIRE(w);
  CHECK(w->builtin == Builtin::Wait);
  CHECK(w->space == AddressSpace::Shared);
  // Open order and scope: tile-sync-semantics decides them on the IR (a peer
  // completes `full` through remote(), so the wait becomes acquire.cluster).
  CHECK_FALSE(w->orderGiven);
  CHECK_FALSE(w->scopeGiven);

  std::string dump = c->dump();
  CHECK(dump.find("MBarrier full : mbarrier #3 index=0 count=1 bytes=8 @4:3") != std::string::npos);
  CHECK(dump.find("Call store_async bytes=16 space=cluster unused : void @11:7") !=
        std::string::npos);
  CHECK(dump.find("Vector 4 : i32 @11:41") != std::string::npos);
  CHECK(dump.find("Call wait order=open scope=open space=shared unused : void @13:5") !=
        std::string::npos);
}

TEST_CASE("mbarrier: arrays, remote elements, given orders and scopes", "[sema][mbarrier]") {
  auto c = compile(inKernel("let a = shared<f32>[3]\n"
                            "let s = mbarrier[4](n * 2)\n"
                            "let t = mbarrier(2)\n"
                            "let i = thread_id()\n"
                            "arrive(s[i], order = relaxed, scope = cluster)\n"
                            "arrive(remote(s[1], 1))\n"
                            "expect_tx(s[0], 8, scope = cluster)\n"
                            "wait(s[i])\n"
                            "arrive(t)\n"
                            "wait(t, order = relaxed)\n"
                            "store_async(remote(a, 1)[0], {1.0, 2}, remote(s[0], 1))",
                            "cluster(2)"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  KernelAST &k = *c->module->kernels[0];
  REQUIRE(k.mbarriers.size() == 2);
  MBarrierStmt &s = *k.mbarriers[0], &t = *k.mbarriers[1];
  CHECK(s.arraySize == 4);
  CHECK_FALSE(s.constantCount); // n * 2: known at launch
  CHECK(s.decl->type.kind == Type::MBarrierArray);
  CHECK(s.decl->type.staticLength == 4);
  CHECK(t.index == 1);
  CHECK(t.constantCount == 2);
  CHECK(k.staticSharedBytes == 16 + 32 + 8); // a (12 -> 16), s (32), t (8)

  auto &b = k.body;
  CallExpr *a0 = callAt(b, 4);
  CHECK(a0->orderGiven);
  CHECK(a0->scopeGiven);
  CHECK(a0->order == MemOrder::Relaxed);
  CHECK(a0->scope == MemScope::Cluster);
  auto *idx = a0->args[0]->as<IndexExpr>();
  REQUIRE(idx);
  CHECK(idx->type == Type::mbarrier(AddressSpace::Shared));
  CHECK(idx->use == IndexUse::Address);
  CHECK(idx->space == AddressSpace::Shared);

  CallExpr *a1 = callAt(b, 5);
  CHECK(a1->space == AddressSpace::Cluster);
  CHECK_FALSE(a1->orderGiven); // open: decided on the IR, not here
  CHECK_FALSE(a1->scopeGiven);

  CallExpr *ex = callAt(b, 6);
  CHECK(ex->builtin == Builtin::ExpectTx);
  CHECK_FALSE(ex->orderGiven);
  CHECK(ex->scopeGiven);

  CHECK_FALSE(callAt(b, 7)->scopeGiven); // the IR decides: s is arrived on remotely
  CallExpr *wt = callAt(b, 9);
  CHECK_FALSE(wt->scopeGiven);
  CHECK(wt->order == MemOrder::Relaxed);
  CHECK(wt->orderGiven);

  CallExpr *sa = callAt(b, 10);
  CHECK(sa->asyncBytes == 8);
  auto *vec = sa->args[1]->as<VectorExpr>();
  REQUIRE(vec);
  CHECK(vec->type == Type::scalarTy(ScalarKind::F32));
  CHECK(vec->elems[1]->is<FloatLiteralExpr>()); // the integer literal adapted to f32
}

TEST_CASE("mbarrier: fences and split cluster barriers", "[sema][mbarrier]") {
  auto c =
      compile(inKernel("fence()\nfence(order = sc, scope = cluster)\nfence_proxy_async()\n"
                       "fence_mbarrier_init()\ncluster_arrive()\ncluster_arrive(order = relaxed)\n"
                       "cluster_wait()",
                       "cluster(dynamic)"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  auto &b = c->module->kernels[0]->body;
  CallExpr *f0 = callAt(b, 0), *f1 = callAt(b, 1);
  CHECK(f0->builtin == Builtin::Fence);
  CHECK_FALSE(f0->orderGiven); // open: tile-sync-semantics decides acq_rel.gpu
  CHECK_FALSE(f0->scopeGiven);
  CHECK(f1->order == MemOrder::Sc);
  CHECK(f1->scope == MemScope::Cluster);
  CHECK(f1->orderGiven);
  CHECK(f1->scopeGiven);
  CHECK(callAt(b, 2)->builtin == Builtin::FenceProxyAsync);
  CHECK(callAt(b, 3)->builtin == Builtin::FenceMBarrierInit);
  CallExpr *ca = callAt(b, 4), *car = callAt(b, 5), *cw = callAt(b, 6);
  CHECK(ca->builtin == Builtin::ClusterArrive);
  CHECK_FALSE(ca->orderGiven); // open: tile-sync-semantics decides release
  CHECK(car->order == MemOrder::Relaxed);
  CHECK(car->orderGiven);
  CHECK(cw->builtin == Builtin::ClusterWait);
  for (size_t i = 0; i < b.size(); ++i)
    CHECK(callAt(b, i)->type.kind == Type::Void);
}

TEST_CASE("mbarrier: `mbarrier` stays an ordinary name elsewhere", "[parser][mbarrier]") {
  auto c =
      compile("kernel k(mbarrier: ptr<i32, global>) { let x = mbarrier[0]\n mbarrier[1] = x }");
  INFO(c->rendered());
  CHECK(c->ok);
  auto d = compile(inKernel("mbarrier(1)"));
  CHECK(d->firstError() == "unknown function 'mbarrier'");
  CHECK(d->first()->hint.find("let b = mbarrier(COUNT)") != std::string::npos);
}

TEST_CASE("mbarrier: every new error reports message, location and a hint", "[sema][mbarrier]") {
  struct Case {
    const char *body;
    const char *attrs;
    const char *message;
    int line, col; // body starts at line 2
  };
  Case cases[] = {
      // declarations (syntax)
      {"var b = mbarrier(1)", "", "mbarriers must be declared with 'let'", 2, 1},
      {"let b: i64 = mbarrier(1)", "", "an mbarrier declaration takes no type annotation", 2, 8},
      {"let b = mbarrier[65](1)", "", "mbarrier array size 65 is out of range (1 to 64)", 2, 18},
      {"let b = mbarrier[0](1)", "", "mbarrier array size 0 is out of range (1 to 64)", 2, 18},
      {"let b = mbarrier[n](1)", "", "mbarrier array size must be an integer constant from 1 to 64",
       2, 18},
      // declarations (sema)
      {"if true { let b = mbarrier(1) }", "",
       "mbarriers must be declared at the top level of the kernel body", 2, 11},
      {"let b = mbarrier(0)", "", "mbarrier count 0 is out of range (1 to 1048575)", 2, 18},
      {"let b = mbarrier(1 << 20)", "", "mbarrier count 1048576 is out of range (1 to 1048575)", 2,
       20},
      {"let b = mbarrier(m)", "", "mbarrier count has type i64, expected i32", 2, 18},
      {"let c = 2\nlet b = mbarrier(c)", "",
       "mbarrier count must be built from constants and kernel parameters: 'c' is a let, not a "
       "kernel parameter",
       3, 18},
      {"let a = shared<f32>[58110]\nlet b = mbarrier[2](1)", "",
       "static shared memory of kernel 'k' reaches 232464 bytes, over the per-block limit of "
       "232448 bytes (227 KB)",
       3, 1},
      // mbarrier operands
      {"let b = mbarrier(1)\nlet c = b", "", "an mbarrier cannot be bound to another name", 3, 9},
      {"let b = mbarrier(1)\nvar c = remote(b, 1)", "cluster(2)",
       "an mbarrier cannot be bound to another name", 3, 9},
      {"let s = mbarrier[4](1)\narrive(s)", "", "arrive() needs an mbarrier, found mbarrier[4]", 3,
       8},
      {"arrive(n)", "", "arrive() needs an mbarrier, found i32", 2, 8},
      {"let s = mbarrier[4](1)\narrive(s[4])", "", "index 4 is out of bounds for mbarrier[4]", 3,
       10},
      {"let s = mbarrier[4](1)\narrive(s[1.0])", "", "index must be an integer, found f32", 3, 10},
      {"let b = mbarrier(1)\narrive(b[0])", "", "cannot index a value of type mbarrier", 3, 9},
      {"let s = mbarrier[4](1)\narrive(remote(s, 1))", "cluster(2)",
       "remote() takes one mbarrier, not an mbarrier array", 3, 15},
      {"let b = mbarrier(1)\narrive(remote(remote(b, 1), 0))", "cluster(2)",
       "remote() needs this CTA's mbarrier, found a remote one", 3, 15},
      {"let b = mbarrier(1)\narrive(remote(b, 2))", "cluster(2)",
       "CTA rank 2 is outside the cluster of 2 CTAs", 3, 18},
      {"let b = mbarrier(1)\narrive(remote(b, 1))", "",
       "remote() needs a kernel with a cluster attribute", 3, 8},
      {"let s = mbarrier[2](1)\nlet x = load(s[0])", "", "load cannot access an mbarrier", 3, 15},
      {"let b = mbarrier(1)\nb = 1", "", "cannot assign to 'b': it is an mbarrier", 3, 1},
      // mbarrier builtins
      {"let b = mbarrier(1)\narrive(b)\nwait(remote(b, 1))", "cluster(2)",
       "wait() needs this CTA's mbarrier, not a remote one", 4, 6},
      {"let b = mbarrier(1)\narrive_expect_tx(remote(b, 1), 4)", "cluster(2)",
       "arrive_expect_tx() needs this CTA's mbarrier, not a remote one", 3, 18},
      {"let b = mbarrier(1)\nexpect_tx(remote(b, 1), 4)", "cluster(2)",
       "expect_tx() needs this CTA's mbarrier, not a remote one", 3, 11},
      {"let b = mbarrier(1)\narrive(b, order = acquire)", "",
       "order 'acquire' is not valid for arrive", 3, 19},
      {"let b = mbarrier(1)\narrive(b)\nwait(b, order = release)", "",
       "order 'release' is not valid for wait", 4, 17},
      {"let b = mbarrier(1)\narrive(b, scope = gpu)", "", "scope 'gpu' is not valid for arrive", 3,
       19},
      {"let b = mbarrier(1)\narrive(remote(b, 1), scope = cta)", "cluster(2)",
       "scope 'cta' does not cover cluster shared memory", 3, 30},
      {"let b = mbarrier(1)\nexpect_tx(b, 4, order = relaxed)", "",
       "'expect_tx' takes no 'order' argument", 3, 17},
      {"let b = mbarrier(1)\narrive(b, count = two)", "", "unknown named argument 'count'", 3, 11},
      {"let b = mbarrier(1)\narrive(b, 2)", "", "'arrive' takes 1 argument, got 2", 3, 1},
      {"let b = mbarrier(1)\nexpect_tx(b, -1)", "",
       "transaction byte count -1 is out of range (0 to 1048575)", 3, 14},
      {"let b = mbarrier(1)\nexpect_tx(b, 1 << 20)", "",
       "transaction byte count 1048576 is out of range (0 to 1048575)", 3, 16},
      {"let b = mbarrier(1)\narrive_expect_tx(b, m)", "",
       "byte count of arrive_expect_tx has type i64, expected i32", 3, 21},
      // store_async and vector literals
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], 1, remote(b, 1))",
       "", "store_async() needs a kernel with a cluster attribute", 4, 1},
      {"let b = mbarrier(1)\nstore_async(n, 1, remote(b, 1))", "cluster(2)",
       "the first argument of store_async must be an element access like `remote(a, r)[i]`", 3, 13},
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(a[0], 1, remote(b, 1))",
       "cluster(2)",
       "store_async writes to another CTA's shared memory, found an element in shared memory", 4,
       14},
      {"let a = shared<i16>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], 1, remote(b, 1))",
       "cluster(2)", "store_async does not support elements of type i16", 4, 25},
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], {1, 2, 3}, "
       "remote(b, 1))",
       "cluster(2)", "store_async of i32 elements takes 1, 2 or 4 values, found 3", 4, 30},
      {"let a = shared<i64>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], {1, 2, 3, 4}, "
       "remote(b, 1))",
       "cluster(2)", "store_async of i64 elements takes 1 or 2 values, found 4", 4, 30},
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], {1, m}, "
       "remote(b, 1))",
       "cluster(2)", "value 2 of store_async has type i64, expected i32", 4, 34},
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], m, remote(b, 1))",
       "cluster(2)", "value of store_async has type i64, expected i32", 4, 30},
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], 1, b)",
       "cluster(2)", "store_async() needs a remote mbarrier, found mbarrier", 4, 33},
      {"let a = shared<i32>[4]\nstore_async(remote(a, 1)[0], 1, remote(a, 1))", "cluster(2)",
       "store_async() needs an mbarrier, found view<i32, cluster>[4]", 3, 33},
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, 1)[0], 1, remote(b, 1), "
       "order = relaxed)",
       "cluster(2)", "'store_async' takes no named arguments", 4, 47},
      // vector literals outside store_async are vec<T, N> values (SemaVector.cpp)
      {"let v = {1, 2, 3}", "", "no vector of 3 i32 elements (12 bytes)", 2, 9},
      // fences and cluster barriers
      {"fence(order = release)", "", "order 'release' is not valid for fence", 2, 15},
      {"fence(scope = device)", "", "unknown memory scope 'device'", 2, 15},
      {"fence(1)", "", "'fence' takes 0 arguments, got 1", 2, 1},
      {"fence_proxy_async(scope = cta)", "", "'fence_proxy_async' takes no named arguments", 2, 19},
      {"cluster_arrive(order = acquire)", "cluster(2)",
       "order 'acquire' is not valid for cluster_arrive", 2, 24},
      {"cluster_arrive(scope = cluster)", "cluster(2)",
       "'cluster_arrive' takes no 'scope' argument", 2, 16},
      {"cluster_arrive()", "", "cluster_arrive() needs a kernel with a cluster attribute", 2, 1},
      {"cluster_wait()", "", "cluster_wait() needs a kernel with a cluster attribute", 2, 1},
      // static sync checks
      {"let b = mbarrier(1)\nwait(b)", "",
       "wait() on 'b' never completes: nothing in kernel 'k' arrives on it", 3, 1},
      {"let s = mbarrier[2](1)\nexpect_tx(s[0], 4)\nwait(s[1])", "",
       "wait() on 's' never completes: nothing in kernel 'k' arrives on it", 4, 1},
      {"let a = shared<i32>[4]\nlet b = mbarrier(1)\narrive_expect_tx(b, 32)\n"
       "if thread_id() == 0 { store_async(remote(a, cluster_rank() ^ 1)[0], {1, 2, 3, 4}, "
       "remote(b, cluster_rank() ^ 1)) }\nwait(b)",
       "cluster(2)",
       "expect_tx of 32 bytes on 'b', but the store_async calls on it deliver 16 bytes", 4, 21},
  };
  for (const Case &se : cases) {
    std::string src = inKernel(se.body, se.attrs);
    INFO(src);
    auto c = compile(src);
    INFO(c->rendered());
    CHECK_FALSE(c->ok);
    const Diagnostic *d = c->first();
    REQUIRE(d);
    CHECK(d->message == se.message);
    CHECK(d->loc.line == se.line);
    CHECK(d->loc.col == se.col);
    CHECK_FALSE(d->hint.empty());
  }
}

TEST_CASE("mbarrier: wait needs an arrival somewhere in the kernel", "[sema][mbarrier][sync]") {
  const char *ok[] = {
      "let b = mbarrier(1)\nwait(b)\narrive(b)",              // arrival after the wait (loops)
      "let b = mbarrier(1)\nif n > 0 { arrive(b) }\nwait(b)", // any block
      "let b = mbarrier(1)\narrive_expect_tx(b, 0)\nwait(b)",
      "let b = mbarrier(1)\narrive(remote(b, cluster_rank() ^ 1))\nwait(b)", // a remote arrival
                                                                             // reaching every CTA
      "let a = shared<i32>[4]\nlet b = mbarrier(1)\nlet p = cluster_rank() ^ 1\n"
      "store_async(remote(a, p)[0], 1, remote(b, p))\narrive_expect_tx(b, 4)\nwait(b)",
      "let s = mbarrier[4](1)\narrive(s[3])\nwait(s[3])", // the element waited on
      "let s = mbarrier[4](1)\narrive(s[n % 4])\nwait(s[3])", // an element that may be any
  };
  for (const char *body : ok) {
    auto c = compile(inKernel(body, "cluster(2)"));
    INFO(body);
    INFO(c->rendered());
    CHECK(c->ok);
  }
  // an arrival on another constant element does not complete the wait
  auto other = compile(inKernel("let s = mbarrier[4](1)\narrive(s[0])\nwait(s[3])", "cluster(2)"));
  CHECK(other->firstError() ==
        "wait() on 's[3]' never completes in CTA rank 0: no arrive on that CTA's 's[3]' can run");
  CHECK(other->diags.numErrors() == 1);
  // expect_tx alone does not arrive
  auto c = compile(inKernel("let b = mbarrier(1)\nexpect_tx(b, 4)\nwait(b)", "cluster(2)"));
  CHECK(c->firstError() == "wait() on 'b' never completes: nothing in kernel 'k' arrives on it");
  CHECK(c->diags.numErrors() == 1);
  // store_async completes bytes but never arrives; a remote arrival only
  // reaches its target CTA
  auto e = compile(inKernel("let a = shared<i32>[4]\nlet b = mbarrier(1)\n"
                            "store_async(remote(a, 1)[0], 1, remote(b, 1))\nwait(b)",
                            "cluster(2)"));
  CHECK(e->firstError() ==
        "wait() on 'b' never completes in CTA rank 0: no arrive on that CTA's 'b' can run "
        "(store_async completes bytes but does not arrive)");
  auto f = compile(inKernel("let b = mbarrier(1)\narrive(remote(b, 1))\nwait(b)", "cluster(2)"));
  CHECK(f->firstError() ==
        "wait() on 'b' never completes in CTA rank 0: no arrive on that CTA's 'b' can run");
  // only the first wait is reported
  auto d = compile(inKernel("let b = mbarrier(1)\nwait(b)\nwait(b)"));
  CHECK(d->diags.numErrors() == 1);
}

TEST_CASE("mbarrier: expect_tx bytes against the store_async sizes", "[sema][mbarrier][sync]") {
  auto check = [](const std::string &body) { return compile(inKernel(body, "cluster(2)")); };
  // One thread of each CTA stores into the other CTA (p1): each phase
  // receives every statement's bytes once, so the check applies.
  std::string decl = "let a = shared<i32>[8]\nlet w = shared<i64>[8]\nlet b = mbarrier(1)\n"
                     "let p1 = cluster_rank() ^ 1\n";
  SECTION("one store_async: its size, wherever it is") {
    auto c = check(decl + "arrive_expect_tx(b, 16)\nif n > 0 { store_async(remote(a, 1)[0], {1, 2, "
                          "3, 4}, remote(b, 1)) }\nwait(b)");
    INFO(c->rendered());
    CHECK(c->ok);
  }
  SECTION("several in one block: the sum") {
    auto c = check(
        decl + "expect_tx(b, 12)\narrive(b)\nif thread_id() == 0 {\nstore_async(remote(a, p1)[0], {1, "
               "2}, remote(b, p1))\nstore_async(remote(w, p1)[0], 5, remote(b, p1)) }\nwait(b)");
    INFO(c->rendered());
    CHECK_FALSE(c->ok);
    CHECK(c->firstError() ==
          "expect_tx of 12 bytes on 'b', but the store_async calls on it deliver 16 bytes");
    // one note per store_async, both the error's
    size_t notes = 0;
    for (auto &dg : c->diags.diagnostics())
      for (auto &note : dg.notes)
        notes += note.kind == Diagnostic::Note;
    CHECK(notes == 2);
    auto ok = check(
        decl + "expect_tx(b, 16)\narrive(b)\nif thread_id() == 0 {\nstore_async(remote(a, p1)[0], {1, "
               "2}, remote(b, p1))\nstore_async(remote(w, p1)[0], 5, remote(b, p1)) }\nwait(b)");
    CHECK(ok->ok);
  }
  SECTION("several in different blocks: not checked") {
    auto c =
        check(decl +
              "arrive_expect_tx(b, 4)\nif n > 0 { store_async(remote(a, 1)[0], 1, remote(b, 1)) }\n"
              "else { store_async(remote(w, 1)[0], 1, remote(b, 1)) }\nwait(b)");
    INFO(c->rendered());
    CHECK(c->ok);
  }
  SECTION("a byte count that is not constant: not checked") {
    auto c = check(
        decl + "arrive_expect_tx(b, n)\nstore_async(remote(a, 1)[0], 1, remote(b, 1))\nwait(b)");
    CHECK(c->ok);
  }
  SECTION("no store_async: not checked (the bytes may come from elsewhere)") {
    auto c = check(decl + "arrive_expect_tx(b, 4096)\nwait(b)");
    CHECK(c->ok);
  }
  SECTION("arrays: only the same element counts; unknown indices are not checked") {
    std::string s = "let a = shared<i32>[8]\nlet s = mbarrier[2](1)\nlet i = thread_id()\n"
                    "let p1 = cluster_rank() ^ 1\n";
    auto same = check(s + "arrive_expect_tx(s[0], 4)\nif thread_id() == 0 { "
                          "store_async(remote(a, p1)[0], {1, 2}, remote(s[0], p1)) }\nwait(s[0])");
    CHECK(same.get()->firstError() ==
          "expect_tx of 4 bytes on 's', but the store_async calls on it deliver 8 bytes");
    auto other = check(s + "arrive_expect_tx(s[1], 4)\nstore_async(remote(a, 1)[0], {1, 2}, "
                           "remote(s[0], 1))\nwait(s[1])");
    CHECK(other->ok);
    auto var = check(s + "arrive_expect_tx(s[i], 8)\nstore_async(remote(a, 1)[0], {1, 2}, "
                         "remote(s[i], 1))\nwait(s[i])");
    CHECK(var->ok);
    auto varBad = check(s + "arrive_expect_tx(s[i], 4)\nif thread_id() == 0 { "
                            "store_async(remote(a, p1)[0], {1, 2}, remote(s[i], p1)) }\nwait(s[i])");
    CHECK_FALSE(varBad->ok);
    auto unknown = check(s + "arrive_expect_tx(s[0], 4)\nstore_async(remote(a, 1)[0], {1, 2}, "
                             "remote(s[i], 1))\nwait(s[0])");
    CHECK(unknown->ok);
  }
}

TEST_CASE("mbarrier: shared memory accounting", "[sema][mbarrier]") {
  auto c = compile(inKernel("let b = mbarrier(1)\nlet x = shared<i8>[3]\nlet s = "
                            "mbarrier[3](1)\nlet y = shared<i32>[n]"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  auto &k = *c->module->kernels[0];
  // b at 0 (8), x at 16 (3), s at 32 (24); y is dynamic
  CHECK(k.staticSharedBytes == 56);
  CHECK(k.sharedArrays.size() == 2);
  CHECK(k.mbarriers.size() == 2);
  CHECK(k.mbarriers[1]->index == 1);
  auto limit = compile(inKernel("let a = shared<i8>[232432]\nlet b = mbarrier[2](1)"));
  CHECK(limit->ok); // 232432 + 16 == 232448
}

TEST_CASE("mbarrier: errors do not cascade", "[sema][mbarrier]") {
  SECTION("a bad mbarrier operand") {
    auto c = compile(inKernel("let s = mbarrier[4](1)\narrive(s)\nwait(s[0])"));
    CHECK(c->diags.numErrors() == 1);
  }
  SECTION("a bad count keeps the mbarrier usable") {
    auto c = compile(inKernel("let b = mbarrier(0)\narrive(b)\nwait(b)"));
    CHECK(c->diags.numErrors() == 1);
  }
  SECTION("an unknown name inside a vector literal") {
    auto c = compile(inKernel("let a = shared<i32>[4]\nlet b = mbarrier(1)\nstore_async(remote(a, "
                              "1)[0], {1, y}, remote(b, 1))",
                              "cluster(2)"));
    CHECK(c->diags.numErrors() == 1);
    CHECK(c->firstError() == "unknown name 'y'");
  }
  SECTION("a store_async with a bad destination still counts as an arrival") {
    auto c = compile(
        inKernel("let b = mbarrier(1)\nstore_async(n, 1, remote(b, 1))\nwait(b)", "cluster(2)"));
    CHECK(c->diags.numErrors() == 1);
  }
}
