"""The few CUDA driver calls tools/semfuzz's GPU mode needs, through ctypes
(no build step, no Python packages): load PTX, allocate, copy, launch.
Every return code is checked."""
import ctypes


class CudaError(RuntimeError):
    pass


class Device:
    def __init__(self, lib):
        self.lib = lib
        self.ctx = ctypes.c_void_p()

    def check(self, rc, what):
        if rc != 0:
            msg = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(msg))
            raise CudaError('%s failed: %d %s' % (what, rc, msg.value.decode() if msg.value else ''))

    @staticmethod
    def open():
        """The first device, or None when there is no driver or device."""
        try:
            lib = ctypes.CDLL('libcuda.so.1')
        except OSError:
            return None
        if lib.cuInit(0) != 0:
            return None
        count = ctypes.c_int()
        if lib.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
            return None
        d = Device(lib)
        dev = ctypes.c_int()
        d.check(lib.cuDeviceGet(ctypes.byref(dev), 0), 'cuDeviceGet')
        d.check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(d.ctx), dev), 'cuDevicePrimaryCtxRetain')
        d.check(lib.cuCtxSetCurrent(d.ctx), 'cuCtxSetCurrent')
        return d

    def load(self, ptx):
        mod = ctypes.c_void_p()
        data = ctypes.create_string_buffer(ptx.encode())
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), data), 'cuModuleLoadData')
        return Module(self, mod)

    def alloc(self, size):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(size, 1))), 'cuMemAlloc')
        self.check(self.lib.cuMemsetD8_v2(p, ctypes.c_ubyte(0xa5), ctypes.c_size_t(max(size, 1))),
                   'cuMemsetD8')
        return p

    def free(self, p):
        self.check(self.lib.cuMemFree_v2(p), 'cuMemFree')

    def upload(self, data):
        p = self.alloc(len(data))
        self.check(self.lib.cuMemcpyHtoD_v2(p, ctypes.c_char_p(data), ctypes.c_size_t(len(data))),
                   'cuMemcpyHtoD')
        return p

    def download(self, p, size):
        buf = ctypes.create_string_buffer(size)
        self.check(self.lib.cuMemcpyDtoH_v2(buf, p, ctypes.c_size_t(size)), 'cuMemcpyDtoH')
        return buf.raw

    def launch(self, fn, blocks, threads, ptrs, n):
        args = [ctypes.c_uint64(p.value) for p in ptrs] + [ctypes.c_int32(n)]
        argv = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.byref(a), ctypes.c_void_p) for a in args])
        self.check(self.lib.cuLaunchKernel(fn, ctypes.c_uint(blocks), 1, 1, ctypes.c_uint(threads), 1, 1,
                                           0, None, argv, None), 'cuLaunchKernel')
        self.check(self.lib.cuCtxSynchronize(), 'cuCtxSynchronize')


class Module:
    def __init__(self, dev, mod):
        self.dev, self.mod = dev, mod

    def function(self, name):
        f = ctypes.c_void_p()
        self.dev.check(self.dev.lib.cuModuleGetFunction(ctypes.byref(f), self.mod, name.encode()),
                       'cuModuleGetFunction(%s)' % name)
        return f


# cuTensorMapEncodeTiled's data types (cuda.h CUtensorMapDataType)
TMAP_TYPE = {'u8': 0, 'e4m3': 0, 'e5m2': 0, 'f16': 6, 'f32': 7, 'bf16': 9}


class TensorMap:
    """A 128-byte CUtensorMap, 64-byte aligned in host memory."""

    def __init__(self, dev, dtype, addr, dims, elem_size, box, swizzle_bytes):
        self.raw = ctypes.create_string_buffer(128 + 64)
        self.addr = (ctypes.addressof(self.raw) + 63) // 64 * 64
        rank = len(dims)
        u64, u32 = ctypes.c_uint64, ctypes.c_uint32
        gdim = (u64 * rank)(*dims)                      # innermost first
        stride, acc = [], elem_size
        for d in dims[:-1]:
            acc *= d
            stride.append(acc)
        gstr = (u64 * max(rank - 1, 1))(*(stride or [0]))
        bdim = (u32 * rank)(*box)
        estr = (u32 * rank)(*([1] * rank))
        swz = {0: 0, 32: 1, 64: 2, 128: 3}[swizzle_bytes]
        fn = dev.lib.cuTensorMapEncodeTiled
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int]
        dev.check(fn(self.addr, TMAP_TYPE[dtype], rank, addr.value, gdim, gstr, bdim, estr, 0, swz, 2, 0),
                  'cuTensorMapEncodeTiled(%s %s box %s swizzle %d)' % (dtype, dims, list(box), swizzle_bytes))


def launch_args(dev, fn, blocks, threads, args):
    """cuLaunchKernel with ctypes argument objects (a TensorMap passes its
    128 bytes by value) and synchronise."""
    ptrs = []
    for a in args:
        ptrs.append(ctypes.c_void_p(a.addr) if isinstance(a, TensorMap)
                    else ctypes.cast(ctypes.byref(a), ctypes.c_void_p))
    argv = (ctypes.c_void_p * len(ptrs))(*[p.value for p in ptrs])
    dev.check(dev.lib.cuLaunchKernel(fn, ctypes.c_uint(blocks), 1, 1, ctypes.c_uint(threads), 1, 1,
                                     0, None, argv, None), 'cuLaunchKernel')
    dev.check(dev.lib.cuCtxSynchronize(), 'cuCtxSynchronize')
