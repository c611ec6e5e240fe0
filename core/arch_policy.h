/* Which per-architecture tuning policy the code being compiled takes: the
 * newest of 900 (Hopper and later), 800 (Ampere, Ada) and 750 (Turing)
 * that __CUDA_ARCH__ reaches; host code (no __CUDA_ARCH__), 900. A tuning
 * file names its values PREFIX_<ARCH>_<NAME> and reads them through
 * PB_ARCH_POLICY(PREFIX, NAME) (docs/architectures.md). Plain
 * preprocessor, so C host models include it too. */
#ifndef PB_ARCH_POLICY_H
#define PB_ARCH_POLICY_H

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define PB_POLICY_ARCH 750
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define PB_POLICY_ARCH 800
#else
#define PB_POLICY_ARCH 900
#endif

#define PB_POLICY_PASTE(prefix, arch, name) prefix##_##arch##_##name
#define PB_POLICY_EXPAND(prefix, arch, name) PB_POLICY_PASTE(prefix, arch, name)
#define PB_ARCH_POLICY(prefix, name) PB_POLICY_EXPAND(prefix, PB_POLICY_ARCH, name)

#endif
