#pragma once
// Fixed-size pool of std::threads running tasks in FIFO order. An exception a task throws is never
// lost: the first one is kept and rethrown by wait() (later tasks still run).

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace paritylab::study {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // threads <= 0: one per core
  ~ThreadPool();                     // waits for queued tasks, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void submit(std::function<void()> task);
  // Until the queue is empty and all workers idle; then rethrows the first exception a task threw
  // since the last wait() (and forgets it).
  void wait();
  int size() const { return int(workers_.size()); }

 private:
  void work();
  std::vector<std::thread> workers_;
  std::deque<std::function<void()>> queue_;
  std::mutex mutex_;
  std::condition_variable hasWork_, idle_;
  int busy_ = 0;
  std::exception_ptr firstError_;
  bool stopping_ = false;
};

}  // namespace paritylab::study
