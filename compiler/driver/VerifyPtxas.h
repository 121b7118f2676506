//===- VerifyPtxas.h - ptxas advisories as errors (--verify-ptxas) -*- C++ -*-===//
#ifndef TILEC_DRIVER_VERIFYPTXAS_H
#define TILEC_DRIVER_VERIFYPTXAS_H

#include "tilec/Compiler.h"
#include "tilec/frontend/AST.h"
#include "tilec/frontend/Diagnostics.h"

#include <string>

namespace tile::driver {

/// Runs `ptxas -v` (options.ptxasPath, else /usr/local/cuda/bin/ptxas, else
/// PATH) on the module's PTX and reports the advisories of
/// tile/ptxas_advisory.h as errors at the kernel's source location (a
/// dropped setmaxnreg at its warpgroups block). Without ptxas: a warning
/// when none was named, an error when options.ptxasPath names a missing one.
/// Spills are warnings, as in checkWithPtxas.
/// Returns false after an error.
bool verifyWithPtxas(const std::string &ptx, const CompileOptions &options,
                     const frontend::ModuleAST &ast, frontend::DiagnosticEngine &diags);

/// The default check (CompileOptions::checkWgmma) of a module with wgmma or
/// a local array: serialised-wgmma advisories as errors (without a ptxas, a
/// warning when the module has wgmma), and a warning for each kernel ptxas
/// spills registers of (a local array is meant to live in registers).
/// Returns false after an error.
bool checkWithPtxas(const std::string &ptx, const CompileOptions &options,
                    const frontend::ModuleAST &ast, frontend::DiagnosticEngine &diags);

} // namespace tile::driver

#endif
