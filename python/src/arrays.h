//===- arrays.h - device arrays as Python passes them (internal) -*- C++ -*-===//
//
// A launch argument for a pointer or tensor parameter is any object that
// describes device memory: a torch.Tensor (recognised by its type, read
// through its own methods: no torch headers, no import), an object with
// __cuda_array_interface__, a DLPack producer (__dlpack__), or one of the
// package's own device arrays. Each is read into an ArrayView: the address,
// the element type, the device, and for tensor parameters the extents and
// strides in elements, outermost first.
//===----------------------------------------------------------------------===//
#pragma once

#include <Python.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tile/kernel_info.h"

namespace tilec_py {

struct ArrayView {
  uint64_t ptr = 0;
  std::optional<tile::ScalarType> dtype; // nullopt: an element type tile has no name for
  std::string dtypeName;                 // as the object names it ("torch.float16", "<f2")
  int device = -1;                       // CUDA ordinal; -1 when the object does not say
  bool onHost = false;                   // a CPU tensor / host array (refused)
  std::vector<int64_t> shape;            // filled when `withShape`
  std::vector<int64_t> strides;          // in elements; empty = row-major contiguous
  bool torch = false;                    // a torch.Tensor (the current torch stream applies)
  bool contiguous = true;                // row-major without gaps (C order); when not, shape
                                         // and strides are filled for the message
  std::string error;                     // why the object could not be read ("" when it could)
};

/// What kind of object `obj` is, cached per Python type (the launch path asks
/// once per type, not once per call).
enum class ArgClass { Scalar, Torch, DeviceArray, CudaArrayInterface, DLPack, Unknown };
ArgClass classify(PyObject *obj);

/// Whether extents and strides (in elements) describe a row-major array
/// without gaps; extents of 1 may have any stride, an empty array is.
bool rowMajorContiguous(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides);

/// Reads `obj` (classified as `cls`) into `out`. `withShape`: extents and
/// strides too (tensor parameters); without it, `contiguous` says whether
/// the array is row-major without gaps (pointer parameters). Returns false
/// with out.error set when the object cannot be read; a Python exception
/// raised by the object's own methods is left set (the caller propagates it).
bool readArray(PyObject *obj, ArgClass cls, bool withShape, ArrayView &out);

/// The scalar type a dtype name stands for, across torch ("torch.float16"),
/// numpy ("float16") and the tile language ("f16"); nullopt when none.
std::optional<tile::ScalarType> scalarTypeFromAnyName(const std::string &name);
/// The names scalarTypeFromAnyName knows (without "torch."), for the error
/// that names the nearest of them.
std::vector<std::string> dtypeNames();

/// The package's own device array type (set by the module at init).
void setDeviceArrayType(PyObject *type);
/// Reads one of the package's device arrays (defined in the bindings).
bool readDeviceArray(PyObject *obj, bool withShape, ArrayView &out);

/// The current torch stream of `device` as a raw CUstream value
/// (torch._C._cuda_getCurrentRawStream, looked up once); 0 without torch.
bool currentTorchStream(int device, uint64_t &stream);

/// A stream argument: None (0), an int (a raw CUstream), an object with
/// `cuda_stream` (torch.cuda.Stream, cupy) or `__cuda_stream__` (the CUDA
/// stream protocol). False with a Python TypeError set otherwise.
bool readStream(PyObject *obj, uint64_t &stream);

} // namespace tilec_py
