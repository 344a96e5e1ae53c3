// Portability macros shared by host and device code.
#pragma once

#if defined(__CUDACC__)
#define HOSTDEVICE __host__ __device__
#define DEVICE __device__
#define HOST __host__
#else
#define HOSTDEVICE
#define DEVICE
#define HOST
#endif

#define PD_CONCAT_IMPL(a, b) a##b
#define PD_CONCAT(a, b) PD_CONCAT_IMPL(a, b)
