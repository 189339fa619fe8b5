/*
 * A stand-in for Windows' bcryptprimitives.dll, for running iogauge's Windows build under Wine
 * in tests only. It is never shipped and never needed on Windows, which has the real DLL.
 *
 * Why it exists: Rust's std for x86_64-pc-windows-gnu imports ProcessPrng from
 * bcryptprimitives.dll (the seeds of every HashMap's hasher come from it), and the Wine in
 * Debian 12 (8.0) has no such DLL, so every Rust .exe fails to start there with
 * STATUS_DLL_NOT_FOUND. scripts/wine/setup.sh builds this file into the test Wine prefix's
 * system32, where the loader finds it for every program.
 *
 * ProcessPrng is documented to always return TRUE; callers (Rust's std among them) do not check
 * it. So a failure of the generator underneath ends the process, as Windows' own fail-fast
 * would, rather than hand back a buffer that is not random.
 */
#include <windows.h>
#include <bcrypt.h>

#define STATUS_FAIL_FAST 0xC0000409u /* what Windows' fail-fast exits with */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE pbData, SIZE_T cbData)
{
    /* BCryptGenRandom takes a ULONG length: a larger request is filled in parts. */
    const SIZE_T part_max = 1u << 30;
    while (cbData > 0) {
        ULONG part = (ULONG)(cbData < part_max ? cbData : part_max);
        NTSTATUS st = BCryptGenRandom(NULL, pbData, part, BCRYPT_USE_SYSTEM_PREFERRED_RNG);
        if (!BCRYPT_SUCCESS(st))
            TerminateProcess(GetCurrentProcess(), STATUS_FAIL_FAST);
        pbData += part;
        cbData -= part;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)reserved;
    if (reason == DLL_PROCESS_ATTACH)
        DisableThreadLibraryCalls(instance);
    return TRUE;
}
