"""The conversion folder agrees with its index: every family file
(compiler/conversion/*ToNVVM.cpp, *ToLLVM.cpp) is named in TileToLLVM.h's
index and defines populate functions that TileToLLVM.h declares and
ConvertTileToLLVMPass.cpp adds; every populate function the header declares
is defined by a family."""
import pathlib
import re
import sys

compiler = pathlib.Path(sys.argv[1])
header = (compiler / "include/tilec/Conversion/TileToLLVM.h").read_text()
conversion = compiler / "conversion"
pass_text = (conversion / "ConvertTileToLLVMPass.cpp").read_text()
errors = []
defined = set()
for f in sorted(conversion.glob("*.cpp")):
    if not re.search(r"To(NVVM|LLVM)\.cpp$", f.name) or f.name == "ConvertTileToLLVMPass.cpp":
        continue
    if not re.search(r"//\s+" + re.escape(f.name) + r"\s", header):
        errors.append(f"{f.name} is not in TileToLLVM.h's index")
    names = re.findall(r"void mlir::tile::(populate\w+)\(", f.read_text())
    if not names:
        errors.append(f"{f.name} defines no populate function")
    for name in names:
        defined.add(name)
        if not re.search(r"\bvoid " + name + r"\(", header):
            errors.append(f"{name} ({f.name}) is not declared in TileToLLVM.h")
        if not re.search(r"\btile::" + name + r"\(", pass_text):
            errors.append(f"{name} ({f.name}) is not added by ConvertTileToLLVMPass.cpp")
for name in re.findall(r"\bvoid (populate\w+)\(", header):
    if name not in defined:
        errors.append(f"TileToLLVM.h declares {name}, which no family defines")
for e in errors:
    print("error: " + e)
print(f"{len(defined)} families checked" if not errors else "index out of date")
sys.exit(1 if errors else 0)
