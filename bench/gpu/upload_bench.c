/* upload_bench.c: a mapped file to GPUs, the two ways, to decide whether the genome engines'
 * uploads should pin the page cache in place instead of copying through pinned halves.
 *
 *   upload_bench FILE GPUS THREADS HALF_MB
 *
 * Each of GPUS devices (at once, a thread each) takes its 1/GPUS of FILE's mapping:
 *   staged      memcpy into two pinned halves of HALF_MB on THREADS threads, each half's copy to the
 *               device running while the other fills (tsk_stage_upload's way);
 *   registered  the part's whole pages pinned in place (cudaHostRegister, read-only, THREADS slices
 *               registered side by side), one copy to the device, then unregistered.
 * Before timing anything it checks the bytes: 16 windows of 1 MB of each part read back from the
 * device equal the file's. Prints each way's seconds and GB/s (the registration apart). */
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../bench_clock.h"

#define MAX_GPUS 8
#define MAX_THREADS 64
#define PAGE ((size_t)4096)

static const char *map;
static size_t file_len, half_bytes;
static int n_threads;

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "upload_bench: %s: %s\n", #call, cudaGetErrorString(e_));                                  \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

typedef struct {
    char *dst;
    const char *src;
    size_t n;
    int register_it; /* 1: cudaHostRegister the slice; 2: unregister it; 0: memcpy */
    cudaError_t rc;
} slice;

static void *do_slice(void *arg)
{
    slice *s = arg;
    if (s->register_it == 1) s->rc = cudaHostRegister((void *)s->src, s->n, cudaHostRegisterPortable | cudaHostRegisterReadOnly);
    else if (s->register_it == 2) s->rc = cudaHostUnregister((void *)s->src);
    else memcpy(s->dst, s->src, s->n);
    return NULL;
}

/* fn over [src, src + n) cut into n_threads slices (page multiples), side by side. */
static void on_threads(char *dst, const char *src, size_t n, int register_it, size_t align)
{
    pthread_t t[MAX_THREADS];
    slice s[MAX_THREADS];
    size_t per = (n + (size_t)n_threads - 1) / (size_t)n_threads;
    per = (per + align - 1) / align * align;
    int k = 0;
    for (size_t at = 0; at < n; at += per, k++) {
        s[k] = (slice){dst ? dst + at : NULL, src + at, n - at < per ? n - at : per, register_it, cudaSuccess};
        if (pthread_create(&t[k], NULL, do_slice, &s[k])) do_slice(&s[k]), t[k] = 0;
    }
    for (int i = 0; i < k; i++) {
        if (t[i]) pthread_join(t[i], NULL);
        CHECK(s[i].rc);
    }
}

typedef struct {
    int dev, way; /* 0 staged, 1 registered */
    size_t off, n;
    char *dst;
    double seconds, register_s, unregister_s;
} part;

static void *upload(void *arg)
{
    part *p = arg;
    CHECK(cudaSetDevice(p->dev));
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const char *src = map + p->off;
    const double t0 = bench_now();
    if (p->way == 0) {
        char *buf;
        cudaEvent_t ev[2];
        CHECK(cudaMallocHost((void **)&buf, 2 * half_bytes));
        for (int h = 0; h < 2; h++) CHECK(cudaEventCreateWithFlags(&ev[h], cudaEventDisableTiming));
        const double t1 = bench_now(); /* the halves are the stage's, made once */
        int h = 0;
        for (size_t at = 0; at < p->n; at += half_bytes, h ^= 1) {
            const size_t m = p->n - at < half_bytes ? p->n - at : half_bytes;
            CHECK(cudaEventSynchronize(ev[h]));
            on_threads(buf + (size_t)h * half_bytes, src + at, m, 0, (size_t)1 << 20);
            CHECK(cudaMemcpyAsync(p->dst + at, buf + (size_t)h * half_bytes, m, cudaMemcpyHostToDevice, st));
            CHECK(cudaEventRecord(ev[h], st));
        }
        CHECK(cudaStreamSynchronize(st));
        p->seconds = bench_now() - t1;
        for (int i = 0; i < 2; i++) cudaEventDestroy(ev[i]);
        cudaFreeHost(buf);
    } else {
        /* the whole pages within the part; its ragged ends go as they are (the driver's own copy) */
        const uintptr_t a = ((uintptr_t)src + PAGE - 1) / PAGE * PAGE, b = ((uintptr_t)src + p->n) / PAGE * PAGE;
        const size_t head = (size_t)(a - (uintptr_t)src), body = b > a ? (size_t)(b - a) : 0;
        on_threads(NULL, (const char *)a, body, 1, PAGE);
        const double t1 = bench_now();
        p->register_s = t1 - t0;
        if (head) CHECK(cudaMemcpyAsync(p->dst, src, head < p->n ? head : p->n, cudaMemcpyHostToDevice, st));
        /* a copy from registered memory lies within one registration: a copy a slice */
        size_t per = (body + (size_t)n_threads - 1) / (size_t)n_threads;
        per = (per + PAGE - 1) / PAGE * PAGE;
        for (size_t at = 0; at < body; at += per)
            CHECK(cudaMemcpyAsync(p->dst + head + at, (const char *)a + at, body - at < per ? body - at : per,
                                  cudaMemcpyHostToDevice, st));
        if (head + body < p->n)
            CHECK(cudaMemcpyAsync(p->dst + head + body, src + head + body, p->n - head - body, cudaMemcpyHostToDevice, st));
        CHECK(cudaStreamSynchronize(st));
        const double t2 = bench_now();
        p->seconds = t2 - t1;
        on_threads(NULL, (const char *)a, body, 2, PAGE);
        p->unregister_s = bench_now() - t2;
    }
    cudaStreamDestroy(st);
    return NULL;
}

/* 16 windows of 1 MB of each part, read back, against the file. */
static int check(const part *p, int n)
{
    char *back = malloc((size_t)1 << 20);
    int bad = 0;
    for (int g = 0; g < n; g++) {
        CHECK(cudaSetDevice(p[g].dev));
        for (int w = 0; w < 16; w++) {
            const size_t len = p[g].n < ((size_t)1 << 20) ? p[g].n : (size_t)1 << 20;
            const size_t at = (p[g].n - len) / 15 * (size_t)w;
            CHECK(cudaMemcpy(back, p[g].dst + at, len, cudaMemcpyDeviceToHost));
            bad += memcmp(back, map + p[g].off + at, len) != 0;
        }
    }
    free(back);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: upload_bench FILE GPUS THREADS HALF_MB\n");
        return 2;
    }
    const int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        perror(argv[1]);
        return 1;
    }
    file_len = (size_t)st.st_size;
    map = mmap(NULL, file_len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    int n_gpus = atoi(argv[2]);
    n_threads = atoi(argv[3]);
    half_bytes = (size_t)atoll(argv[4]) << 20;
    if (n_gpus < 1 || n_gpus > MAX_GPUS || n_threads < 1 || n_threads > MAX_THREADS || !half_bytes) return 2;
    int read_only = 0;
    CHECK(cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported, 0));
    printf("read-only registration supported: %d\n", read_only);
    part p[MAX_GPUS];
    const size_t per = file_len / (size_t)n_gpus;
    for (int g = 0; g < n_gpus; g++) {
        p[g] = (part){g, 0, per * (size_t)g, g == n_gpus - 1 ? file_len - per * (size_t)g : per, NULL, 0, 0, 0};
        CHECK(cudaSetDevice(g));
        CHECK(cudaMalloc((void **)&p[g].dst, p[g].n));
    }
    for (int round = 0; round < 3; round++) /* checked first, then timed twice */
        for (int way = 0; way < (read_only ? 2 : 1); way++) {
            pthread_t t[MAX_GPUS];
            const double t0 = bench_now();
            for (int g = 0; g < n_gpus; g++) {
                CHECK(cudaSetDevice(g));
                CHECK(cudaMemset(p[g].dst, 0, p[g].n));
                CHECK(cudaDeviceSynchronize());
            }
            const double t1 = bench_now();
            for (int g = 0; g < n_gpus; g++) p[g].way = way, pthread_create(&t[g], NULL, upload, &p[g]);
            for (int g = 0; g < n_gpus; g++) pthread_join(t[g], NULL);
            const double wall = bench_now() - t1;
            (void)t0;
            if (round == 0) {
                const int bad = check(p, n_gpus);
                printf("%s: %s\n", way ? "registered" : "staged", bad ? "WRONG BYTES" : "bytes checked");
                if (bad) return 1;
                continue;
            }
            double slowest = 0, reg = 0, unreg = 0;
            for (int g = 0; g < n_gpus; g++) {
                if (p[g].seconds > slowest) slowest = p[g].seconds;
                if (p[g].register_s > reg) reg = p[g].register_s;
                if (p[g].unregister_s > unreg) unreg = p[g].unregister_s;
            }
            printf("%-10s %.1f GB on %d GPU%s, %d threads: copies %.3f s (%.1f GB/s); register %.3f s, unregister %.3f "
                   "s; wall %.3f s\n",
                   way ? "registered" : "staged", (double)file_len / 1e9, n_gpus, n_gpus > 1 ? "s" : "", n_threads,
                   slowest, (double)file_len / slowest / 1e9, reg, unreg, wall);
        }
    return 0;
}
