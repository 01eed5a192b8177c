/* peer_group.cuh: engines of the same items that open at once on several GPUs (a distance run's
 * lanes) and fill their device copies in shares. The data is cut into shares; each member claims
 * the next unclaimed share, fills it from the host and announces it, until none is left, so that
 * a GPU that opens late (its context) takes fewer; then it copies every other share from the
 * device of the member that filled it (tsk_peer_copy: over NVLink where the GPUs have it), or fills
 * it from the host itself when that member gave it up (it failed). A member's buffers must outlive
 * every copy from them: it frees them only after every member has finished (wait_finished). */
#ifndef TSK_GPU_PEER_GROUP_CUH
#define TSK_GPU_PEER_GROUP_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

/* Shares a group of n members cuts its data into: enough for a late member to take fewer. */
static inline int tsk_peer_shares(int n_members) { return 8 * n_members; }

class tsk_peer_group {
  public:
    /* n_members engines over the items [0, n_items), cut into tsk_peer_shares(n_members) shares of
     * consecutive items and about equal weight; weight_before(i): the weight of items [0, i) (bytes
     * to upload), for i in [0, n_items]. */
    template <class Prefix>
    tsk_peer_group(int n_members, int64_t n_items, Prefix weight_before)
        : members(n_members), shares(tsk_peer_shares(n_members)), bound((size_t)shares + 1, n_items),
          state_((size_t)shares, UNCLAIMED), by_((size_t)shares, -1), source_((size_t)shares, nullptr),
          finished_((size_t)n_members, 0)
    {
        const double total = (double)weight_before(n_items);
        bound[0] = 0;
        int s = 1; /* share s starts at the first item whose weight before reaches s / shares of all */
        for (int64_t i = 0; i < n_items && s < shares; i++)
            while (s < shares && (double)weight_before(i) >= total * s / shares) bound[(size_t)s++] = i;
    }
    const int members, shares;
    std::vector<int64_t> bound; /* share s: the items [bound[s], bound[s + 1]) */

    /* The next share no member has claimed, now member m's to fill; -1 when none is left. */
    int claim(int m)
    {
        std::lock_guard<std::mutex> lock(m_);
        for (int s = 0; s < shares; s++)
            if (state_[(size_t)s] == UNCLAIMED) {
                state_[(size_t)s] = CLAIMED, by_[(size_t)s] = m;
                return s;
            }
        return -1;
    }

    /* Share s is on its member's device, in the engine `source`. */
    void ready(int s, const void *source)
    {
        std::lock_guard<std::mutex> lock(m_);
        state_[(size_t)s] = READY, source_[(size_t)s] = source;
        cv_.notify_all();
    }

    /* Waits until share s is ready (its engine) or given up (nullptr: fill it from the host). Every
     * share is claimed by the time a member asks: it claimed until none was left. */
    const void *wait_share(int s)
    {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return state_[(size_t)s] == READY || state_[(size_t)s] == GIVEN_UP; });
        return source_[(size_t)s];
    }

    /* Member m copies from no member any more (its fill ended, or it never opened); the shares it
     * claimed and did not announce are given up. */
    void finish(int m)
    {
        std::lock_guard<std::mutex> lock(m_);
        for (int s = 0; s < shares; s++)
            if (by_[(size_t)s] == m && state_[(size_t)s] == CLAIMED) state_[(size_t)s] = GIVEN_UP;
        finished_[(size_t)m] = 1;
        cv_.notify_all();
    }

    /* Waits until every member finished: no copy reads another's buffers any more. */
    void wait_finished()
    {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return std::all_of(finished_.begin(), finished_.end(), [](int x) { return x != 0; }); });
    }

  private:
    enum { UNCLAIMED, CLAIMED, READY, GIVEN_UP };
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<int> state_, by_;
    std::vector<const void *> source_;
    std::vector<int> finished_;
};

/* Copies n bytes from src on device src_dev to dst on the current device dst_dev, queued on st;
 * peer access from dst_dev to src_dev is enabled first, once a process, where the two GPUs have it
 * (else the driver goes through the host). */
cudaError_t tsk_peer_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t n, cudaStream_t st);

#endif
