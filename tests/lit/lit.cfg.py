# lit configuration for tilec: one folder per compiler stage.
import os
import shutil
import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".tile", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.tilec_obj_root

path = os.pathsep.join([config.tilec_tools_dir, config.filecheck_dir, config.environment.get("PATH", "")])
config.environment["PATH"] = path
config.substitutions.append(("%ptxas", config.ptxas))
if os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
# Memory-checked runs of tilec (tests that catch reads of uninitialised memory);
# valgrind cannot run an ASan-instrumented tilec (sanitize.sh's build), where
# ASan + UBSan check the same class instead.
if shutil.which("valgrind") and not getattr(config, "tilec_sanitized", False):
    config.available_features.add("valgrind")
