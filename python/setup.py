"""pip install --no-build-isolation ./python (from a checkout, no network).

The extension tilec._tilec is built by the project's CMake. This setup takes
it from an existing build (TILEC_BUILD_DIR, else <checkout>/build) when that
build made it for this interpreter, else configures and builds one itself in
<checkout>/build-python (the runtime and the extension only: no MLIR needed;
TILEC_ENABLE_COMPILER=OFF) and packages that. tilec.compile then runs the
tilec executable of the build it came from, or `tilec` on PATH / $TILEC."""

import glob
import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def _built(build_dir):
    pkg = os.path.join(build_dir, "python", "tilec")
    ext = os.path.join(pkg, "_tilec" + SUFFIX)
    return pkg if os.path.exists(ext) else None


def _extension_dir():
    for d in filter(None, [os.environ.get("TILEC_BUILD_DIR"), os.path.join(ROOT, "build")]):
        pkg = _built(os.path.abspath(d))
        if pkg:
            return pkg
    build = os.path.join(ROOT, "build-python")
    cmake = shutil.which("cmake")
    if not cmake:
        raise SystemExit("tilec: no built extension for this Python and no cmake to build one "
                         "(build the project first: tools/scripts/build.sh)")
    args = [cmake, "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
            "-DTILEC_ENABLE_COMPILER=OFF", f"-DTILEC_PYTHON={sys.executable}"]
    if shutil.which("ninja"):
        args += ["-G", "Ninja"]
    subprocess.check_call(args)
    subprocess.check_call([cmake, "--build", build, "--target", "tilec_python", "-j",
                           str(os.cpu_count() or 2)])
    pkg = _built(build)
    if not pkg:
        raise SystemExit(f"tilec: the build in {build} made no _tilec{SUFFIX}")
    return pkg


class BuildPy(build_py):
    """The pure-Python files, plus the extension and _build_config.py of a CMake build."""

    def run(self):
        super().run()
        pkg = _extension_dir()
        dest = os.path.join(self.build_lib, "tilec")
        os.makedirs(dest, exist_ok=True)
        for f in glob.glob(os.path.join(pkg, "_tilec*" + SUFFIX)) + \
                glob.glob(os.path.join(pkg, "_build_config.py")):
            shutil.copy2(f, dest)


try:
    from setuptools.dist import Distribution

    class BinaryDistribution(Distribution):
        def has_ext_modules(self):
            return True  # a platform wheel: the package carries a compiled extension
except ImportError:  # pragma: no cover
    BinaryDistribution = None

setup(
    name="tilec",
    version="0.1.0",
    description="tilec from Python: compile .tile kernels and launch them on torch tensors",
    packages=["tilec"],
    package_dir={"tilec": "tilec"},
    python_requires=">=3.9",
    cmdclass={"build_py": BuildPy},
    distclass=BinaryDistribution,
    zip_safe=False,
)
