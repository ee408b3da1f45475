/* Copyright synetk authors. SPDX-License-Identifier: MIT
 * A stand-in for the Simd Library's public header, for the test that
 * synetk/simd.h and Simd's header live in one translation unit. It holds
 * only what that test needs, declared as Simd's header declares it: the
 * include guard, the three enum types (C-style typedefs of unnamed enums,
 * with Simd's enumerator names and values) and two of its C functions, never
 * called. With -Dsimd_dir set, the same test also builds against Simd's real
 * header. */
#ifndef __SimdLib_h__
#define __SimdLib_h__

#include <stddef.h>
#include <stdint.h>

typedef enum {
  SimdFalse = 0,
  SimdTrue = 1,
} SimdBool;

typedef enum {
  SimdTensorFormatUnknown = -1,
  SimdTensorFormatNchw,
  SimdTensorFormatNhwc,
} SimdTensorFormatType;

typedef enum {
  SimdTensorDataUnknown = -1,
  SimdTensorData32f,
  SimdTensorData32i,
  SimdTensorData8i,
  SimdTensorData8u,
  SimdTensorData64i,
  SimdTensorData64u,
  SimdTensorDataBool,
  SimdTensorData16b,
  SimdTensorData16f,
} SimdTensorDataType;

#ifdef __cplusplus
extern "C" {
#endif

void SimdRelease(void* context);

void SimdSynetPoolingMax32f(const float* src, size_t srcC, size_t srcH, size_t srcW,
                            size_t kernelC, size_t kernelY, size_t kernelX, size_t strideC,
                            size_t strideY, size_t strideX, size_t padC, size_t padY,
                            size_t padX, float* dst, size_t dstC, size_t dstH, size_t dstW,
                            SimdTensorFormatType format);

#ifdef __cplusplus
}
#endif

#endif /* __SimdLib_h__ */
