// Test-only, loaded with LD_PRELOAD: posix_fallocate answers ENOSPC, as a disk with less free
// space than it is asked for does (cli_test: the end marker's 1 MiB reserve). Nothing else of
// the disk changes.
#include <fcntl.h>

#include <cerrno>

extern "C" int posix_fallocate(int, off_t, off_t) { return ENOSPC; }
extern "C" int posix_fallocate64(int, off64_t, off64_t) { return ENOSPC; }
