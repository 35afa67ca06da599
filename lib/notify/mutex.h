// lib/notify/mutex.h — std::mutex, std::shared_mutex and
// std::condition_variable with Clang's thread-safety annotations
// (absl/base/thread_annotations.h), so that `-Wthread-safety` checks the
// locking rules of lib/engine and lib/notify at compile time. libstdc++'s
// own types carry no annotations. These add nothing at run time: every
// method is an inline call of the std one.
//
// Thread safety: as the std types they wrap. Ownership: a Mutex or
// SharedMutex is neither copyable nor movable; a SharedHold or
// ExclusiveHold owns its hold and releases it when destroyed. Errors: none
// of their own (the std types' std::system_error is not caught).

#ifndef LQS_LIB_NOTIFY_MUTEX_H_
#define LQS_LIB_NOTIFY_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include <absl/base/thread_annotations.h>

namespace lqs::notify {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }
  // Tells the analysis that the caller holds the mutex (no run-time check).
  // For lambdas, which the analysis checks as functions of their own: use
  // it only in one that is called synchronously while the mutex is held.
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

class ABSL_LOCKABLE SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  bool ReaderTryLock() ABSL_SHARED_TRYLOCK_FUNCTION(true) { return mu_.try_lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a SharedMutex shared for its scope.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds a SharedMutex exclusively for its scope.
class ABSL_SCOPED_LOCKABLE WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~WriterMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// A shared hold on a SharedMutex that can move between scopes and objects
// (a dead-letter move keeps its DLQ's gate in the move's state until the
// move is written). The analysis cannot follow a hold that moves, so it
// does not see this one: use it only for a mutex that guards no data (a
// gate that writers drain), never for one named in ABSL_GUARDED_BY.
class SharedHold {
 public:
  SharedHold() = default;
  SharedHold(SharedHold&& other) noexcept : mu_(other.mu_) { other.mu_ = nullptr; }
  SharedHold& operator=(SharedHold&& other) noexcept {
    if (this != &other) {
      Release();
      mu_ = other.mu_;
      other.mu_ = nullptr;
    }
    return *this;
  }
  ~SharedHold() { Release(); }

  // Waits for `mu` (shared), releasing what it held first.
  void Acquire(SharedMutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    Release();
    mu->ReaderLock();
    mu_ = mu;
  }
  // Takes `mu` (shared) if it is free now; false otherwise. REQUIRES: !held().
  bool TryAcquire(SharedMutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (!mu->ReaderTryLock()) return false;
    mu_ = mu;
    return true;
  }
  void Release() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (mu_ != nullptr) mu_->ReaderUnlock();
    mu_ = nullptr;
  }
  bool held() const { return mu_ != nullptr; }

 private:
  SharedMutex* mu_ = nullptr;
};

// The exclusive twin of SharedHold (test seams that hand a held gate to the
// test); the same restriction applies.
class ExclusiveHold {
 public:
  explicit ExclusiveHold(SharedMutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS : mu_(mu) { mu_->Lock(); }
  ExclusiveHold(ExclusiveHold&& other) noexcept : mu_(other.mu_) { other.mu_ = nullptr; }
  ExclusiveHold& operator=(ExclusiveHold&&) = delete;
  ~ExclusiveHold() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (mu_ != nullptr) mu_->Unlock();
  }

 private:
  SharedMutex* mu_;
};

// A hold on a Mutex that its owner may release before the end of its scope
// (a transaction's commit releases the transaction mutex before its write).
// The analysis does not see it, as SharedHold: use it only for a mutex that
// guards no data, never for one named in ABSL_GUARDED_BY.
class MutexHold {
 public:
  explicit MutexHold(Mutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS : mu_(mu) { mu_->Lock(); }
  MutexHold(const MutexHold&) = delete;
  MutexHold& operator=(const MutexHold&) = delete;
  ~MutexHold() { Release(); }

  // Releases the mutex now (once; later calls do nothing).
  void Release() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (mu_ != nullptr) mu_->Unlock();
    mu_ = nullptr;
  }

 private:
  Mutex* mu_;
};

// std::condition_variable on a Mutex.
class CondVar {
 public:
  // Releases `mu` while waiting, holds it again on return. Spurious returns
  // are possible: callers re-check their condition.
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // As Wait, for at most `timeout`.
  template <class Rep, class Period>
  void WaitFor(Mutex* mu, const std::chrono::duration<Rep, Period>& timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait_for(lock, timeout);
    lock.release();
  }
  // As Wait, until `deadline`. Returns false when it timed out.
  template <class ClockT, class Duration>
  bool WaitUntil(Mutex* mu, const std::chrono::time_point<ClockT, Duration>& deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool notified = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return notified;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace lqs::notify

#endif  // LQS_LIB_NOTIFY_MUTEX_H_
