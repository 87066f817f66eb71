// A stand-in for libnvidia-ml.so.1, built by the tests (never installed): two GPUs at a constant
// 250 W each, whose energy counters grow at exactly that rate on CLOCK_MONOTONIC, so tokbench's
// --telemetry nvml has a known truth. Only the functions probe/nvml binds, with NVML's C
// signatures as nvml.h declares them. FAKE_NVML_GPUS=0 makes it see no GPU.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

extern "C" {
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};

struct nvmlDevice_st {
  int index;
};
static nvmlDevice_st devices[2] = {{0}, {1}};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// FAKE_NVML_LOADED=FILE: each load of this library appends a line to FILE, so a test can tell
// whether tokbench opened NVML at all (it must not without --telemetry nvml).
__attribute__((constructor)) static void note_loaded(void) {
  if (const char* path = std::getenv("FAKE_NVML_LOADED")) {
    if (FILE* f = std::fopen(path, "a")) {
      std::fputs("loaded\n", f);
      std::fclose(f);
    }
  }
}

nvmlReturn_t nvmlInit_v2(void) { return 0; }
const char* nvmlErrorString(nvmlReturn_t r) { return r == 0 ? "Success" : "Unknown Error"; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* n) {
  const char* env = std::getenv("FAKE_NVML_GPUS");
  *n = env ? static_cast<unsigned int>(std::atoi(env)) : 2;
  return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* h) {
  if (i >= 2) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *h = &devices[i];
  return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char* out, unsigned int len) {
  const char* uuid = h->index == 0 ? "GPU-fake-0" : "GPU-fake-1";
  if (len < std::strlen(uuid) + 1) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::strcpy(out, uuid);
  return 0;
}
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long* mj) {
  (void)h;
  *mj = static_cast<unsigned long long>(250.0 * now_s() * 1000.0);
  return 0;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned int* mw) {
  (void)h;
  *mw = 250000;
  return 0;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t* u) {
  u->gpu = h->index == 0 ? 75 : 25;
  u->memory = 10;
  return 0;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t* m) {
  (void)h;
  m->total = 80ULL << 30;
  m->used = 40ULL << 30;
  m->free = m->total - m->used;
  return 0;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned int* c) {
  (void)h;
  (void)sensor;
  *c = 55;
  return 0;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int type, unsigned int* mhz) {
  (void)h;
  if (type != 1) return 3;  // NVML_ERROR_NOT_SUPPORTED
  *mhz = 1980;
  return 0;
}

}  // extern "C"
