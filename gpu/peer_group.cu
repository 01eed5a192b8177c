/* peer_group.cu: copies between GPUs for engines that open among peers (peer_group.cuh). */
#include "peer_group.cuh"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

cudaError_t tsk_peer_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t n, cudaStream_t st)
{
    if (src_dev != dst_dev) {
        /* once a pair: enabling it again is an error (cudaErrorPeerAccessAlreadyEnabled) */
        static std::mutex mu;
        static std::vector<std::pair<int, int>> asked;
        std::lock_guard<std::mutex> lock(mu);
        if (std::find(asked.begin(), asked.end(), std::make_pair(dst_dev, src_dev)) == asked.end()) {
            asked.emplace_back(dst_dev, src_dev);
            int can = 0;
            if (cudaDeviceCanAccessPeer(&can, dst_dev, src_dev) != cudaSuccess) cudaGetLastError(), can = 0;
            if (can && cudaDeviceEnablePeerAccess(src_dev, 0) != cudaSuccess) cudaGetLastError(); /* through the host */
        }
    }
    return n ? cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, n, st) : cudaSuccess;
}
