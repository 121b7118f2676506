"""tilec.ops.linear's fused activations without a GPU (ctest
python.fakedriver): each name is the GEMM kernels' compile-time parameter ACT
(the instance launched, its plan), an unknown name or a non-name is refused
before anything runs, naming the nearest, and the reference math the GPU
tests compare with is torch's definitions (erf GELU, tanh GELU, SiLU, ReLU)
at known values and at the edges (NaN, infinities, signed zero)."""

import math
import re

import pytest

import tilec
import tilec.ops as ops
from tilec import _ops_kernels
from test_fake_driver import last_kernel, probe  # noqa: F401
from test_fake_linear import bias_args, recorded
from test_fake_driver import fresh_cache  # noqa: F401  (the fixture)

CODES = {None: 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}


@pytest.fixture(autouse=True)
def fresh_kernels():
    _ops_kernels._kernels.clear()
    _ops_kernels._modules.clear()
    _ops_kernels._clusters.clear()
    ops._linear_calls.clear()
    yield


def arr(shape, dtype="f16", device=0):
    return tilec.empty(tuple(shape), dtype, device=device)


def reference(name, x):
    """torch's definition of each activation, in float64: F.relu, F.gelu
    (approximate='none': x/2 (1 + erf(x / sqrt 2))), F.gelu(approximate=
    'tanh'), F.silu (x * sigmoid(x)), evaluated as torch's kernels write
    them (so that the edges agree: gelu(-inf) is -inf * 0 = NaN there too)."""
    if name is None:
        return x
    if name == "relu":
        return x if math.isnan(x) or x > 0 else 0.0
    if name == "gelu":
        return x * 0.5 * (1.0 + math.erf(x * math.sqrt(0.5)))
    if name == "gelu_tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x) if math.isfinite(x) else x
        return 0.5 * x * (1.0 + math.tanh(inner))
    if name == "silu":
        e = math.exp(-x) if x > -700 else math.inf
        return x / (1.0 + e)
    raise ValueError(name)


# Each activation at -1 and 1 from the constants that define it: the
# normal CDF (Phi(1) = 0.8413447460685429), the logistic function (sigmoid(1)
# = 0.7310585786300049) and the tanh form's value at 1, 0.8411919906082768.
KNOWN = {
    "relu": (0.0, 1.0),
    "gelu": (-0.15865525393145707, 0.8413447460685429),        # -Phi(-1), Phi(1)
    "gelu_tanh": (-0.15880800939172324, 0.8411919906082768),
    "silu": (-0.2689414213699951, 0.7310585786300049),         # -sigmoid(-1), sigmoid(1)
}


@pytest.mark.parametrize("name", list(KNOWN))
def test_the_reference_math_is_torchs_definition(name):
    for x, want in zip((-1.0, 1.0), KNOWN[name]):
        assert reference(name, x) == pytest.approx(want, rel=1e-15, abs=1e-16)
    # Each is x * g(x) with g(x) + g(-x) = 1: act(x) - act(-x) = x.
    for x in (0.25, 1.5, 4.0, 30.0):
        assert reference(name, x) - reference(name, -x) == pytest.approx(x, rel=1e-12)
    assert reference(name, 0.0) == 0.0
    assert reference(name, 1e4) == 1e4  # each is the identity far right
    assert abs(reference(name, -1e4)) < 1e-300  # and 0 far left
    assert math.isnan(reference(name, math.nan))
    assert reference(name, math.inf) == math.inf


@pytest.mark.parametrize("m", [16, 4096])  # the skinny (decode) and the persistent GEMM
def test_each_activation_is_the_kernels_compile_time_parameter(m):
    """linear(..., activation=name) launches the instance the plan names,
    with ACT = the name's code, one launch (the bias and the activation in
    its epilogue), the bias where a call without an activation has it."""
    probe()
    x, w, b = arr((m, 256)), arr((512, 256)), arr((512,))
    names = list(CODES) if m == 16 else [None, "gelu"]
    for name in names:
        plan = ops.plan_linear(x, w, b, activation=name)
        assert plan["activation"] == name
        assert dict(plan["args"])["ACT"] == CODES[name]
        assert plan["define"].endswith(f", {CODES[name]}>")
        recorded(plan["kernel"])
        n0 = probe().probe_launch_count()
        y = ops.linear(x, w, b, activation=name)
        assert probe().probe_launch_count() == n0 + 1
        assert y.shape == (m, 512)
        assert last_kernel().startswith(plan["kernel"] + "$Tf16")
        assert last_kernel().endswith(f"$ACT{CODES[name]}")
        assert bias_args(plan["kernel"]) == (b.ptr, 512)
    # Each activation is its own function of the call's key.
    assert len(ops._linear_calls) == len(names)
    ops.linear(x, w, b, activation=names[-1])
    assert len(ops._linear_calls) == len(names)


def test_an_unknown_activation_is_refused_naming_the_nearest():
    probe()
    x, w = arr((16, 64)), arr((128, 64))
    n0 = probe().probe_launch_count()
    for given, near in (("gleu", "'gelu'"), ("Relu", "'relu'"), ("gelu-tanh", "'gelu_tanh'"),
                        ("swish", None), ("sigmoid", None)):
        pattern = (r"tilec.ops.linear: unknown activation '" + given + r"' \(the GEMM's "
                   r"epilogue has 'relu', 'gelu', 'gelu_tanh', 'silu'\)")
        if near:
            pattern += r".*did you mean " + near
        with pytest.raises(ops.OpArgumentError, match=pattern):
            ops.linear(x, w, activation=given)
        with pytest.raises(ops.OpArgumentError, match=pattern):
            ops.plan_linear(x, w, activation=given)
    for given in (1, ["gelu"], len):
        with pytest.raises(ops.OpTypeError, match=r"activation must be None or one of 'relu', "
                                                  r"'gelu', 'gelu_tanh', 'silu', not"):
            ops.linear(x, w, activation=given)
    with pytest.raises(ops.OpArgumentError, match="unknown activation"):
        ops.linear(x, w, None, "tanh")  # positional, as F.linear's order allows
    assert probe().probe_launch_count() == n0  # nothing ran
    assert not ops._linear_calls  # and nothing was remembered


def test_prebuilt_activation_instances_come_from_a_folder_list(monkeypatch, tmp_path):
    """A machine without tilec (a GPU bundle's ptx/ops): the instance that
    tools/scripts/ops_ptx.py prebuilt is taken from the second folder of
    $TILEC_OPS_PTX_DIR (os.pathsep-separated), the first having no such
    file; with the folder gone, the call names the folders it tried."""
    import os
    import subprocess
    import sys
    from tilec import _build_config
    root, tilec_bin = _build_config.SOURCE_DIR, _build_config.TILEC_EXECUTABLE
    empty, prebuilt = tmp_path / "empty", tmp_path / "ops"
    empty.mkdir()
    probe()
    subprocess.run([sys.executable, os.path.join(root, "tools", "scripts", "ops_ptx.py"),
                    str(prebuilt), "f16:4096x512x256:gelu", "--tilec", tilec_bin,
                    "--sms", str(_ops_kernels.sm_count(0))], check=True, capture_output=True)
    monkeypatch.setenv("TILEC_OPS_PTX_DIR", os.pathsep.join([str(empty), str(prebuilt)]))
    monkeypatch.delenv("TILEC_PTX_DIR", raising=False)
    monkeypatch.setattr(_build_config, "SAMPLE_PTX_DIR", str(empty), raising=False)
    monkeypatch.setenv("TILEC", str(tmp_path / "no-tilec"))  # nothing compiles
    x, w = arr((4096, 256)), arr((512, 256))
    plan = ops.plan_linear(x, w, activation="gelu")
    assert (prebuilt / plan["ptx"]).exists()
    ops.linear(x, w, activation="gelu")
    assert last_kernel().startswith(plan["kernel"] + "$Tf16") and last_kernel().endswith("$ACT2")
    # silu's instance is in no folder: refused, naming where it looked.
    silu = ops.plan_linear(x, w, activation="silu")["define"]
    with pytest.raises(tilec.Error, match=re.escape(f"kernel {silu} is in no prebuilt PTX "
                                                    f"({plan['ptx']}: {prebuilt / plan['ptx']})")):
        ops.linear(x, w, activation="silu")


def test_ops_ptx_all_lists_every_instance_linear_picks():
    """tools/scripts/ops_ptx.py --all (what a GPU bundle carries in
    ptx/ops) lists the instance each activation's plan names, in the PTX
    file the plan loads it from: at the GPU tests' shapes and at 4,000
    shapes drawn at random (seeded), in both dtypes, on 132 SMs."""
    import os
    import random
    import subprocess
    import sys
    from tilec import _build_config, _tilec
    out = subprocess.run([sys.executable, os.path.join(_build_config.SOURCE_DIR, "tools",
                                                       "scripts", "ops_ptx.py"),
                          "unused", "--all", "--list", "--sms", "132"],
                         check=True, capture_output=True, text=True).stdout
    listed = {}
    for line in out.splitlines():
        ptx, defines = line.split(": ", 1)
        listed[ptx] = set(defines.split("; "))
    assert sum(map(len, listed.values())) == 2 * 4 * 20  # dtypes x activations x instances
    rng = random.Random(7)
    shapes = [(2048, 2048, 1024), (512, 1024, 512), (600, 3000, 512), (96, 8192, 512),
              (16, 4096, 4096), (77, 3000, 5000), (300, 264, 136), (136, 256, 14336),
              (16, 16, 64), (16, 256, 512), (300, 64, 64)]
    shapes += [(rng.choice([rng.randint(1, 300), rng.randint(1, 70000)]),
                rng.randint(1, 70000), rng.randint(1, 70000)) for _ in range(4000)]
    for dtype in ("f16", "bf16"):
        for m, n, k in shapes:
            for code in (1, 2, 3, 4):
                plan = _tilec._gemm_plan(dtype, m, n, k, True, 132, code)
                assert plan["define"] in listed.get(plan["ptx"], ()), (m, n, k, plan["define"])
