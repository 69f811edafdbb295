/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STREAM's four kernels, vectorized per instruction set and chosen at run time. */
#include "config.h"

#include <stddef.h>

#include "kernels.h"

/*
 * Written with intrinsics rather than left to the vectorizer: the build's -O level and -march are
 * the packager's (Debian builds for baseline x86-64 at -O2), yet the figures must reach what a
 * STREAM built for this CPU reaches. The widest vectors the CPU has are picked at run time, and
 * streaming (non-temporal) stores skip the read-for-ownership of the destination line, as the
 * STREAM builds of compilers that emit them do; --stores normal measures with ordinary stores.
 * Each kernel takes arrays aligned to 64 bytes and N a multiple of 64 elements.
 */

/* One loop over 4 vectors of W doubles per step; BODY(o) handles the vector at offset o. */
#define KERNEL(name, attr, V, SET1, W, BODY, FENCE)                                            \
	attr static void name(double *restrict a, double *restrict b, double *restrict c,      \
			      size_t n, double s)                                              \
	{                                                                                      \
		V vs = SET1(s);                                                                \
		(void)vs, (void)a, (void)b, (void)c;                                           \
		for (size_t j = 0; j < n; j += 4 * (W)) {                                      \
			BODY(0);                                                               \
			BODY(W);                                                               \
			BODY(2 * (W));                                                         \
			BODY(3 * (W));                                                         \
		}                                                                              \
		FENCE;                                                                         \
	}

/* c = a; b = s * c; c = a + b; a = b + s * c */
#define COPY(o) ST(c + j + (o), LD(a + j + (o)))
#define SCALE(o) ST(b + j + (o), MUL(vs, LD(c + j + (o))))
#define ADDK(o) ST(c + j + (o), ADD(LD(a + j + (o)), LD(b + j + (o))))
#define TRIAD(o) ST(a + j + (o), ADD(LD(b + j + (o)), MUL(vs, LD(c + j + (o)))))

/* The four kernels of one instruction set, with stores ST (normal) or NT (streaming). */
#define KERNELS(isa, attr, V, SET1, W, FENCE)                                                  \
	KERNEL(copy_##isa, attr, V, SET1, W, COPY, (void)0)                                    \
	KERNEL(scale_##isa, attr, V, SET1, W, SCALE, (void)0)                                  \
	KERNEL(add_##isa, attr, V, SET1, W, ADDK, (void)0)                                     \
	KERNEL(triad_##isa, attr, V, SET1, W, TRIAD, (void)0)

#define NT_KERNELS(isa, attr, V, SET1, W, FENCE)                                               \
	KERNEL(copy_nt_##isa, attr, V, SET1, W, COPY, FENCE)                                   \
	KERNEL(scale_nt_##isa, attr, V, SET1, W, SCALE, FENCE)                                 \
	KERNEL(add_nt_##isa, attr, V, SET1, W, ADDK, FENCE)                                    \
	KERNEL(triad_nt_##isa, attr, V, SET1, W, TRIAD, FENCE)

#define TABLE(isa, name)                                                                       \
	static const struct mem_kernels k_##isa = {                                            \
		name,                                                                          \
		{ { copy_##isa, scale_##isa, add_##isa, triad_##isa },                         \
		  { copy_nt_##isa, scale_nt_##isa, add_nt_##isa, triad_nt_##isa } },           \
	};

/* Plain C for other CPUs: the compiler vectorizes what it can; "streaming" is the same loop. */
#define SCALAR(v) (v)
#define LD(p) (*(p))
#define ST(p, v) (*(p) = (v))
#define MUL(x, y) ((x) * (y))
#define ADD(x, y) ((x) + (y))
KERNELS(generic, , double, SCALAR, 1, (void)0)
NT_KERNELS(generic, , double, SCALAR, 1, (void)0)
TABLE(generic, "generic")
#undef LD
#undef ST
#undef MUL
#undef ADD

#if defined(__x86_64__)
#include <immintrin.h>

#define LD(p) _mm_load_pd(p)
#define ST(p, v) _mm_store_pd((p), (v))
#define MUL(x, y) _mm_mul_pd((x), (y))
#define ADD(x, y) _mm_add_pd((x), (y))
KERNELS(sse2, , __m128d, _mm_set1_pd, 2, (void)0)
#undef ST
#define ST(p, v) _mm_stream_pd((p), (v))
NT_KERNELS(sse2, , __m128d, _mm_set1_pd, 2, _mm_sfence())
TABLE(sse2, "sse2")
#undef LD
#undef ST
#undef MUL
#undef ADD

#define LD(p) _mm256_load_pd(p)
#define ST(p, v) _mm256_store_pd((p), (v))
#define MUL(x, y) _mm256_mul_pd((x), (y))
#define ADD(x, y) _mm256_add_pd((x), (y))
KERNELS(avx, __attribute__((target("avx"))), __m256d, _mm256_set1_pd, 4, (void)0)
#undef ST
#define ST(p, v) _mm256_stream_pd((p), (v))
NT_KERNELS(avx, __attribute__((target("avx"))), __m256d, _mm256_set1_pd, 4, _mm_sfence())
TABLE(avx, "avx")
#undef LD
#undef ST
#undef MUL
#undef ADD

#define LD(p) _mm512_load_pd(p)
#define ST(p, v) _mm512_store_pd((p), (v))
#define MUL(x, y) _mm512_mul_pd((x), (y))
#define ADD(x, y) _mm512_add_pd((x), (y))
KERNELS(avx512, __attribute__((target("avx512f"))), __m512d, _mm512_set1_pd, 8, (void)0)
#undef ST
#define ST(p, v) _mm512_stream_pd((p), (v))
NT_KERNELS(avx512, __attribute__((target("avx512f"))), __m512d, _mm512_set1_pd, 8,
	   _mm_sfence())
TABLE(avx512, "avx512")
#undef LD
#undef ST
#undef MUL
#undef ADD
#endif

const struct mem_kernels *mem_kernels_get(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return &k_avx512;
	if (__builtin_cpu_supports("avx"))
		return &k_avx;
	return &k_sse2;
#else
	return &k_generic;
#endif
}

const struct mem_kernels *mem_kernels_generic(void)
{
	return &k_generic;
}
